"""The README quickstart: one agent, one tool, a scripted model (no API key needed).

Run: ``uv run python examples/quickstart.py``
"""

import asyncio
from typing import Any

from awaken import AgentRuntimeBuilder, AgentSpec, ModelSpec, RunRequest
from awaken.contract.content import ContentBlock
from awaken.contract.event import RunFinish
from awaken.contract.event_sink import VecEventSink
from awaken.contract.executor import InferenceRequest, LlmExecutor
from awaken.contract.inference import StopReason, StreamResult
from awaken.contract.message import Message, ToolCall
from awaken.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult


class Weather(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("get_weather", "Get Weather", "Weather for a city").with_parameters(
            {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        )

    async def execute(self, args: dict[str, Any], ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("get_weather", {"forecast": f"sunny in {args['city']}"})


class Scripted(LlmExecutor):  # a scripted model; use GenaiExecutor for real providers
    def __init__(self, steps: list[StreamResult]) -> None:
        self.steps = list(steps)

    async def execute(self, request: InferenceRequest) -> StreamResult:
        return self.steps.pop(0)


async def main() -> None:
    llm = Scripted(
        [
            StreamResult(
                tool_calls=[ToolCall("c1", "get_weather", {"city": "Tokyo"})],
                stop_reason=StopReason.TOOL_USE,
            ),
            StreamResult(
                content=[ContentBlock.text("Sunny in Tokyo.")], stop_reason=StopReason.END_TURN
            ),
        ]
    )
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(
            AgentSpec("assistant")
            .with_model("m")
            .with_system_prompt("Be helpful.")
            .with_max_rounds(5)
        )
        .with_tool("get_weather", Weather())
        .with_provider("scripted", llm)
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .build()
    )
    sink = VecEventSink()
    result = await runtime.run(
        RunRequest("thread-1", [Message.user("Weather?")]).with_agent_id("assistant"), sink
    )
    print(result.response, result.steps)  # Sunny in Tokyo. 2
    assert isinstance(sink.take()[-1], RunFinish)


asyncio.run(main())
