"""Conformance tests every ``RunStore`` and ``ThreadRunStore.checkpoint`` must pass."""

from __future__ import annotations

import asyncio

import pytest

from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import (
    MessageSeqRange,
    RunDecision,
    RunMessageInput,
    RunMessageOutput,
    RunOutcome,
    RunQuery,
    RunRecord,
    RunRequestOrigin,
    RunRequestSnapshot,
    RunStore,
    RunWaitingState,
    RunWaitingTicket,
    ThreadRunStore,
)
from awaken_contract.contract.suspension import ToolCallResume, WaitingReason
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.errors import AlreadyExists
from awaken_contract.state import PersistedState
from awaken_contract.testing.builders import make_run, make_thread, poisoned_run
from awaken_contract.testing.thread_store import ThreadStoreContract

__all__ = ["CheckpointContract", "RunStoreContract", "ThreadRunStoreContract"]


def _full_run() -> RunRecord:
    return make_run(
        "r-full",
        "t-1",
        status=RunStatus.WAITING,
        created_at=1_700_000_000,
        updated_at=1_700_000_050,
        parent_run_id="r-parent",
        request=RunRequestSnapshot(
            origin=RunRequestOrigin.A2A,
            sender_id="peer",
            input_message_ids=["m1", "m2"],
            input_message_count=2,
            request_extras={"adapter": "ai_sdk"},
            decisions=[RunDecision("c1", ToolCallResume.resume({"ok": True}, decision_id="d1"))],
            frontend_tools=[ToolDescriptor("pick", "Pick", "pick a color")],
            parent_thread_id="t-0",
            transport_request_id="req-1",
        ),
        input=RunMessageInput(
            thread_id="t-1", range=MessageSeqRange(1, 2), trigger_message_ids=["m2"]
        ),
        output=RunMessageOutput(thread_id="t-1", range=MessageSeqRange(3, 4), message_ids=["m3"]),
        termination_reason=TerminationReason.stopped("max_rounds", "hit 5"),
        final_output="partial",
        error_payload={"message": "boom", "code": 7},
        dispatch_id="d-1",
        session_id="s-1",
        transport_request_id="req-1",
        waiting=RunWaitingState(
            reason=WaitingReason.TOOL_PERMISSION,
            ticket_ids=["tk-1"],
            tickets=[
                RunWaitingTicket(
                    ticket_id="tk-1",
                    tool_call_id="c1",
                    tool_name="delete_file",
                    arguments={"path": "/tmp/x"},
                    reason="needs approval",
                    updated_at=1_700_000_000_123,
                )
            ],
            message="approve?",
        ),
        outcome=RunOutcome(termination_reason=TerminationReason.suspended(), final_output="?"),
        started_at=1_700_000_001,
        finished_at=1_700_000_049,
        steps=3,
        input_tokens=1234,
        output_tokens=5678,
        cost=0.0125,
        state=PersistedState(revision=7, extensions={"counter": 3, "memo": {"a": [1, "b"]}}),
    )


