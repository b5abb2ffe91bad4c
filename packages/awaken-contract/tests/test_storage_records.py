"""Wire shapes and helpers of the store records (contract-data §8, §18, §19)."""

from __future__ import annotations

import json

import msgspec
import pytest
from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.mailbox import MailboxJob, MailboxJobStatus, retry_delay_ms
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import (
    MessageQuery,
    MessageRecord,
    MessageSeqRange,
    ProfileOwner,
    RunQuery,
    RunRecord,
    RunRequestSnapshot,
    RunWaitingState,
    RunWaitingTicket,
    Thread,
    ThreadMetadata,
    checkpoint_thread,
    sort_thread_ids,
)
from awaken_contract.contract.suspension import WaitingReason
from awaken_contract.state import PersistedState


def _json(value: object) -> dict[str, object]:
    result: dict[str, object] = json.loads(msgspec.json.encode(value))
    return result


def test_run_record_json_shape() -> None:
    run = RunRecord(
        run_id="r1",
        thread_id="t1",
        agent_id="a",
        status=RunStatus.DONE,
        termination_reason=TerminationReason.error("boom"),
        created_at=1,
        updated_at=2,
    )
    assert _json(run) == {
        "run_id": "r1",
        "thread_id": "t1",
        "agent_id": "a",
        "parent_run_id": None,
        "status": "done",
        "termination_reason": {"type": "error", "value": "boom"},
        "created_at": 1,
        "updated_at": 2,
        "steps": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "state": None,
    }
    minimal = {k: v for k, v in _json(run).items() if k not in ("parent_run_id", "state")}
    decoded = msgspec.json.decode(json.dumps(minimal), type=RunRecord)
    assert decoded == run
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"run_id": "r", "thread_id": "t", "agent_id": "a"}', type=RunRecord)


def test_run_record_with_state_round_trips() -> None:
    run = RunRecord(
        run_id="r",
        thread_id="t",
        agent_id="a",
        status=RunStatus.WAITING,
        created_at=1,
        updated_at=1,
        waiting=RunWaitingState(
            reason=WaitingReason.TOOL_PERMISSION,
            tickets=[RunWaitingTicket(ticket_id="k", tool_call_id="c", tool_name="x")],
        ),
        state=PersistedState(revision=3, extensions={"k": [1]}),
    )
    data = _json(run)
    assert data["state"] == {"revision": 3, "extensions": {"k": [1]}}
    assert data["waiting"] == {
        "reason": "tool_permission",
        "tickets": [
            {
                "ticket_id": "k",
                "tool_call_id": "c",
                "tool_name": "x",
                "resume_mode": "replay_tool_call",
                "updated_at": 0,
            }
        ],
    }
    assert msgspec.json.decode(msgspec.json.encode(run), type=RunRecord) == run
    assert run.waiting_reason() is WaitingReason.TOOL_PERMISSION
    assert run.is_resumable_waiting() and not run.is_background_task_waiting()
    run.status = RunStatus.DONE
    assert run.waiting_reason() is None


def test_request_snapshot_defaults() -> None:
    assert _json(RunRequestSnapshot()) == {"origin": "User"}
    assert msgspec.json.decode(b"{}", type=RunRequestSnapshot) == RunRequestSnapshot()


def test_thread_json_and_projection() -> None:
    assert _json(Thread(id="t")) == {"id": "t", "metadata": {}}
    thread = Thread.with_id("t").with_title("hello")
    assert _json(thread)["metadata"] == {"title": "hello"}
    run = RunRecord(
        run_id="r",
        thread_id="t",
        agent_id="a",
        status=RunStatus.RUNNING,
        created_at=1,
        updated_at=1,
    )
    stamped = checkpoint_thread(thread, "t", run)
    assert thread.active_run_id is None  # the input is not modified
    assert stamped.active_run_id == stamped.open_run_id == stamped.latest_run_id == "r"
    assert stamped.metadata.created_at == stamped.metadata.updated_at
    assert Thread.new().id != Thread.new().id


