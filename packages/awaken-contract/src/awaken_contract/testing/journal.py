"""Conformance tests for run journals, append-only message checkpoints and retention.

Subclass ``JournaledStoreContract`` and provide two fixtures: ``store`` (a
``JournaledThreadRunStore``) and ``other_instance`` (a second store object on the same data — a
second connection pool, a second SQLite connection, … — or ``store`` itself for purely
in-process stores). The suite checks that seqs stay gap-free across both.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from awaken_contract.contract.content import ContentBlock
from awaken_contract.contract.event import RunFinish, StepStart, TextDelta
from awaken_contract.contract.inference import StopReason, StreamResult
from awaken_contract.contract.journal import (
    EventRecord,
    InferenceRecord,
    JournaledThreadRunStore,
    JournalEntry,
    JournalKind,
    JournalRecord,
    ToolFinishedRecord,
    ToolStartedRecord,
    request_digest,
)
from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.retention import RetentionPolicy
from awaken_contract.contract.tool import ToolResult
from awaken_contract.errors import VersionConflict
from awaken_contract.testing.builders import Unencodable, make_run, poisoned_run

__all__ = ["JournaledStoreContract", "sample_records"]

# How long a subscriber may wait for a notification that must come (generous: loaded CI).
_NOTIFY_TIMEOUT = 30.0


def sample_records(step: int = 0) -> list[JournalRecord]:
    """One of each record kind, as a runtime step would journal them."""
    call = ToolCall(f"c{step}", "get_weather", {"city": "Tokyo"})
    result = StreamResult(
        content=[ContentBlock.text("checking")],
        tool_calls=[call],
        stop_reason=StopReason.TOOL_USE,
    )
    return [
        EventRecord(StepStart(message_id=f"m{step}")),
        InferenceRecord(step, request_digest([Message.user("weather?")]), result),
        ToolStartedRecord(call.id, call.name, call.arguments, step, idempotent=True),
        ToolFinishedRecord(call.id, call.name, ToolResult.success(call.name, {"t": 21})),
        EventRecord(TextDelta(delta=f"step {step}")),
    ]


def _seqs(entries: list[JournalEntry]) -> list[int]:
    return [e.seq for e in entries]


class JournaledStoreContract:
    """Journal, append-only messages and retention. Define ``store`` and ``other_instance``."""

    pytestmark = pytest.mark.asyncio

    # ------------------------------------------------------------------ journal basics
    async def test_empty_journal(self, store: JournaledThreadRunStore) -> None:
        assert await store.last_seq("r-none") == 0
        assert await store.read("r-none") == []

    async def test_append_assigns_consecutive_seqs(self, store: JournaledThreadRunStore) -> None:
        first = await store.append("r-1", sample_records(0))
        second = await store.append("r-1", sample_records(1))
        assert _seqs(first) == [1, 2, 3, 4, 5]
        assert _seqs(second) == [6, 7, 8, 9, 10]
        assert all(e.run_id == "r-1" and e.created_at > 1_000_000_000_000 for e in first)
        assert await store.last_seq("r-1") == 10
        assert await store.read("r-1") == first + second
        assert await store.append("r-1", []) == []
        assert await store.last_seq("r-1") == 10

    async def test_runs_have_independent_sequences(self, store: JournaledThreadRunStore) -> None:
        await store.append("r-a", sample_records(0))
        entries = await store.append("r-b", sample_records(0)[:2])
        assert _seqs(entries) == [1, 2]
        assert await store.last_seq("r-a") == 5

    async def test_records_round_trip(self, store: JournaledThreadRunStore) -> None:
        records = sample_records(3)
        finish = RunFinish(
            thread_id="t-1",
            run_id="r-1",
            termination=TerminationReason.natural_end(),
            result={"response": "sunny"},
        )
        records.append(EventRecord(finish))
        await store.append("r-1", records)
        read = await store.read("r-1")
        assert [e.record for e in read] == records
        assert [e.kind for e in read] == [
            JournalKind.EVENT,
            JournalKind.INFERENCE,
            JournalKind.TOOL_STARTED,
            JournalKind.TOOL_FINISHED,
            JournalKind.EVENT,
            JournalKind.EVENT,
        ]

    async def test_read_after_seq_by_kind_and_limit(self, store: JournaledThreadRunStore) -> None:
        await store.append("r-1", sample_records(0) + sample_records(1))
        assert _seqs(await store.read("r-1", after_seq=7)) == [8, 9, 10]
        assert _seqs(await store.read("r-1", after_seq=10)) == []
        assert _seqs(await store.read("r-1", after_seq=2, limit=3)) == [3, 4, 5]
        events = await store.read("r-1", kinds=[JournalKind.EVENT])
        assert _seqs(events) == [1, 5, 6, 10]
        tools = await store.read(
            "r-1", after_seq=4, kinds={JournalKind.TOOL_STARTED, JournalKind.TOOL_FINISHED}
        )
        assert _seqs(tools) == [8, 9]
        assert _seqs(await store.read("r-1", kinds=[JournalKind.INFERENCE], limit=1)) == [2]

    async def test_expected_last_seq_fences_stale_writers(
        self, store: JournaledThreadRunStore
    ) -> None:
        await store.append("r-1", sample_records(0), expected_last_seq=0)
        with pytest.raises(VersionConflict):
            await store.append("r-1", sample_records(1), expected_last_seq=4)
        assert await store.last_seq("r-1") == 5
        entries = await store.append("r-1", sample_records(1)[:1], expected_last_seq=5)
        assert _seqs(entries) == [6]

    async def test_unencodable_record_appends_nothing(self, store: JournaledThreadRunStore) -> None:
        await store.append("r-1", sample_records(0)[:1])
        bad = ToolStartedRecord("c9", "t", {"x": Unencodable()})
        with pytest.raises(Exception):  # noqa: B017 - any error, as long as nothing changed
            await store.append("r-1", [EventRecord(TextDelta(delta="ok")), bad])
        assert await store.last_seq("r-1") == 1
        assert _seqs(await store.append("r-1", sample_records(0)[:1])) == [2]

    async def test_concurrent_appends_have_no_gaps_or_duplicates(
        self, store: JournaledThreadRunStore, other_instance: JournaledThreadRunStore
    ) -> None:
        async def writer(target: JournaledThreadRunStore, w: int) -> list[int]:
            seqs: list[int] = []
            for i in range(6):
                records = [EventRecord(TextDelta(delta=f"{w}-{i}-{k}")) for k in range(1 + i % 3)]
                seqs += _seqs(await target.append("r-c", records))
            return seqs

        results = await asyncio.gather(
            *(writer(store if w % 2 else other_instance, w) for w in range(8))
        )
        every = sorted(s for seqs in results for s in seqs)
        assert every == list(range(1, len(every) + 1))
        for seqs in results:  # each append's seqs are consecutive and increase per writer
            assert seqs == sorted(seqs)
        read = await other_instance.read("r-c")
        assert _seqs(read) == every
        deltas = [
            e.record.event.delta
            for e in read
            if isinstance(e.record, EventRecord) and isinstance(e.record.event, TextDelta)
        ]
        assert len(set(deltas)) == len(deltas) == len(every)

    async def test_concurrent_step_checkpoints_keep_the_journal_gap_free(
        self, store: JournaledThreadRunStore, other_instance: JournaledThreadRunStore
    ) -> None:
        """Step checkpoints racing on one thread from two store objects (retrying on conflicts)
        and plain appends: every write's entries are consecutive, the whole journal has no gap."""
        run = make_run("r-s", status=RunStatus.RUNNING)

        async def stepper(target: JournaledThreadRunStore, w: int) -> list[list[int]]:
            batches = []
            for i in range(4):
                records = [EventRecord(TextDelta(delta=f"{w}-{i}-{k}")) for k in range(3)]
                messages = [Message.user(f"{w}-{i}")]
                if i % 2:
                    entries = await target.append("r-s", records)
                else:
                    entries = await target.checkpoint_step("t-1", messages, run, records)
                batches.append(_seqs(entries))
            return batches

        results = await asyncio.gather(
            *(stepper(store if w % 2 else other_instance, w) for w in range(6))
        )
        batches = [batch for writer in results for batch in writer]
        for batch in batches:
            assert batch == list(range(batch[0], batch[0] + 3)), batch
        every = sorted(seq for batch in batches for seq in batch)
        assert every == list(range(1, 6 * 4 * 3 + 1))
        assert await store.last_seq("r-s") == len(every)

    # ------------------------------------------------------------------ subscriptions
    async def test_subscription_wakes_on_append_from_other_instance(
        self, store: JournaledThreadRunStore, other_instance: JournaledThreadRunStore
    ) -> None:
        async with store.subscribe("r-1") as subscription:
            await other_instance.append("r-1", sample_records(0))
            assert await subscription.wait(_NOTIFY_TIMEOUT), "no notification for the append"
            assert _seqs(await store.read("r-1")) == [1, 2, 3, 4, 5]

    async def test_subscription_is_per_run(self, store: JournaledThreadRunStore) -> None:
        async with store.subscribe("r-1") as subscription:
            await store.append("r-2", sample_records(0))
            # Wake-ups may repeat (at least once), but never for another run.
            assert not await subscription.wait(0.2)
            await store.append("r-1", sample_records(0)[:1])
            assert await subscription.wait(_NOTIFY_TIMEOUT)

    async def test_follow_replays_then_tails(
        self, store: JournaledThreadRunStore, other_instance: JournaledThreadRunStore
    ) -> None:
        await store.append("r-1", sample_records(0))
        seen: list[int] = []
        caught_up = asyncio.Event()

        async def consume() -> None:
            async with contextlib.aclosing(other_instance.follow("r-1", after_seq=2)) as entries:
                async for entry in entries:
                    seen.append(entry.seq)
                    if entry.seq == 5:
                        caught_up.set()
                    if isinstance(entry.record, EventRecord) and isinstance(
                        entry.record.event, RunFinish
                    ):
                        return

        task = asyncio.create_task(consume())
        await asyncio.wait_for(caught_up.wait(), _NOTIFY_TIMEOUT)
        await store.append("r-1", sample_records(1))
        finish = RunFinish(thread_id="t", run_id="r-1", termination=TerminationReason.natural_end())
        await store.append("r-1", [EventRecord(finish)])
        await asyncio.wait_for(task, _NOTIFY_TIMEOUT)
        assert seen == list(range(3, 12))

    # ------------------------------------------------------------------ checkpoint_step
    async def test_checkpoint_step_writes_entries_with_checkpoint(
        self, store: JournaledThreadRunStore
    ) -> None:
        run = make_run("r-1", status=RunStatus.RUNNING)
        entries = await store.checkpoint_step("t-1", [Message.user("hi")], run, sample_records())
        assert _seqs(entries) == [1, 2, 3, 4, 5]
        assert await store.load_run("r-1") == run
        assert await store.read("r-1") == entries
        more = await store.checkpoint_step(
            "t-1", [Message.user("hi")], run, sample_records(1)[:2], expected_last_seq=5
        )
        assert _seqs(more) == [6, 7]

    async def test_failed_checkpoint_step_appends_nothing(
        self, store: JournaledThreadRunStore
    ) -> None:
        good = make_run("r-1", status=RunStatus.RUNNING)
        await store.checkpoint_step("t-1", [Message.user("a")], good, sample_records()[:1])
        with pytest.raises(Exception):  # noqa: B017
            await store.checkpoint_step(
                "t-1", [Message.user("a"), Message.user("b")], poisoned_run("r-1"), sample_records()
            )
        with pytest.raises(VersionConflict):
            await store.checkpoint_step(
                "t-1",
                [Message.user("a"), Message.user("b")],
                make_run("r-1", status=RunStatus.DONE),
                sample_records(),
                expected_last_seq=0,
            )
        assert await store.last_seq("r-1") == 1
        assert await store.load_run("r-1") == good
        messages = await store.load_messages("t-1")
        assert messages is not None and [m.text() for m in messages] == ["a"]

    # ------------------------------------------------------------------ append-only messages
    async def test_checkpoints_append_to_the_message_log(
        self, store: JournaledThreadRunStore, other_instance: JournaledThreadRunStore
    ) -> None:
        run = make_run("r-1")
        history = [Message.user("q")]
        await store.checkpoint("t-1", history, run)
        for i in range(5):
            history = [*history, Message.assistant(f"a{i}")]
            await store.checkpoint("t-1", history, run)
        history = [*history, Message.user("from B")]
        await other_instance.checkpoint("t-1", history, run)
        history = [*history, Message.assistant("after B")]
        await store.checkpoint("t-1", history, run)
        loaded = await store.load_messages("t-1")
        assert loaded == history
        records = await store.load_message_records("t-1")
        assert records is not None and [r.seq for r in records] == list(range(1, 9))

    async def test_checkpoint_with_a_rewritten_history_replaces_it(
        self, store: JournaledThreadRunStore
    ) -> None:
        run = make_run("r-1")
        first, second, third = Message.user("1"), Message.assistant("2"), Message.user("3")
        await store.checkpoint("t-1", [first, second, third], run)
        summary = Message.internal_system("summary of 1-2")
        await store.checkpoint("t-1", [summary, third, Message.assistant("4")], run)
        loaded = await store.load_messages("t-1")
        assert loaded is not None and [m.text() for m in loaded] == ["summary of 1-2", "3", "4"]
        edited = Message.assistant("4 (edited)")
        assert loaded[2].id is not None
        edited.id = loaded[2].id
        await store.checkpoint("t-1", [summary, third, edited, Message.user("5")], run)
        loaded = await store.load_messages("t-1")
        assert loaded is not None
        assert [m.text() for m in loaded] == ["summary of 1-2", "3", "4 (edited)", "5"]

    async def test_a_message_replaced_in_the_middle_is_stored(
        self, store: JournaledThreadRunStore
    ) -> None:
        """A resumed tool call replaces its placeholder result in place (a new object at the
        same index, neither first nor last): the checkpoint must store it."""
        run = make_run("r-1")
        call = Message.assistant_with_tool_calls(
            "", [ToolCall("c1", "a", {}), ToolCall("c2", "b", {})]
        )
        history = [Message.user("go"), call, Message.tool("c1", "pending"), Message.tool("c2", "?")]
        await store.checkpoint("t-1", history, run)
        history[2] = Message.tool("c1", "approved and done")
        history.append(Message.assistant("both done"))
        await store.checkpoint("t-1", history, run)
        loaded = await store.load_messages("t-1")
        assert loaded == history

    async def test_loaded_history_edited_then_checkpointed(
        self, store: JournaledThreadRunStore, other_instance: JournaledThreadRunStore
    ) -> None:
        history = [Message.user("a"), Message.assistant("b"), Message.user("c")]
        await other_instance.checkpoint("t-1", history, make_run("r-0"))
        loaded = await store.load_messages("t-1")
        assert loaded == history
        loaded[1] = Message.assistant("b (cleaned)")
        loaded.append(Message.assistant("d"))
        await store.checkpoint("t-1", loaded, make_run("r-1"))
        assert await other_instance.load_messages("t-1") == loaded
        shorter = loaded[:2]
        await store.checkpoint("t-1", shorter, make_run("r-1"))
        assert await other_instance.load_messages("t-1") == shorter

    async def test_save_messages_then_checkpoint_appends(
        self, store: JournaledThreadRunStore
    ) -> None:
        saved = [Message.user("a"), Message.assistant("b")]
        await store.save_messages("t-1", saved)
        await store.checkpoint("t-1", [*saved, Message.user("c")], make_run("r-1"))
        loaded = await store.load_messages("t-1")
        assert loaded is not None and [m.text() for m in loaded] == ["a", "b", "c"]
        await store.save_messages("t-1", [])
        await store.checkpoint("t-1", [Message.user("d")], make_run("r-1"))
        loaded = await store.load_messages("t-1")
        assert loaded is not None and [m.text() for m in loaded] == ["d"]

    # ------------------------------------------------------------------ retention
    async def _runs_for_retention(self, store: JournaledThreadRunStore) -> None:
        specs: list[tuple[str, str, RunStatus, int]] = [
            ("old-done", "t-1", RunStatus.DONE, 1_000),
            ("mid-done", "t-1", RunStatus.DONE, 5_000),
            ("new-done", "t-1", RunStatus.DONE, 9_000),
            ("old-waiting", "t-1", RunStatus.WAITING, 1_000),
            ("old-running", "t-1", RunStatus.RUNNING, 1_000),
            ("old-created", "t-1", RunStatus.CREATED, 1_000),
            ("other-done", "t-2", RunStatus.DONE, 2_000),
        ]
        for run_id, thread_id, status, at in specs:
            extra: dict[str, Any] = {}
            if status is RunStatus.DONE:
                extra["termination_reason"] = TerminationReason.natural_end()
            run = make_run(run_id, thread_id, status=status, updated_at=at, **extra)
            await store.checkpoint_step(thread_id, [Message.user(run_id)], run, sample_records())

    async def test_prune_by_age_keeps_unfinished_runs(self, store: JournaledThreadRunStore) -> None:
        await self._runs_for_retention(store)
        report = await store.prune(RetentionPolicy(max_age_seconds=3_000), now_secs=6_000)
        assert (report.runs_deleted, report.journal_entries_deleted) == (2, 10)
        for gone in ("old-done", "other-done"):
            assert await store.load_run(gone) is None
            assert await store.read(gone) == []
            assert await store.last_seq(gone) == 0
        for kept in ("mid-done", "new-done", "old-waiting", "old-running", "old-created"):
            assert await store.load_run(kept) is not None, kept
            assert await store.last_seq(kept) == 5, kept
        assert await store.load_messages("t-1") is not None
        again = await store.prune(RetentionPolicy(max_age_seconds=3_000), now_secs=6_000)
        assert again.runs_deleted == 0

    async def test_prune_by_count_per_thread(self, store: JournaledThreadRunStore) -> None:
        await self._runs_for_retention(store)
        report = await store.prune(RetentionPolicy(max_finished_runs_per_thread=1))
        assert report.runs_deleted == 2
        assert await store.load_run("old-done") is None
        assert await store.load_run("mid-done") is None
        for kept in ("new-done", "other-done", "old-waiting", "old-running", "old-created"):
            assert await store.load_run(kept) is not None, kept
        latest = await store.latest_run("t-1")
        assert latest is not None and latest.run_id == "new-done"

    async def test_pruned_run_can_journal_again(self, store: JournaledThreadRunStore) -> None:
        await self._runs_for_retention(store)
        await store.prune(RetentionPolicy(max_age_seconds=1), now_secs=1_000_000)
        assert _seqs(await store.append("old-done", sample_records()[:2])) == [1, 2]

    async def test_disabled_policy_prunes_nothing(self, store: JournaledThreadRunStore) -> None:
        await self._runs_for_retention(store)
        report = await store.prune(RetentionPolicy(), now_secs=1_000_000)
        assert report.runs_deleted == report.journal_entries_deleted == 0
