"""The persistent instance identity: a restarted instance takes its identity back; two live
instances sharing a data dir never share one."""

from __future__ import annotations

from pathlib import Path

from awaken_server.instance import claim_instance_identity


def test_a_released_identity_is_taken_back_and_a_held_one_is_not(tmp_path: Path) -> None:
    first = claim_instance_identity(tmp_path)
    second = claim_instance_identity(tmp_path)  # another live instance on the same directory
    assert first.instance_id != second.instance_id
    first_id = first.instance_id
    first.release()  # the process died (the kernel drops its lock)
    again = claim_instance_identity(tmp_path)
    assert again.instance_id == first_id  # the restarted instance is itself again
    assert (tmp_path / "instances" / "0.id").read_text() == first_id
    again.release()
    second.release()
