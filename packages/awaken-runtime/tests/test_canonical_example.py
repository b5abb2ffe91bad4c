"""The canonical example of DESIGN §4, exactly as written."""

from awaken import AgentRuntimeBuilder, AgentSpec, ModelSpec, RunRequest
from awaken.contract.content import ContentBlock
from awaken.contract.event import (
    RunFinish,
    RunStart,
    StepEnd,
    StepStart,
    TextDelta,
    ToolCallDone,
    ToolCallStart,
)
from awaken.contract.event_sink import VecEventSink
from awaken.contract.executor import InferenceRequest, LlmExecutor
from awaken.contract.inference import StopReason, StreamResult
from awaken.contract.lifecycle import TerminationReason
from awaken.contract.message import Message, ToolCall
from awaken.contract.tool import (
    InvalidArguments,
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolResult,
)


class Weather(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("get_weather", "Get Weather", "Weather for a city").with_parameters(
            {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        )

    async def execute(self, args: dict, ctx: ToolCallContext):
        return ToolResult.success("get_weather", {"forecast": f"sunny in {args['city']}"})


class Scripted(LlmExecutor):  # the book's ScriptedLlm, in Python
    def __init__(self, steps):
        self.steps = list(steps)

    async def execute(self, request: InferenceRequest) -> StreamResult:
        return self.steps.pop(0)

    def name(self) -> str:
        return "scripted"


async def test_canonical_example_runs_as_written() -> None:
    llm = Scripted(
        [
            StreamResult(
                content=[],
                tool_calls=[ToolCall("c1", "get_weather", {"city": "Tokyo"})],
                usage=None,
                stop_reason=StopReason.TOOL_USE,
                has_incomplete_tool_calls=False,
            ),
            StreamResult(
                content=[ContentBlock.text("Sunny in Tokyo.")],
                tool_calls=[],
                usage=None,
                stop_reason=StopReason.END_TURN,
                has_incomplete_tool_calls=False,
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
    assert result.response == "Sunny in Tokyo." and result.steps == 2
    events = sink.take()
    assert isinstance(events[-1], RunFinish)
    assert isinstance(events[0], RunStart)
    assert events[-1].termination == TerminationReason.natural_end()
    kinds = [type(e) for e in events]
    assert kinds.count(StepStart) == kinds.count(StepEnd) == 2
    assert kinds.index(ToolCallStart) < kinds.index(ToolCallDone)
    done = next(e for e in events if isinstance(e, ToolCallDone))
    assert done.result.data == {"forecast": "sunny in Tokyo"}
    assert any(isinstance(e, TextDelta) and e.delta == "Sunny in Tokyo." for e in events)
    assert issubclass(InvalidArguments, Exception)
