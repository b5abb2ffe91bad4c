"""A run the server starts on a thread id and a run id it minted reads nothing at start: the
RunPlan tells the runtime that nothing is stored under them (memory and a real SQLite file).
Every other run still reads: a second run on the thread, a run id hint, a decision."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.journal import JournalEntry
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import RunRecord
from awaken_contract.contract.thread import Thread
from awaken_server.mailbox.sink import ReconnectableEventSink
from awaken_server.mailbox.submission import RunSubmission
from awaken_stores import InMemoryStore, SqliteStore

START_READS = ("load_thread", "latest_run", "load_messages", "last_seq", "load_run")


class ReadTrace:
    """Records every thread/run read the server and its runtime make (a store mixin)."""

    reads: list[str]

    def _read(self, what: str) -> None:
        self.__dict__.setdefault("reads", []).append(what)

    async def load_thread(self, thread_id: str) -> Thread | None:
        self._read("load_thread")
        return await super().load_thread(thread_id)  # type: ignore[misc]

    async def latest_run(self, thread_id: str) -> RunRecord | None:
        self._read("latest_run")
        return await super().latest_run(thread_id)  # type: ignore[misc]

    async def load_messages(self, thread_id: str) -> list[Message] | None:
        self._read("load_messages")
        return await super().load_messages(thread_id)  # type: ignore[misc]

    async def last_seq(self, run_id: str) -> int:
        self._read("last_seq")
        return await super().last_seq(run_id)  # type: ignore[misc]

    async def load_run(self, run_id: str) -> RunRecord | None:
        self._read("load_run")
        return await super().load_run(run_id)  # type: ignore[misc]

    def take(self) -> list[str]:
        """The reads since the last call."""
        reads = self.__dict__.setdefault("reads", [])
        taken = [r for r in reads if r in START_READS]
        reads.clear()
        return taken


class TracedMemory(ReadTrace, InMemoryStore):
    pass


class TracedSqlite(ReadTrace, SqliteStore):
    pass


@pytest.fixture(params=["memory", "sqlite"])
def traced(request: pytest.FixtureRequest, tmp_path: Path) -> ReadTrace:
    if request.param == "memory":
        return TracedMemory()
    return TracedSqlite(str(tmp_path / "awaken.db"))


def _shape(journal: list[JournalEntry]) -> list[tuple[int, str]]:
    """A journal's positions and kinds (ids and timestamps differ between runs)."""
    return [(e.seq, str(e.kind)) for e in journal]


async def _submit(live: Any, submission: RunSubmission, text: str) -> str:
    """Run ``submission`` in the foreground to its end; its run id."""
    submission.messages = [Message.user(text)]
    handle = await live.state.mailbox.submit(submission, sink=ReconnectableEventSink())
    await handle.task
    return str(handle.run_id)


async def _run(live: Any, sse: Any, body: dict[str, Any]) -> list[Any]:
    async with live.client.stream("POST", "/v1/runs", json=body) as response:
        assert response.status_code == 200
        return [f for f in await sse.collect(response) if f.data]


async def test_a_new_run_on_a_new_thread_reads_nothing_then_the_next_run_reads(
    make_server: Any, sse: Any, traced: ReadTrace
) -> None:
    live = await make_server(traced)
    body: dict[str, Any] = {"agentId": "assistant", "messages": [{"role": "user", "content": "hi"}]}
    traced.take()
    first = await _run(live, sse, body)
    assert traced.take() == []  # nothing read before (or while) the run starts
    assert first[0].data["event_type"] == "run_start" and first[0].id == 1
    assert first[-1].data["termination"] == {"type": "natural_end"}
    thread_id, run_id = first[-1].data["thread_id"], first[-1].data["run_id"]
    journal = await traced.read(run_id)  # type: ignore[attr-defined]
    assert {f.id for f in first} <= {e.seq for e in journal}  # SSE ids are journal seqs

    # The same run with a run id hint reads its run and journal: the same journal results.
    hinted = await _submit(live, RunSubmission(agent_id="assistant", run_id_hint="hinted"), "hi")
    assert {"load_run", "last_seq"} <= set(traced.take())
    assert _shape(await traced.read(hinted)) == _shape(journal)  # type: ignore[attr-defined]

    # The thread exists now: the next run looks for a waiting run and loads its history.
    again = {**body, "threadId": thread_id, "messages": [{"role": "user", "content": "again"}]}
    second = await _run(live, sse, again)
    reads = traced.take()
    assert {"latest_run", "load_messages"} <= set(reads)
    assert second[-1].data["termination"] == {"type": "natural_end"}
    assert second[-1].data["run_id"] != run_id
    history = (await live.client.get(f"/v1/threads/{thread_id}/messages")).json()["messages"]
    texts = [str(m["content"]) for m in history]
    assert any("hi" in t for t in texts) and any("again" in t for t in texts)
    assert texts.index(next(t for t in texts if "hi" in t)) < texts.index(
        next(t for t in texts if "again" in t)
    )


async def test_a_run_id_hint_on_a_new_thread_reads_its_run_but_not_the_thread(
    make_server: Any, traced: ReadTrace
) -> None:
    live = await make_server(traced)
    traced.take()
    run_id = await _submit(live, RunSubmission(agent_id="assistant", run_id_hint="h1"), "hi")
    assert run_id == "h1"
    reads = traced.take()
    assert "last_seq" in reads and "load_run" in reads  # a hinted run may have a journal
    assert "load_messages" not in reads and "latest_run" not in reads  # the thread is new


async def test_a_continued_run_reads_its_record_messages_and_journal(
    make_server: Any, traced: ReadTrace
) -> None:
    live = await make_server(traced)
    first = await _submit(live, RunSubmission(agent_id="assistant"), "hi")
    record = await traced.load_run(first)  # type: ignore[attr-defined]
    traced.take()
    again = RunSubmission(thread_id=record.thread_id, agent_id="assistant", continue_run_id=first)
    assert await _submit(live, again, "more") == first
    reads = traced.take()
    assert {"load_run", "load_messages", "last_seq"} <= set(reads)


async def test_a_background_run_on_a_new_thread_still_reads(
    make_server: Any, traced: ReadTrace, until: Any
) -> None:
    # Queued, then claimed by the dispatcher: the job comes from the store, without a plan
    # that says what is new, so its run reads as any other.
    live = await make_server(traced)
    traced.take()
    submission = RunSubmission(agent_id="assistant", messages=[Message.user("hi")])
    queued = await live.state.mailbox.submit_background(submission)

    async def finished() -> bool:
        record = await traced.load_run(queued.run_id)  # type: ignore[attr-defined]
        return record is not None and record.status.value == "done"

    await until(finished)
    reads = set(traced.take())
    assert {"last_seq", "load_messages", "latest_run"} <= reads
