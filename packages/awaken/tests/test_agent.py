"""``awaken.Agent``: the short path over the builder — run, run_sync, stream, tools from
functions, plugins, model strings and errors."""

from __future__ import annotations

import pytest
from awaken import (
    Agent,
    AgentRuntimeBuilder,
    AgentSpec,
    ModelSpec,
    Plugin,
    RunRequest,
    Tool,
    tool,
)
from awaken.contract.event import RunFinish, RunStart, ToolCallDone
from awaken.contract.message import Role
from awaken.contract.tool import ToolCallContext, ToolDescriptor, ToolResult
from awaken.errors import AgentRuntimeError, BuildError, ProviderError
from awaken.model import Phase
from awaken.plugin import PhaseContext, PluginDescriptor, PluginRegistrar
from awaken.state import StateCommand
from awaken.testing import ScriptedLlm, text_step, tool_call_step
from awaken_runtime.engine import GenaiExecutor
from pydantic import BaseModel


@tool
async def get_weather(city: str) -> dict[str, str]:
    """Weather for a city."""
    return {"forecast": f"sunny in {city}"}


def weather_script() -> ScriptedLlm:
    return ScriptedLlm(
        [tool_call_step("c1", "get_weather", {"city": "Tokyo"}), text_step("Sunny in Tokyo.")]
    )


async def test_run_calls_the_tool_and_returns_text_steps_termination_and_messages() -> None:
    llm = weather_script()
    agent = Agent(llm, tools=[get_weather], instructions="Be helpful.")
    result = await agent.run("Weather in Tokyo?")
    assert result.response == "Sunny in Tokyo." and result.steps == 2 and result.is_success
    roles = [m.role for m in result.messages]
    assert roles == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    assert "sunny in Tokyo" in result.messages[2].text()
    assert llm.requests[0].messages[0].text() == "Be helpful."  # instructions = system prompt
    assert [t.id for t in llm.requests[0].tools] == ["get_weather"]


def test_run_sync_from_synchronous_code_twice() -> None:
    agent = Agent(ScriptedLlm([text_step("one"), text_step("two")]))
    assert agent.run_sync("first").response == "one"
    assert agent.run_sync("second").response == "two"


async def test_run_sync_inside_an_event_loop_is_a_typed_error() -> None:
    agent = Agent(ScriptedLlm([text_step("x")]))
    with pytest.raises(AgentRuntimeError, match="await run"):
        agent.run_sync("hi")


async def test_stream_yields_the_runs_events_in_order() -> None:
    agent = Agent(weather_script(), tools=[get_weather])
    events = [event async for event in agent.stream("Weather?")]
    assert isinstance(events[0], RunStart) and isinstance(events[-1], RunFinish)
    (done,) = [e for e in events if isinstance(e, ToolCallDone)]
    assert done.result.data == {"forecast": "sunny in Tokyo"}


async def test_a_plain_function_becomes_a_tool_and_class_tools_still_work() -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    class Echo(Tool):
        def descriptor(self) -> ToolDescriptor:
            return ToolDescriptor("echo", "Echo", "Echo the input")

        async def execute(self, args: dict[str, str], ctx: ToolCallContext) -> ToolResult:
            return ToolResult.success("echo", args)

    llm = ScriptedLlm(
        [
            tool_call_step("c1", "add", {"a": 2, "b": 3}),
            tool_call_step("c2", "echo", {"x": "y"}),
            text_step("5"),
        ]
    )
    result = await Agent(llm, tools=[add, Echo()]).run("2+3?")
    tool_results = [m.text() for m in result.messages if m.role is Role.TOOL]
    assert tool_results[0] == "5" and "y" in tool_results[1]


async def test_bad_tool_arguments_reach_the_model_as_an_error() -> None:
    llm = ScriptedLlm([tool_call_step("c1", "get_weather", {"town": 1}), text_step("sorry")])
    result = await Agent(llm, tools=[get_weather]).run("?")
    (tool_message,) = [m for m in result.messages if m.role is Role.TOOL]
    assert "city" in tool_message.text()