def test_sort_thread_ids() -> None:
    threads = [
        Thread(id="b"),
        Thread(id="a"),
        Thread(id="new", metadata=ThreadMetadata(updated_at=9)),
        Thread(id="created", metadata=ThreadMetadata(created_at=5)),
    ]
    assert sort_thread_ids(threads, 0, 10) == ["new", "created", "a", "b"]
    assert sort_thread_ids(threads, 1, 2) == ["created", "a"]


def test_run_query_page_clamps() -> None:
    runs = [
        RunRecord(
            run_id=f"r{i}", thread_id="t", agent_id="a", status=RunStatus.DONE,
            created_at=10 - i, updated_at=1,
        )
        for i in range(3)
    ]  # fmt: skip
    page = RunQuery(limit=-5).page(runs)
    assert [r.run_id for r in page.items] == ["r2"] and page.has_more and page.total == 3
    assert RunQuery(limit=10_000).effective_limit() == 200
    assert RunQuery(offset=7).page(runs).items == []


def test_message_seq_range() -> None:
    assert len(MessageSeqRange(2, 4)) == 3
    with pytest.raises(ValueError):
        MessageSeqRange(0, 1)
    with pytest.raises(ValueError):
        MessageSeqRange(3, 2)
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"from_seq": 0, "to_seq": 1}', type=MessageSeqRange)


def test_message_record_projection() -> None:
    message = Message.assistant("x")
    message.mark_produced_by("run-1", 2)
    record = MessageRecord.from_message("t", 5, message)
    assert (record.seq, record.produced_by_run_id, record.step_index) == (5, "run-1", 2)
    anonymous = Message.user("y")
    anonymous.id = None
    assert MessageRecord.from_message("t", 1, anonymous).message_id


def test_message_query_cursor() -> None:
    assert MessageQuery(offset=3).start() == 3
    assert MessageQuery(offset=3, cursor="10").start() == 10
    assert MessageQuery(offset=3, cursor="  ").start() == 3
    with pytest.raises(ValueError, match="unsigned integer"):
        MessageQuery(cursor="-1").start()


def test_profile_owner() -> None:
    alice = ProfileOwner.agent("alice")
    assert str(alice) == "agent:alice" and str(ProfileOwner.system()) == "system"
    assert alice.to_json() == {"Agent": "alice"} and ProfileOwner.system().to_json() == "System"
    assert ProfileOwner.from_json({"Agent": "alice"}) == alice
    assert ProfileOwner.from_json("System").is_system
    with pytest.raises(ValueError):
        ProfileOwner.from_json({"Bot": "x"})
    assert len({alice, ProfileOwner.agent("alice"), ProfileOwner.system()}) == 2


def test_mailbox_job_json_shape() -> None:
    job = MailboxJob.new("thread-42", messages=[Message.user("hi")], agent_id="assistant", now=7)
    data = _json(job)
    for key in ("sender_id", "parent_run_id", "dedupe_key", "last_error", "claim_token",
                "claimed_by", "lease_until"):  # fmt: skip
        assert data[key] is None
    assert data["status"] == "Queued" and data["origin"] == "User"
    assert (data["priority"], data["generation"], data["attempt_count"]) == (128, 0, 0)
    assert (data["available_at"], data["created_at"], data["max_attempts"]) == (7, 7, 5)
    assert "run_id" not in data and "request_extras" not in data
    assert msgspec.json.decode(msgspec.json.encode(job), type=MailboxJob) == job
    assert [s.value for s in MailboxJobStatus if s.is_terminal] == [
        "Accepted", "Cancelled", "Superseded", "DeadLetter",
    ]  # fmt: skip


def test_retry_backoff() -> None:
    assert [retry_delay_ms(a) for a in range(9)] == [
        250, 250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 16_000,
    ]  # fmt: skip
    assert retry_delay_ms(10, base_ms=10_000) == 30_000


def test_request_and_record_share_one_origin_enum() -> None:
    from awaken_contract.contract import identity, request, storage

    assert request.RunRequestOrigin is storage.RunRequestOrigin is identity.RunRequestOrigin
    assert [o.value for o in identity.RunRequestOrigin] == ["User", "A2A", "Internal"]
