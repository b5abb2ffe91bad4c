"""Replay of a run cancelled while a tool ran: the tool never finished (no recorded result),
but what it emitted before the cancel (progress, streamed output) is in the journal and is
re-emitted before the replay cancels at the same point."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from awaken_contract.contract.event import ToolCallStreamDelta
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntime, AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.replay import replay_run
from awaken_runtime.testing import wait_until
from awaken_stores import SqliteStore


class Slow(Tool):
    """Reports progress, streams a part, then waits until the run is cancelled."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.runs = 0

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("slow", "Slow", "A job that never ends by itself")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.runs += 1
        await ctx.report_progress("running", "working", 0.0)
        assert ctx.activity_sink is not None
        await ctx.activity_sink.emit(ToolCallStreamDelta(id=ctx.call_id, name="slow", delta="1/3"))
        await ctx.report_activity("job", {"step": 1})
        self.started.set()
        await asyncio.Event().wait()  # cancelled with the run
        raise AssertionError("unreachable")


def build(store: SqliteStore | None, slow: Slow) -> AgentRuntime:
    steps = [tool_step([ToolCall("s1", "slow", {})], "Starting."), text_step("never")]
    builder = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("ops").with_model("m").with_system_prompt("Be brief."))
        .with_tool("slow", slow)
        .with_provider("llm", ScriptedLlm(steps))
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
    )
    return (builder.with_thread_run_store(store) if store is not None else builder).build()


async def test_a_run_cancelled_while_its_tool_ran_replays(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "replay.db")
    try:
        slow = Slow()
        runtime = build(store, slow)
        run = asyncio.create_task(
            runtime.run(RunRequest("t1", [Message.user("go")]).with_agent_id("ops"), VecEventSink())
        )
        await wait_until(slow.started.is_set, message="the tool to start")
        assert runtime.cancel("t1")
        result = await run
        assert result.termination.type is TerminationKind.CANCELLED

        fresh = Slow()
        report = await replay_run(build(None, fresh), store, result.run_id)
        assert report.identical, report.describe()
        assert fresh.runs == 0  # the tool was not executed again
    finally:
        await store.close()