class Recorder(Plugin):
    def __init__(self) -> None:
        self.phases: list[Phase] = []

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("recorder")

    def register(self, registrar: PluginRegistrar) -> None:
        async def record(ctx: PhaseContext) -> StateCommand:
            self.phases.append(ctx.phase)
            return StateCommand()

        registrar.register_phase_hook("recorder", Phase.RUN_START, record)
        registrar.register_phase_hook("recorder", Phase.RUN_END, record)


async def test_plugins_are_registered_and_their_hooks_run() -> None:
    plugin = Recorder()
    await Agent(ScriptedLlm([text_step("ok")]), plugins=[plugin]).run("hi")
    assert plugin.phases == [Phase.RUN_START, Phase.RUN_END]


async def test_a_thread_id_continues_the_conversation() -> None:
    llm = ScriptedLlm([text_step("Hello Ada."), text_step("You are Ada.")])
    agent = Agent(llm)
    first = await agent.run("I am Ada.")
    second = await agent.run("Who am I?", thread_id=first.thread_id)
    assert second.response == "You are Ada."
    assert [m.text() for m in llm.requests[1].messages if m.role is Role.USER] == [
        "I am Ada.",
        "Who am I?",
    ]


def test_provider_model_strings_resolve_through_provider_specs() -> None:
    agent = Agent("openai:gpt-4o", environ={"OPENAI_API_KEY": "sk-test"})
    registries = agent.runtime.registries
    assert registries is not None
    executor = registries.providers.get("openai")
    assert isinstance(executor, GenaiExecutor) and executor.provider is not None
    assert executor.provider.adapter == "openai"
    bare = Agent("deepseek-chat", environ={"DEEPSEEK_API_KEY": "k"})  # provider_from_env
    assert bare.runtime is not None


@pytest.mark.parametrize(
    ("model", "error", "message"),
    [
        ("carrier-pigeon:coo", ProviderError, "unknown provider adapter"),
        ("openai:gpt-4o", ProviderError, "OPENAI_API_KEY"),  # no key in the environment
        ("gpt-4o", BuildError, "no provider"),
        ("", BuildError, "LlmExecutor or a 'provider:model'"),
    ],
)
def test_bad_models_raise_typed_errors_at_construction(
    model: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        Agent(model, environ={})


def test_a_non_tool_is_a_build_error() -> None:
    with pytest.raises(BuildError, match="typed functions"):
        Agent(ScriptedLlm([]), tools=[42])  # type: ignore[list-item]


async def test_the_canonical_builder_imports_still_work() -> None:
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("assistant").with_model("m"))
        .with_provider("scripted", ScriptedLlm([text_step("hi")]))
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .build()
    )
    result = await runtime.run(RunRequest("t", []).with_agent_id("assistant"))
    assert result.response == "hi"


# ---------------------------------------------------------------- structured output


class Forecast(BaseModel):
    """A forecast."""

    city: str
    sunny: bool


async def test_output_type_returns_the_validated_model_instance() -> None:
    llm = ScriptedLlm(
        [
            tool_call_step("c1", "get_weather", {"city": "Tokyo"}),
            tool_call_step("f1", "final_result", {"city": "Tokyo", "sunny": "maybe"}),
            tool_call_step("f2", "final_result", {"city": "Tokyo", "sunny": True}),
        ]
    )
    agent = Agent(llm, tools=[get_weather], output_type=Forecast)
    result = await agent.run("Weather in Tokyo?")
    assert result.is_success
    assert result.output == Forecast(city="Tokyo", sunny=True)
    assert result.response == '{"city":"Tokyo","sunny":true}'
    assert [t.id for t in llm.requests[0].tools] == ["get_weather", "final_result"]
    retry = next(m for m in result.messages if m.role is Role.TOOL and m.tool_call_id == "f1")
    assert "sunny: Input should be a valid boolean" in retry.text()


def test_output_type_accepts_a_json_schema_and_bounds_retries() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    ok = Agent(ScriptedLlm([text_step('{"n": 3}')]), output_type=schema).run_sync("n?")
    assert ok.output == {"n": 3}
    bad = Agent(
        ScriptedLlm([text_step("no"), text_step("no")]), output_type=schema, output_retries=1
    )
    failed = bad.run_sync("n?")
    assert failed.termination.type.value == "error" and failed.output is None
    assert "structured output invalid after 2 attempt(s)" in str(failed.termination.value)
