"""Eval fixtures: a real AgentRuntime over a prompt-keyed scripted model and two tools.

The model (the only mock) reads the last user message: "weather in X" → ``get_weather``,
"gate N" → ``gate`` (a tool that waits until N calls are inside it at once, proving
concurrency without timing), anything else → a plain text echo. After a tool result it
answers with the result text.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import pytest
from awaken_contract.contract.content import ContentBlock
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StopReason, StreamResult
from awaken_contract.contract.message import Role, ToolCall
from awaken_contract.contract.storage import ThreadRunStore
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.ids import new_id
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.runtime import AgentRuntime

_CITY = re.compile(r"weather in (\w+)")
_GATE = re.compile(r"gate (\d+)")


class PromptModel(LlmExecutor):
    """Decides from the last user message (deterministic, safe for concurrent runs)."""

    async def execute(self, request: InferenceRequest) -> StreamResult:
        last = request.messages[-1]
        if last.role is Role.TOOL:
            return _text(f"Result: {last.text()}")
        prompt = last.text()
        if match := _CITY.search(prompt):
            return _call("get_weather", {"city": match.group(1)})
        if match := _GATE.search(prompt):
            return _call("gate", {"n": int(match.group(1))})
        return _text(f"You said: {prompt}")

    def name(self) -> str:
        return "prompt-model"


def _text(text: str) -> StreamResult:
    return StreamResult(content=[ContentBlock.text(text)], stop_reason=StopReason.END_TURN)


def _call(name: str, args: dict[str, Any]) -> StreamResult:
    return StreamResult(
        content=[],
        tool_calls=[ToolCall(f"c_{new_id()}", name, args)],
        stop_reason=StopReason.TOOL_USE,
    )


class Weather(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("get_weather", "Weather", "Weather for a city")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("get_weather", {"city": args["city"], "forecast": "sunny"})


class Gate(Tool):
    """Returns once ``n`` calls are inside at the same time (a rendezvous, no timing)."""

    def __init__(self) -> None:
        self.inside = 0
        self.opened = asyncio.Event()
        self.peak = 0

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("gate", "Gate", "Wait for company")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.inside += 1
        self.peak = max(self.peak, self.inside)
        try:
            if self.inside >= int(args["n"]):
                self.opened.set()
            await self.opened.wait()
        finally:
            self.inside -= 1
        return ToolResult.success("gate", {"peak": self.peak})


RuntimeFactory = Callable[..., AgentRuntime]


@pytest.fixture
def make_runtime() -> RuntimeFactory:
    """``make_runtime(store=None, judge=None, gate=None)``: agent ``assistant`` on PromptModel;
    ``judge`` (an executor) is registered as provider ``judge`` with model ``judge-model``."""

    def build(
        store: ThreadRunStore | None = None,
        judge: LlmExecutor | None = None,
        gate: Gate | None = None,
    ) -> AgentRuntime:
        builder = (
            AgentRuntimeBuilder()
            .with_agent_spec(AgentSpec("assistant").with_model("m").with_max_rounds(4))
            .with_provider("prompt", PromptModel())
            .with_model("m", ModelSpec(id="m", provider="prompt", model="prompt-1"))
            .with_tool("get_weather", Weather())
            .with_tool("gate", gate or Gate())
        )
        if judge is not None:
            builder = builder.with_provider("judge", judge).with_model(
                "judge-model", ModelSpec(id="judge-model", provider="judge", model="judge-1")
            )
        if store is not None:
            builder = builder.with_thread_run_store(store)
        return builder.build()

    return build
