"""FileStore behaviour beyond the shared contract: layout, id validation, journal recovery."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import ProfileOwner, ThreadMetadata
from awaken_contract.errors import SerializationError, StorageIoError
from awaken_contract.ids import id_problem
from awaken_contract.testing import make_job, make_run, make_thread, sample_records
from awaken_stores import FileStore
from awaken_stores.file import JOURNAL
from awaken_stores.file import rollback as rollback_module

BAD_IDS = [
    "",
    "   ",
    "../escape",
    "a/b",
    "a\\b",
    "/etc/passwd",
    "..",
    "nul\x00id",
    "tab\tid",
    "x\x7f",
]


class _Crash(BaseException):
    """Simulates the process dying: not an Exception, so no rollback handler runs."""


@pytest.fixture
async def store(tmp_path: Path) -> FileStore:
    return FileStore(tmp_path / "data")


async def test_construction_creates_nothing_and_writes_create_layout(tmp_path: Path) -> None:
    base = tmp_path / "data"
    store = FileStore(base)
    assert not base.exists()
    assert await store.load_thread("t-1") is None
    assert await store.list_threads(0, 10) == []
    assert not base.exists()
    await store.checkpoint("t-1", [Message.user("hi")], make_run("r-1"))
    assert (base / "threads" / "t-1.json").is_file()
    assert (base / "messages" / "t-1.json").is_file()
    assert (base / "runs" / "r-1.json").is_file()
    assert not (base / JOURNAL).exists()
    thread = json.loads((base / "threads" / "t-1.json").read_text())
    assert thread["id"] == "t-1" and thread["latest_run_id"] == "r-1"
    run = json.loads((base / "runs" / "r-1.json").read_text())
    assert run["parent_run_id"] is None and run["state"] is None
    await store.close()


@pytest.mark.parametrize("bad", BAD_IDS)
async def test_invalid_ids_are_rejected(store: FileStore, bad: str) -> None:
    expected = re.escape(id_problem(bad) or "")
    with pytest.raises(StorageIoError, match=f"thread id {expected}"):
        await store.load_thread(bad)
    with pytest.raises(StorageIoError, match="thread id"):
        await store.save_thread(make_thread(bad))
    with pytest.raises(StorageIoError, match="thread id"):
        await store.save_messages(bad, [])
    with pytest.raises(StorageIoError, match="thread id"):
        await store.delete_thread(bad)
    with pytest.raises(StorageIoError, match="thread id"):
        await store.update_thread_metadata(bad, ThreadMetadata())
    with pytest.raises(StorageIoError, match="thread id"):
        await store.checkpoint(bad, [], make_run("r-1"))
    with pytest.raises(StorageIoError, match=f"run id {expected}"):
        await store.create_run(make_run(bad))
    with pytest.raises(StorageIoError, match="run id"):
        await store.load_run(bad)
    with pytest.raises(StorageIoError, match="run id"):
        await store.checkpoint("t-1", [], make_run(bad))
    with pytest.raises(StorageIoError, match="config namespace"):
        await store.config.put(bad, "x", {})
    with pytest.raises(StorageIoError, match="config id"):
        await store.config.get("agents", bad)
    assert not store.base.exists() or not any(store.base.parent.glob("escape*"))
    assert await store.load_thread("t-1") is None


async def test_profile_names_cannot_escape(store: FileStore) -> None:
    owner = ProfileOwner.agent("../../outside")
    await store.profiles.set(owner, "../key/..", 1)
    entry = await store.profiles.get(owner, "../key/..")
    assert entry is not None and entry.value == 1
    written = [p for p in store.base.rglob("*.json")]
    assert written and all(store.base in p.parents for p in written)
    assert len(list((store.base / "profiles").iterdir())) == 1


async def test_corrupt_json_is_a_serialization_error(store: FileStore) -> None:
    await store.save_thread(make_thread("t-1"))
    await store.create_run(make_run("r-1"))
    (store.base / "threads" / "t-1.json").write_text("{not json")
    (store.base / "runs" / "r-1.json").write_text("[]")
    with pytest.raises(SerializationError):
        await store.load_thread("t-1")
    with pytest.raises(SerializationError):
        await store.list_threads(0, 10)
    with pytest.raises(SerializationError):
        await store.load_run("r-1")


async def test_temp_and_backup_files_are_ignored(store: FileStore) -> None:
    await store.save_thread(make_thread("t-1"))
    (store.base / "threads" / ".t-2.abc.tmp").write_text("garbage")
    (store.base / "threads" / "notes.txt").write_text("garbage")
    assert await store.list_threads(0, 10) == ["t-1"]


async def test_failure_mid_commit_rolls_back(
    store: FileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_run = make_run("r-1", status=RunStatus.RUNNING)
    await store.checkpoint("t-1", [Message.user("old")], old_run)
    old_thread = await store.load_thread("t-1")
    real_replace = os.replace
    calls = {"n": 0}

    def failing_replace(src: str | Path, dst: str | Path) -> None:
        calls["n"] += 1
        if calls["n"] == 4:  # journal written; thread swapped (2 renames); fail on messages
            raise OSError("disk full")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(StorageIoError, match="disk full"):
        await store.checkpoint("t-1", [Message.user("new")], make_run("r-2"))
    monkeypatch.setattr(os, "replace", real_replace)
    assert await store.load_thread("t-1") == old_thread
    messages = await store.load_messages("t-1")
    assert messages is not None and [m.text() for m in messages] == ["old"]
    assert await store.load_run("r-2") is None
    assert not (store.base / JOURNAL).exists()
    leftovers = [p.name for p in store.base.rglob(".*") if p.suffix in (".tmp", ".bak")]
    assert leftovers == []


async def test_crash_mid_commit_is_recovered_on_reopen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path / "data"
    store = FileStore(base)
    old_run = make_run("r-1", status=RunStatus.WAITING)
    await store.checkpoint("t-1", [Message.user("old")], old_run)
    old_thread = await store.load_thread("t-1")
    real_replace = os.replace
    calls = {"n": 0}

    def crashing_replace(src: str | Path, dst: str | Path) -> None:
        calls["n"] += 1
        if calls["n"] == 4:  # only the thread file has been swapped
            raise _Crash
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crashing_replace)
    with pytest.raises(_Crash):
        await store.checkpoint("t-1", [Message.user("new")], make_run("r-2"))
    monkeypatch.setattr(os, "replace", real_replace)
    assert (base / JOURNAL).exists()
    swapped = json.loads((base / "threads" / "t-1.json").read_text())
    assert swapped["latest_run_id"] == "r-2"  # the torn state a crash leaves behind

    reopened = FileStore(base)
    assert not (base / JOURNAL).exists()
    assert await reopened.load_thread("t-1") == old_thread
    messages = await reopened.load_messages("t-1")
    assert messages is not None and [m.text() for m in messages] == ["old"]
    assert await reopened.load_run("r-1") == old_run
    assert await reopened.load_run("r-2") is None
    assert not list(base.rglob("*.bak"))
    await store.close()
    await reopened.close()


async def test_crash_mid_splice_is_recovered_on_reopen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash after the new messages were spliced in but before the journal entries were:
    reopening cuts both files back, so messages, run and journal are as before the step."""
    base = tmp_path / "data"
    store = FileStore(base)
    history = [Message.user("old")]
    run = make_run("r-1", status=RunStatus.RUNNING)
    await store.checkpoint_step("t-1", history, run, sample_records(0))
    messages_before = (base / "messages" / "t-1.json").read_bytes()
    journal_before = (base / "journal" / "r-1.jsonl").read_bytes()
    real_splice = rollback_module._splice
    calls = {"n": 0}

    def crashing_splice(target: Path, offset: int, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == 2:  # the messages are spliced; crash before the journal lines
            raise _Crash
        real_splice(target, offset, data)

    monkeypatch.setattr(rollback_module, "_splice", crashing_splice)
    with pytest.raises(_Crash):
        await store.checkpoint_step(
            "t-1", [*history, Message.assistant("new")], run, sample_records(1)
        )
    monkeypatch.setattr(rollback_module, "_splice", real_splice)
    assert (base / JOURNAL).exists()
    assert (base / "messages" / "t-1.json").read_bytes() != messages_before

    reopened = FileStore(base)
    assert not (base / JOURNAL).exists()
    assert (base / "messages" / "t-1.json").read_bytes() == messages_before
    assert (base / "journal" / "r-1.jsonl").read_bytes() == journal_before
    assert await reopened.load_messages("t-1") == history
    assert await reopened.last_seq("r-1") == 5
    entries = await reopened.checkpoint_step(
        "t-1", [*history, Message.assistant("again")], run, sample_records(1)
    )
    assert [e.seq for e in entries] == [6, 7, 8, 9, 10]
    loaded = await reopened.load_messages("t-1")
    assert loaded is not None and [m.text() for m in loaded] == ["old", "again"]
    await store.close()
    await reopened.close()


async def test_unparseable_journal_is_discarded(tmp_path: Path) -> None:
    base = tmp_path / "data"
    base.mkdir()
    (base / JOURNAL).write_text("{broken")
    FileStore(base)
    assert not (base / JOURNAL).exists()


async def test_two_stores_share_a_directory(tmp_path: Path) -> None:
    first, second = FileStore(tmp_path / "d"), FileStore(tmp_path / "d")
    await first.checkpoint("t-1", [Message.user("a")], make_run("r-1"))
    messages = await second.load_messages("t-1")
    assert messages is not None and messages[0].text() == "a"
    job = await first.mailbox.enqueue(make_job())
    claimed = await second.mailbox.claim("t-1", "w", 1_000, 2_000)
    assert [c.job_id for c in claimed] == [job.job_id]
    assert await first.mailbox.claim("t-1", "w", 1_000, 2_000) == []


async def test_closed_store_keeps_working(store: FileStore) -> None:
    await store.save_messages("t-1", [Message.user("a")])
    await store.close()
    assert await store.load_messages("t-1") is not None
    await store.close()
