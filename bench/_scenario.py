"""The shared bench scenario on Awaken: tool ``get_weather`` + a scripted two-call model.

Model call 1 returns one tool call ``get_weather(city="Tokyo")``; model call 2 (it sees the tool
result last) returns the final text. One run = 2 inferences + 1 tool execution. The plain-asyncio
floor (no framework) is the same loop written by hand, as in ``/work/shared/bench/peers``.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from typing import Any

from awaken import AgentRuntimeBuilder, AgentSpec, ModelSpec, RunRequest
from awaken.contract.content import ContentBlock
from awaken.contract.executor import InferenceRequest, LlmExecutor
from awaken.contract.inference import StopReason, StreamResult, TokenUsage
from awaken.contract.message import Message, Role, ToolCall
from awaken.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken.model import Phase
from awaken.plugin import Plugin, PluginDescriptor, PluginRegistrar
from awaken.state import StateCommand

PROMPT = "What is the weather in Tokyo?"
ANSWER = "It is sunny in Tokyo."
_ids = itertools.count()
_USAGE = TokenUsage(prompt_tokens=10, completion_tokens=20, total_tokens=30)


class ScriptedModel(LlmExecutor):
    """Tool call first, final text once the last message is a tool result."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay

    async def execute(self, request: InferenceRequest) -> StreamResult:
        if self.delay:
            await asyncio.sleep(self.delay)
        if request.messages[-1].role is Role.TOOL:
            return StreamResult(
                content=[ContentBlock.text(ANSWER)],
                usage=_USAGE,
                stop_reason=StopReason.END_TURN,
            )
        call = ToolCall(f"call_{next(_ids)}", "get_weather", {"city": "Tokyo"})
        return StreamResult(tool_calls=[call], usage=_USAGE, stop_reason=StopReason.TOOL_USE)

    def name(self) -> str:
        return "scripted"


class GetWeather(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("get_weather", "get_weather", "Get the weather for a city")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("get_weather", f"sunny in {args['city']}")


class Unused(Tool):
    """An extra registered tool the model never calls (the cost of a large tool set)."""

    def __init__(self, index: int) -> None:
        self.index = index

    def descriptor(self) -> ToolDescriptor:
        name = f"unused_{self.index}"
        return ToolDescriptor(name, name, f"Extra tool number {self.index}")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success(f"unused_{self.index}", "")


_HOOK_PHASES = [phase for phase in Phase if phase is not Phase.TOOL_GATE]


async def _no_op(ctx: Any) -> StateCommand:
    return StateCommand()


class NoOpPlugin(Plugin):
    """A plugin with one hook at every phase that changes nothing."""

    def __init__(self, index: int) -> None:
        self.index = index

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(f"noop_{self.index}")

    def register(self, registrar: PluginRegistrar) -> None:
        for phase in _HOOK_PHASES:
            registrar.register_phase_hook(self.plugin_id, phase, _no_op)


def build_runtime(
    delay: float = 0.0,
    store: Any = None,
    plugin: Any = None,
    *,
    plugins: Sequence[Plugin] = (),
    extra_tools: int = 0,
) -> Any:
    """The bench agent; ``plugin``/``plugins`` are activated, ``extra_tools`` unused tools added."""
    every = [*([plugin] if plugin is not None else []), *plugins]
    spec = AgentSpec("bench").with_model("m").with_system_prompt("Be brief.")
    for p in every:
        spec = spec.with_hook_filter(p.plugin_id)
    builder = (
        AgentRuntimeBuilder()
        .with_agent_spec(spec)
        .with_tool("get_weather", GetWeather())
        .with_provider("scripted", ScriptedModel(delay))
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
    )
    for i in range(extra_tools):
        builder = builder.with_tool(f"unused_{i}", Unused(i))
    if store is not None:
        builder = builder.with_thread_run_store(store)
    for p in every:
        builder = builder.with_plugin(p.plugin_id, p)
    return builder.build()


async def awaken_run(runtime: Any) -> str:
    request = RunRequest(f"thread-{next(_ids)}", [Message.user(PROMPT)]).with_agent_id("bench")
    result = await runtime.run(request)
    return str(result.response)


# ---- floor: plain asyncio, zero framework -------------------------------------------------
async def floor_model(messages: list[dict[str, Any]], delay: float) -> dict[str, Any]:
    if delay:
        await asyncio.sleep(delay)
    if messages[-1]["role"] == "tool":
        return {"role": "assistant", "content": ANSWER}
    call = {"id": f"call_{next(_ids)}", "name": "get_weather", "args": {"city": "Tokyo"}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


async def get_weather(city: str) -> str:
    return f"sunny in {city}"


async def floor_run(delay: float = 0.0) -> str:
    messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPT}]
    while True:
        msg = await floor_model(messages, delay)
        messages.append(msg)
        calls = msg.get("tool_calls")
        if not calls:
            return str(msg["content"])
        for c in calls:
            content = await get_weather(**c["args"])
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": content})