class RunStoreContract:
    """Run records. Subclass as ``TestX(RunStoreContract)`` and define ``store``."""

    pytestmark = pytest.mark.asyncio

    async def test_create_then_load_round_trips_every_field(self, store: RunStore) -> None:
        run = _full_run()
        await store.create_run(run)
        assert await store.load_run("r-full") == run
        minimal = make_run("r-min", status=RunStatus.CREATED)
        await store.create_run(minimal)
        loaded = await store.load_run("r-min")
        assert loaded == minimal
        assert loaded is not None and loaded.parent_run_id is None and loaded.state is None

    async def test_duplicate_create_fails(self, store: RunStore) -> None:
        await store.create_run(make_run("r-1"))
        with pytest.raises(AlreadyExists):
            await store.create_run(make_run("r-1"))

    async def test_missing_runs(self, store: RunStore) -> None:
        assert await store.load_run("nope") is None
        assert await store.latest_run("nope") is None

    async def test_latest_run_by_updated_at(self, store: RunStore) -> None:
        await store.create_run(make_run("r2", "t-1", created_at=50, updated_at=200))
        await store.create_run(make_run("r1", "t-1", created_at=60, updated_at=100))
        await store.create_run(make_run("r3", "t-2", created_at=70, updated_at=300))
        latest = await store.latest_run("t-1")
        assert latest is not None and latest.run_id == "r2"

    async def test_list_runs_filters_and_pages(self, store: RunStore) -> None:
        empty = await store.list_runs(RunQuery())
        assert (empty.items, empty.total, empty.has_more) == ([], 0, False)
        specs = [
            ("r5", "t-1", RunStatus.DONE, 500),
            ("r1", "t-1", RunStatus.RUNNING, 100),
            ("r3", "t-2", RunStatus.DONE, 300),
            ("r2", "t-1", RunStatus.DONE, 200),
            ("r4", "t-3", RunStatus.WAITING, 400),
        ]
        for run_id, thread_id, status, created in specs:
            await store.create_run(make_run(run_id, thread_id, status=status, created_at=created))
        page = await store.list_runs(RunQuery())
        assert [r.run_id for r in page.items] == ["r1", "r2", "r3", "r4", "r5"]
        assert (page.total, page.has_more) == (5, False)
        by_thread = await store.list_runs(RunQuery(thread_id="t-1"))
        assert [r.run_id for r in by_thread.items] == ["r1", "r2", "r5"]
        done = await store.list_runs(RunQuery(status=RunStatus.DONE))
        assert [r.run_id for r in done.items] == ["r2", "r3", "r5"]
        both = await store.list_runs(RunQuery(thread_id="t-1", status=RunStatus.DONE))
        assert [r.run_id for r in both.items] == ["r2", "r5"] and both.total == 2
        middle = await store.list_runs(RunQuery(offset=2, limit=2))
        assert [r.run_id for r in middle.items] == ["r3", "r4"]
        assert (middle.total, middle.has_more) == (5, True)
        clamped = await store.list_runs(RunQuery(offset=99, limit=0))
        assert (clamped.items, clamped.total, clamped.has_more) == ([], 5, False)
        one = await store.list_runs(RunQuery(limit=0))
        assert len(one.items) == 1 and one.has_more

    async def test_list_runs_limit_clamped_to_200(self, store: RunStore) -> None:
        await asyncio.gather(
            *(store.create_run(make_run(f"r{i:03}", created_at=i)) for i in range(205))
        )
        page = await store.list_runs(RunQuery(limit=1000))
        assert len(page.items) == 200 and page.total == 205 and page.has_more


