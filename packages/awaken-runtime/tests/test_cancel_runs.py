"""Cancellation: mid-stream, mid-tool, before a step, and the control plane."""

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from awaken_contract.contract.event import (
    AgentEvent,
    RunFinish,
    StepEnd,
    StepStart,
    TextDelta,
    ToolCallDone,
)
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import (
    LlmStreamEvent,
    StreamResult,
    TextDeltaChunk,
)
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_stores import InMemoryStore


class EndlessStream(LlmExecutor):
    """Streams one delta, then hangs until cancelled (records that it was closed)."""

    def __init__(self) -> None:
        self.closed = False
        self.started = asyncio.Event()

    async def execute(self, request: InferenceRequest) -> StreamResult:
        raise AssertionError("streaming only")

    async def stream(self, request: InferenceRequest) -> AsyncIterator[LlmStreamEvent]:
        try:
            yield TextDeltaChunk("partial ")
            self.started.set()
            await asyncio.Event().wait()
            yield TextDeltaChunk("never")
        finally:
            self.closed = True


class Hanging(Tool):
    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = False

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("hang", "hang", "never returns")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return ToolResult.success("hang", None)


def build(llm: LlmExecutor, store: InMemoryStore | None = None):
    builder = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m"))
        .with_tool("hang", Hanging())
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="x"))
    )
    if store is not None:
        builder = builder.with_thread_run_store(store)
    return builder.build()


def kinds(events: list[AgentEvent]) -> list[str]:
    return [type(e).__name__ for e in events]


async def test_cancel_mid_stream_ends_cancelled_and_closes_the_stream() -> None:
    llm = EndlessStream()
    store = InMemoryStore()
    runtime = build(llm, store)
    sink = VecEventSink()
    task = asyncio.ensure_future(
        runtime.run(RunRequest("c1", [Message.user("go")]).with_agent_id("a"), sink)
    )
    await asyncio.wait_for(llm.started.wait(), 10)
    assert runtime.cancel_by_thread("c1")
    result = await asyncio.wait_for(task, 10)
    assert result.termination.type is TerminationKind.CANCELLED
    assert llm.closed
    assert kinds(sink.events) == [
        "RunStart",
        "StepStart",
        "TextDelta",
        "InferenceComplete",
        "StateSnapshot",
        "StepEnd",
        "StateSnapshot",
        "RunFinish",
    ]
    finish = sink.events[-1]
    assert isinstance(finish, RunFinish) and finish.result is not None
    assert finish.result["status"] == "done"
    record = await store.load_run(result.run_id)
    assert record is not None and record.status is RunStatus.DONE
    assert record.termination_reason is not None
    assert record.termination_reason.type is TerminationKind.CANCELLED
    assert any(isinstance(e, TextDelta) and e.delta == "partial " for e in sink.events)


async def test_cancel_mid_tool_cancels_the_tool() -> None:
    llm = ScriptedLlm([tool_step([ToolCall("t1", "hang", {}), ToolCall("t2", "hang", {})])])
    runtime = build(llm)
    tool = runtime.resolve("a").tools["hang"]
    assert isinstance(tool, Hanging)
    sink = VecEventSink()
    task = asyncio.ensure_future(
        runtime.run(RunRequest("c2", [Message.user("go")]).with_agent_id("a"), sink)
    )
    await asyncio.wait_for(tool.started.wait(), 10)
    assert runtime.cancel("c2")
    result = await asyncio.wait_for(task, 10)
    assert result.termination.type is TerminationKind.CANCELLED
    assert tool.cancelled
    done = [e for e in sink.events if isinstance(e, ToolCallDone)]
    assert [d.id for d in done] == ["t1", "t2"]
    assert all(d.result.is_error for d in done)
    assert sum(isinstance(e, StepStart) for e in sink.events) == sum(
        isinstance(e, StepEnd) for e in sink.events
    )
    assert isinstance(sink.events[-1], RunFinish)


async def test_cancel_before_the_run_starts_a_step() -> None:
    runtime = build(ScriptedLlm([text_step("x")]))
    sink = VecEventSink()

    class CancelOnStart(VecEventSink):
        async def emit(self, event: AgentEvent) -> None:
            await sink.emit(event)
            if type(event).__name__ == "RunStart":
                runtime.cancel_by_thread("c3")

    result = await runtime.run(
        RunRequest("c3", [Message.user("go")]).with_agent_id("a"), CancelOnStart()
    )
    assert result.termination.type is TerminationKind.CANCELLED
    assert kinds(sink.events)[-1] == "RunFinish"
    assert "InferenceComplete" not in kinds(sink.events)


async def test_control_plane_reports_unknown_runs() -> None:
    runtime = build(ScriptedLlm([]))
    assert not runtime.cancel("nope")
    assert not runtime.cancel_by_run_id("nope")
    assert not runtime.send_messages("nope", [Message.user("x")])
    assert not await runtime.cancel_and_wait_by_thread("nope")


async def test_cancel_and_wait_releases_the_thread() -> None:
    llm = EndlessStream()
    runtime = build(llm)
    task = asyncio.ensure_future(
        runtime.run(RunRequest("c4", [Message.user("go")]).with_agent_id("a"), VecEventSink())
    )
    await asyncio.wait_for(llm.started.wait(), 10)
    assert runtime.active_run_id("c4") is not None
    assert await runtime.cancel_and_wait_by_thread("c4")
    assert runtime.active_run_id("c4") is None
    result = await task
    assert result.termination.type is TerminationKind.CANCELLED
