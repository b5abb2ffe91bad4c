"""A finished run is freed by reference counting alone: it leaves no reference cycle behind.

A cycle through a run's context (its tool pipeline calling back into the run) would keep the
whole object graph of every finished run alive until the cyclic GC finds it — under load that
collector then runs more often and each collection scans more."""

from __future__ import annotations

import gc
from typing import Any

from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_stores import InMemoryStore


class Weather(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("get_weather", "Get Weather", "Weather for a city")

    async def execute(self, args: dict[str, Any], ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("get_weather", {"forecast": "sunny"})


async def test_a_journaled_run_with_a_tool_call_leaves_no_cyclic_garbage() -> None:
    steps = [tool_step([ToolCall("c1", "get_weather", {"city": "Oslo"})]), text_step("Sunny.")]
    llm = ScriptedLlm(steps * 2)
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("assistant").with_model("m").with_max_rounds(4))
        .with_tool("get_weather", Weather())
        .with_provider("scripted", llm)
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_thread_run_store(InMemoryStore())
        .build()
    )

    async def run(thread_id: str) -> None:
        request = RunRequest(thread_id, [Message.user("weather?")]).with_agent_id("assistant")
        result = await runtime.run(request, VecEventSink())
        assert result.response == "Sunny."

    await run("t-warm")  # first-use caches (imports, decoders) are not garbage
    gc.collect()
    gc.disable()
    try:
        await run("t-1")
        assert gc.collect() == 0
    finally:
        gc.enable()