class CheckpointContract:
    """The atomic step checkpoint. Subclass and define ``store`` (a ``ThreadRunStore``)."""

    pytestmark = pytest.mark.asyncio

    async def test_checkpoint_persists_messages_and_run(self, store: ThreadRunStore) -> None:
        run = make_run("r-1", status=RunStatus.RUNNING)
        await store.checkpoint("t-1", [Message.user("hi"), Message.assistant("yo")], run)
        messages = await store.load_messages("t-1")
        assert messages is not None and [m.text() for m in messages] == ["hi", "yo"]
        assert await store.load_run("r-1") == run
        thread = await store.load_thread("t-1")
        assert thread is not None
        assert thread.metadata.created_at is not None
        assert thread.metadata.updated_at is not None
        assert thread.metadata.created_at > 1_000_000_000_000  # milliseconds
        assert "t-1" in await store.list_threads(0, 10)

    async def test_checkpoint_replaces_messages(self, store: ThreadRunStore) -> None:
        run = make_run("r-1")
        await store.checkpoint("t-1", [Message.user("a"), Message.user("b")], run)
        await store.checkpoint("t-1", [Message.user("c")], run)
        messages = await store.load_messages("t-1")
        assert messages is not None and [m.text() for m in messages] == ["c"]

    async def test_checkpoint_keeps_thread_metadata(self, store: ThreadRunStore) -> None:
        thread = make_thread("t-1", title="kept")
        thread.metadata.created_at = 1_600_000_000_000
        thread.metadata.custom = {"tag": "x"}
        await store.save_thread(thread)
        await store.checkpoint("t-1", [], make_run("r-1"))
        loaded = await store.load_thread("t-1")
        assert loaded is not None
        assert loaded.metadata.title == "kept" and loaded.metadata.custom == {"tag": "x"}
        assert loaded.metadata.created_at == 1_600_000_000_000
        assert loaded.metadata.updated_at is not None
        assert loaded.metadata.updated_at > 1_600_000_000_000

    async def test_run_projection(self, store: ThreadRunStore) -> None:
        async def pointers(status: RunStatus) -> tuple[str | None, str | None, str | None]:
            await store.checkpoint("t-1", [], make_run("r-1", status=status))
            thread = await store.load_thread("t-1")
            assert thread is not None
            return thread.latest_run_id, thread.active_run_id, thread.open_run_id

        assert await pointers(RunStatus.CREATED) == ("r-1", None, "r-1")
        assert await pointers(RunStatus.RUNNING) == ("r-1", "r-1", "r-1")
        assert await pointers(RunStatus.WAITING) == ("r-1", None, "r-1")
        assert await pointers(RunStatus.RUNNING) == ("r-1", "r-1", "r-1")
        assert await pointers(RunStatus.DONE) == ("r-1", None, None)

    async def test_done_run_keeps_other_runs_pointers(self, store: ThreadRunStore) -> None:
        await store.checkpoint("t-1", [], make_run("r-1", status=RunStatus.WAITING))
        await store.checkpoint("t-1", [], make_run("r-2", status=RunStatus.DONE))
        thread = await store.load_thread("t-1")
        assert thread is not None
        assert (thread.latest_run_id, thread.open_run_id) == ("r-2", "r-1")

    async def test_delete_thread_keeps_runs(self, store: ThreadRunStore) -> None:
        await store.checkpoint("t-1", [Message.user("x")], make_run("r-1"))
        await store.delete_thread("t-1")
        assert await store.load_thread("t-1") is None
        assert await store.load_messages("t-1") is None
        assert await store.load_run("r-1") is not None

    async def test_latest_run_after_checkpoints(self, store: ThreadRunStore) -> None:
        await store.checkpoint("t-1", [], make_run("r1", updated_at=100))
        await store.checkpoint("t-1", [], make_run("r2", updated_at=200))
        latest = await store.latest_run("t-1")
        assert latest is not None and latest.run_id == "r2"

    async def test_checkpoint_upserts_created_run(self, store: ThreadRunStore) -> None:
        await store.create_run(make_run("r-1", status=RunStatus.CREATED))
        done = make_run(
            "r-1",
            status=RunStatus.DONE,
            termination_reason=TerminationReason.natural_end(),
            steps=2,
            updated_at=150,
        )
        await store.checkpoint("t-1", [Message.user("x")], done)
        assert await store.load_run("r-1") == done

    async def test_failed_checkpoint_changes_nothing(self, store: ThreadRunStore) -> None:
        good = make_run("r-1", status=RunStatus.RUNNING)
        await store.checkpoint("t-1", [Message.user("before")], good)
        before_thread = await store.load_thread("t-1")
        with pytest.raises(Exception):  # noqa: B017 - any error, as long as nothing changed
            await store.checkpoint(
                "t-1", [Message.user("after"), Message.user("more")], poisoned_run("r-1")
            )
        with pytest.raises(Exception):  # noqa: B017
            await store.checkpoint("t-1", [Message.user("after")], poisoned_run("r-bad"))
        messages = await store.load_messages("t-1")
        assert messages is not None and [m.text() for m in messages] == ["before"]
        assert await store.load_run("r-1") == good
        assert await store.load_run("r-bad") is None
        assert await store.load_thread("t-1") == before_thread
        later = make_run("r-2", status=RunStatus.DONE, updated_at=300)
        await store.checkpoint("t-1", [Message.user("later")], later)
        assert await store.load_run("r-2") == later

    async def test_failed_first_checkpoint_creates_nothing(self, store: ThreadRunStore) -> None:
        with pytest.raises(Exception):  # noqa: B017
            await store.checkpoint("t-new", [Message.user("x")], poisoned_run("r-x", "t-new"))
        assert await store.load_thread("t-new") is None
        assert await store.load_messages("t-new") is None
        assert await store.load_run("r-x") is None

    async def test_concurrent_mixed_checkpoints(self, store: ThreadRunStore) -> None:
        async def one(i: int) -> bool:
            run = poisoned_run(f"r-{i}") if i % 3 == 0 else make_run(f"r-{i}", updated_at=i)
            try:
                await store.checkpoint("t-1", [Message.user(f"m{i}")], run)
            except Exception:
                return False
            return True

        results = await asyncio.gather(*(one(i) for i in range(12)))
        assert await store.load_thread("t-1") is not None
        messages = await store.load_messages("t-1")
        assert messages is not None and len(messages) == 1
        for i, ok in enumerate(results):
            assert ok == (i % 3 != 0)
            assert (await store.load_run(f"r-{i}") is not None) == ok

    async def test_concurrent_checkpoints_on_distinct_threads(self, store: ThreadRunStore) -> None:
        async def one(i: int) -> None:
            run = make_run(f"r-{i}", f"t-{i}", status=RunStatus.DONE)
            await store.checkpoint(f"t-{i}", [Message.user(f"m{i}")] * (i + 1), run)

        await asyncio.gather(*(one(i) for i in range(16)))
        for i in range(16):
            messages = await store.load_messages(f"t-{i}")
            assert messages is not None and len(messages) == i + 1
            thread = await store.load_thread(f"t-{i}")
            assert thread is not None and thread.latest_run_id == f"r-{i}"
            latest = await store.latest_run(f"t-{i}")
            assert latest is not None and latest.run_id == f"r-{i}"


class ThreadRunStoreContract(ThreadStoreContract, RunStoreContract, CheckpointContract):
    """Every ``ThreadRunStore`` test: threads, messages, runs and checkpoints."""
