"""In-memory store behaviour beyond the shared contract: isolation, wake-ups, config events."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from awaken_contract.contract.journal import JournalEntry, JournalKind, ToolStartedRecord
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.mailbox import MailboxJobStatus
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.storage import (
    ConfigChangeEvent,
    ConfigChangeKind,
    ProfileOwner,
    RunQuery,
    RunRecord,
    Thread,
)
from awaken_contract.errors import SerializationError, VersionConflict
from awaken_contract.testing import Unencodable, make_job, make_run, sample_records
from awaken_stores import InMemoryMailboxStore, InMemoryStore


async def test_returned_values_are_copies() -> None:
    store = InMemoryStore()
    messages = [Message.user("a")]
    await store.save_messages("t", messages)
    messages[0].content.clear()
    loaded = await store.load_messages("t")
    assert loaded is not None and loaded[0].text() == "a"
    loaded.append(Message.user("b"))
    again = await store.load_messages("t")
    assert again is not None and len(again) == 1


async def test_runs_are_copied_in_and_out() -> None:
    store = InMemoryStore()
    run = make_run("r-1", final_output="first", error_payload={"k": [1]})
    await store.create_run(run)
    run.error_payload["k"].append(2)
    run.final_output = "changed by the caller"
    loaded = await store.load_run("r-1")
    assert loaded is not None and loaded.final_output == "first"
    assert loaded.error_payload == {"k": [1]}
    loaded.error_payload["k"].clear()
    latest = await store.latest_run("t-1")
    assert latest is not None and latest.error_payload == {"k": [1]}
    await store.checkpoint("t-1", [], make_run("r-1", final_output="second"))
    page = await store.list_runs(RunQuery())
    page.items[0].final_output = "edited"
    again = await store.load_run("r-1")
    assert again is not None and again.final_output == "second"


async def test_journal_records_are_copied_in_and_out() -> None:
    store = InMemoryStore()
    call = ToolStartedRecord("c1", "get_weather", {"city": "Oslo"})
    entries = await store.append("r-1", [call])
    assert entries[0].record is call  # the caller's own record, handed back numbered
    call.arguments["city"] = "changed after the append"
    read = await store.read("r-1")
    assert isinstance(read[0].record, ToolStartedRecord)
    assert read[0].record.arguments == {"city": "Oslo"}
    read[0].record.arguments["city"] = "changed after the read"
    again = await store.read("r-1")
    assert isinstance(again[0].record, ToolStartedRecord)
    assert again[0].record.arguments == {"city": "Oslo"}


async def test_checkpointed_messages_are_copies() -> None:
    store = InMemoryStore()
    messages = [Message.user("a")]
    await store.checkpoint("t-1", messages, make_run("r-1"))
    messages[0].content.clear()
    loaded = await store.load_messages("t-1")
    assert loaded is not None and loaded[0].text() == "a"


async def test_reads_across_append_batches_select_like_one_list() -> None:
    store = InMemoryStore()
    records = sample_records(0) + sample_records(1)  # 10 records in batches of 3, 1, 4, 2
    for size in (3, 1, 4, 2):
        await store.append("r-1", records[:size])
        records = records[size:]
    everything = await store.read("r-1")
    assert [e.seq for e in everything] == list(range(1, 11))
    choices = (None, [JournalKind.EVENT], [JournalKind.TOOL_STARTED, JournalKind.INFERENCE])
    for after, limit, kinds in itertools.product(range(-1, 12), (None, 0, 1, 3), choices):
        expected = [e for e in everything if e.seq > after and (kinds is None or e.kind in kinds)]
        expected = expected if limit is None else expected[:limit]
        found = await store.read("r-1", after_seq=after, kinds=kinds, limit=limit)
        assert found == expected, (after, limit, kinds)
    assert await store.last_seq("r-1") == 10


async def test_unstorable_runs_records_and_messages_raise_and_change_nothing() -> None:
    store = InMemoryStore()
    with pytest.raises(SerializationError):
        await store.create_run(make_run("r-1", error_payload=Unencodable()))
    assert await store.load_run("r-1") is None
    await store.append("r-1", sample_records())
    with pytest.raises(SerializationError):
        await store.append("r-1", [ToolStartedRecord("c9", "x", Unencodable())])
    assert await store.last_seq("r-1") == 5
    bad = Message.assistant_with_tool_calls("", [ToolCall("c1", "x", Unencodable())])
    with pytest.raises(SerializationError):
        await store.save_messages("t-1", [bad])
    assert await store.load_messages("t-1") is None
    with pytest.raises(SerializationError):
        await store.checkpoint("t-1", [bad], make_run("r-2"))
    assert await store.load_messages("t-1") is None
    assert await store.load_thread("t-1") is None and await store.load_run("r-2") is None


async def test_unstorable_values_are_rejected_like_durable_stores() -> None:
    store = InMemoryStore()
    with pytest.raises(SerializationError):
        await store.profiles.set(ProfileOwner.system(), "k", Unencodable())
    with pytest.raises(SerializationError):
        await store.config.put("ns", "id", {"x": Unencodable()})
    assert await store.profiles.get(ProfileOwner.system(), "k") is None


async def test_wait_for_work_wakes_on_enqueue() -> None:
    mailbox = InMemoryMailboxStore()
    waiter = asyncio.create_task(mailbox.wait_for_work(30))
    await asyncio.sleep(0)
    await mailbox.enqueue(make_job())
    await asyncio.wait_for(waiter, 5)
    await mailbox.wait_for_work(0)  # returns at once when nothing happens


async def test_config_subscribers_see_changes() -> None:
    store = InMemoryStore()
    events = store.config.subscribe()
    await store.config.put("agents", "a", {"v": 1})
    assert await asyncio.wait_for(anext(events), 5) == ConfigChangeEvent(
        "agents", "a", ConfigChangeKind.PUT
    )
    await store.config.delete("agents", "missing")
    await store.config.delete("agents", "a")
    deleted = await asyncio.wait_for(anext(events), 5)
    assert deleted.kind is ConfigChangeKind.DELETE
    await events.aclose()  # type: ignore[attr-defined]


def _run(run_id: str, thread_id: str, updated_at: int) -> RunRecord:
    return RunRecord(
        run_id=run_id,
        thread_id=thread_id,
        agent_id="a",
        status=RunStatus.DONE,
        created_at=updated_at,
        updated_at=updated_at,
    )


async def test_latest_run_follows_the_per_thread_index() -> None:
    store = InMemoryStore()
    for i in range(50):
        await store.create_run(_run(f"r{i}", f"t{i % 5}", i))
    assert (await store.latest_run("t3")) == _run("r48", "t3", 48)
    assert await store.latest_run("nobody") is None
    # A re-saved run moves to the thread it now names; checkpoints update the index too.
    await store.checkpoint("t4", [], _run("r48", "t4", 100))
    latest_t3 = await store.latest_run("t3")
    assert latest_t3 is not None and latest_t3.run_id == "r43"
    latest_t4 = await store.latest_run("t4")
    assert latest_t4 is not None and latest_t4.run_id == "r48"
    page = await store.list_runs(RunQuery(thread_id="t4", limit=100))
    assert page.total == 11


async def test_mailbox_transactions_load_only_live_jobs() -> None:
    """A thread's finished jobs stay listed but transactions no longer load them, and a claim
    of a mailbox with nothing queued answers without one (it changes nothing)."""
    mailbox = InMemoryMailboxStore()
    for _ in range(30):
        await mailbox.enqueue(make_job("t"))
        (claimed,) = await mailbox.claim("t", "c", 60_000, 2_001)
        assert claimed.claim_token is not None
        await mailbox.ack(claimed.job_id, claimed.claim_token, 2_002)
    assert len(await mailbox.list("t", limit=100)) == 30
    assert mailbox._load("t", None).jobs == {}
    assert await mailbox.claim("t", "c", 60_000, 2_003) == []
    queued = await mailbox.enqueue(make_job("t"))
    finished = (await mailbox.list("t", [MailboxJobStatus.ACCEPTED], limit=1))[0]
    # A finished job asked for by id is loaded with the live ones (acks of stale claims).
    assert set(mailbox._load("t", finished.job_id).jobs) == {queued.job_id, finished.job_id}
    assert set(mailbox._load("other", finished.job_id).jobs) == set()
    generation = await mailbox.current_generation("t")
    (claimed,) = await mailbox.claim("t", "c", 60_000, 2_004)
    assert claimed.job_id == queued.job_id
    assert await mailbox.claim("t", "c", 60_000, 2_005) == []  # one claimed: nothing to claim
    assert await mailbox.current_generation("t") == generation
    assert set(mailbox._load("t", None).jobs) == {queued.job_id}


async def test_a_raising_mailbox_transaction_saves_nothing() -> None:
    mailbox = InMemoryMailboxStore()
    job = make_job("t")
    with pytest.raises(RuntimeError):
        async with mailbox._transaction("t") as txn:
            txn.put(job)
            txn.generation += 1
            raise RuntimeError("boom")
    assert await mailbox.load(job.job_id) is None
    assert await mailbox.current_generation("t") == 0
    async with mailbox._transaction("t") as txn:  # the lock was released
        assert txn.jobs == {}


async def test_checkpointed_records_runs_and_threads_are_copies() -> None:
    """Stored structs are mutable: what a checkpoint was given, and what a read returned,
    can be changed by its holder without changing the store."""
    store = InMemoryStore()
    call = ToolStartedRecord("c1", "get_weather", {"city": "Oslo"})
    run = make_run("r-1", error_payload={"k": [1]})
    entries = await store.checkpoint_step("t-1", [Message.user("a")], run, [call])
    assert [(e.run_id, e.seq, e.record) for e in entries] == [("r-1", 1, call)]
    assert entries[0].record is call  # the caller's own record, handed back numbered
    call.arguments["city"] = "changed after the checkpoint"
    run.error_payload["k"].append(2)
    run.status = RunStatus.DONE
    read = await store.read("r-1")
    assert read == [
        JournalEntry(
            "r-1",
            1,
            entries[0].created_at,
            ToolStartedRecord("c1", "get_weather", {"city": "Oslo"}),
        )
    ]
    loaded = await store.load_run("r-1")
    assert loaded is not None and loaded.error_payload == {"k": [1]}
    assert loaded.status is RunStatus.RUNNING
    thread = await store.load_thread("t-1")
    assert thread is not None and thread.active_run_id == "r-1"
    thread.active_run_id = "edited"
    thread.metadata.custom["k"] = "edited"
    await store.checkpoint_step("t-1", [Message.user("a")], make_run("r-1", updated_at=200))
    again = await store.load_thread("t-1")
    assert again is not None and again.active_run_id == "r-1" and again.metadata.custom == {}
    saved = Thread.with_id("t-2")
    await store.save_thread(saved)
    await store.checkpoint_step("t-2", [], make_run("r-2", "t-2"))
    saved.metadata.title = "changed after the save"
    stored = await store.load_thread("t-2")
    assert stored is not None and stored.metadata.title is None
    assert stored.latest_run_id == "r-2" and stored.metadata.created_at is not None


async def test_concurrent_fenced_checkpoints_are_atomic_without_a_lock() -> None:
    """Writes never await, so concurrent checkpoints fenced at the same seq: one commits,
    every other fails whole (no messages, no run update, no entries)."""
    store = InMemoryStore()
    await store.checkpoint_step("t-1", [Message.user("a")], make_run("r-1"), sample_records())

    async def step(i: int) -> int | None:
        messages = [Message.user("a"), Message.user(f"m{i}")]
        run = make_run("r-1", updated_at=200 + i, final_output=f"w{i}")
        try:
            await store.checkpoint_step(
                "t-1", messages, run, sample_records(i), expected_last_seq=5
            )
        except VersionConflict:
            return None
        return i

    won = [i for i in await asyncio.gather(*(step(i) for i in range(20))) if i is not None]
    assert len(won) == 1
    (winner,) = won
    assert await store.last_seq("r-1") == 10
    history = await store.load_messages("t-1")
    assert history is not None and [m.text() for m in history] == ["a", f"m{winner}"]
    latest = await store.load_run("r-1")
    assert latest is not None and latest.final_output == f"w{winner}"
    assert [e.record for e in await store.read("r-1", after_seq=5)] == sample_records(winner)
