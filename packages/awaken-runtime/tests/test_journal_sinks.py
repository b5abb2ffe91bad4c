"""The run journal and the run's own sink: what each gets when the sink drops every event."""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.event import AgentEvent
from awaken_contract.contract.event_sink import EventSink, VecEventSink
from awaken_contract.contract.journal import EventRecord
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import ToolResult, tool
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.replay.normalise import EventNormaliser
from awaken_stores import InMemoryStore


@tool
async def echo(text: str) -> ToolResult:
    """Echo the text."""
    return ToolResult.success("echo", text)


class DroppingSink(EventSink):
    """Says it drops events, but records any it is sent (and any seq skip)."""

    wants_events = False
    wants_state_snapshots = False

    def __init__(self) -> None:
        self.sent: list[AgentEvent] = []
        self.skipped = 0

    async def emit(self, event: AgentEvent) -> None:
        self.sent.append(event)

    def skip_seq(self, count: int = 1) -> None:
        self.skipped += count


class Recording(VecEventSink):
    """Wants every event but the state snapshots (as the dropping sink's run builds none)."""

    wants_state_snapshots = False


def _runtime(store: InMemoryStore) -> Any:
    script = [tool_step([ToolCall("c1", "echo", {"text": "hi"})]), text_step("Done.")]
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m"))
        .with_tool("echo", echo)
        .with_provider("scripted", ScriptedLlm(script))
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_thread_run_store(store)
        .build()
    )


async def _journal(store: InMemoryStore, run_id: str) -> list[Any]:
    normaliser = EventNormaliser()
    return [
        (e.seq, e.kind, normaliser.normalise(e.record.event))
        if isinstance(e.record, EventRecord)
        else (e.seq, e.kind, None)
        for e in await store.read(run_id)
    ]


async def test_a_dropping_sink_gets_nothing_and_the_journal_records_every_event() -> None:
    dropping, recording = DroppingSink(), Recording()
    dropped_store, recorded_store = InMemoryStore(), InMemoryStore()
    request = RunRequest("t", [Message.user("hi")]).with_run_id("run-1")
    dropped = await _runtime(dropped_store).run(request, dropping)
    request = RunRequest("t", [Message.user("hi")]).with_run_id("run-1")
    recorded = await _runtime(recorded_store).run(request, recording)
    assert dropping.sent == [] and dropping.skipped == 0
    # The journals are the same run, entry for entry (ids and clock readings normalised) …
    journal = await _journal(dropped_store, dropped.run_id)
    assert journal == await _journal(recorded_store, recorded.run_id)
    # … and hold every event the sink that wants them was sent, in order.
    normaliser = EventNormaliser()
    assert [e for _, _, e in journal if e is not None] == [
        normaliser.normalise(e) for e in recording.events
    ]
    assert (dropped.response, dropped.steps, dropped.termination) == (
        recorded.response,
        recorded.steps,
        recorded.termination,
    )
