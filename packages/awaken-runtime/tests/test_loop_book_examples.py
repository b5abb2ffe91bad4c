"""Python translations of the book's testing-strategy examples."""

from typing import Any

import msgspec
import pytest
from awaken.contract.event import (
    AgentEvent,
    InferenceComplete,
    RunFinish,
    RunStart,
    StateSnapshot,
    StepEnd,
    StepStart,
    TextDelta,
    ToolCallDone,
    ToolCallStart,
)
from awaken.contract.event_sink import VecEventSink
from awaken.contract.identity import RunIdentity, RunOrigin
from awaken.contract.lifecycle import TerminationReason
from awaken.contract.message import Message, ToolCall
from awaken.contract.tool import (
    InvalidArguments,
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolOutput,
    ToolResult,
)
from awaken.engine import MockLlmExecutor, ScriptedLlm, text_step, tool_step
from awaken.errors import AwakenError
from awaken.loop_runner import (
    AgentLoopParams,
    LoopStatePlugin,
    build_agent_env,
    run_agent_loop,
)
from awaken.model import Phase
from awaken.phase import PhaseRuntime
from awaken.plugin import (
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
)
from awaken.registry import AgentResolver, ResolvedAgent
from awaken.state import MergeStrategy, StateCommand, StateKey, StateKeyOptions, StateStore

# -- 1. unit-testing a tool ---------------------------------------------------------------


class GreetTool(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("greet", "greet", "Greet a user by name")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        name = args.get("name") if isinstance(args, dict) else None
        if not isinstance(name, str):
            raise InvalidArguments("missing 'name'")
        return ToolResult.success("greet", {"greeting": f"Hello, {name}!"})


async def test_greet_tool_returns_greeting() -> None:
    output = ToolOutput.of(
        await GreetTool().execute({"name": "Alice"}, ToolCallContext.test_default())
    )
    assert output.result.is_success
    assert output.result.data["greeting"] == "Hello, Alice!"


async def test_greet_tool_rejects_missing_name() -> None:
    with pytest.raises(InvalidArguments):
        await GreetTool().execute({}, ToolCallContext.test_default())


class HitCounter(StateKey[int, int]):
    KEY = "test.hit_counter"
    MERGE = MergeStrategy.COMMUTATIVE

    @classmethod
    def apply(cls, value: int, update: int) -> int:
        return value + update


class CounterMutationTool(Tool):
    def __init__(self, increment: int) -> None:
        self.increment = increment

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("mutate", "mutate", "bump a counter")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolOutput:
        cmd = StateCommand().update(HitCounter, self.increment)
        return ToolOutput.with_command(ToolResult.success("mutate", {}), cmd)


async def test_tool_produces_state_command() -> None:
    output = await CounterMutationTool(5).execute({}, ToolCallContext.test_default())
    assert output.result.is_success
    assert output.command is not None and not output.command.is_empty


# -- 2. unit-testing a plugin ---------------------------------------------------------------


class Counter(StateKey[int, int]):
    KEY = "test.counter"
    MERGE = MergeStrategy.COMMUTATIVE

    @classmethod
    def apply(cls, value: int, update: int) -> int:
        return value + update


class CounterPlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("counter")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(Counter, StateKeyOptions())


def test_counter_plugin_registers_key() -> None:
    store = StateStore()
    store.install_plugin(CounterPlugin())
    assert (store.read(Counter) or 0) == 0


def test_counter_plugin_rejects_double_registration() -> None:
    store = StateStore()
    store.install_plugin(CounterPlugin())
    with pytest.raises(AwakenError):
        store.install_plugin(CounterPlugin())


class AuditLog(msgspec.Struct):
    entries: list[str] = msgspec.field(default_factory=list)


class AuditLogKey(StateKey[AuditLog, AuditLog]):
    KEY = "test.audit"


class AuditHook(PhaseHook):
    async def run(self, ctx: PhaseContext) -> StateCommand:
        return StateCommand().update(AuditLogKey, AuditLog([f"phase {ctx.phase}"]))


class AuditPlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("audit")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(AuditLogKey)
        registrar.register_phase_hook("audit", Phase.RUN_START, AuditHook())


async def test_audit_hook_appends_entry() -> None:
    cmd = await AuditHook().run(PhaseContext.test_default())
    store = StateStore()
    store.install_plugin(AuditPlugin())
    store.commit(cmd)
    log = store.read(AuditLogKey)
    assert log is not None and log.entries


# -- 3. unit-testing a StateKey ---------------------------------------------------------------


def test_apply_increments_counter() -> None:
    value = HitCounter.apply(0, 5)
    assert value == 5
    assert HitCounter.apply(value, 3) == 8


def test_apply_merge_replaces_entries() -> None:
    log = AuditLogKey.apply(AuditLog(["old"]), AuditLog(["new"]))
    assert log.entries == ["new"]


# -- 4. integration test with a scripted LLM --------------------------------------------------


class GetWeatherTool(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("get_weather", "get_weather", "Weather").with_parameters(
            {"type": "object", "properties": {"city": {"type": "string"}}}
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("get_weather", {"weather": "sunny"})


class FixedResolver(AgentResolver):
    def __init__(self, agent: ResolvedAgent) -> None:
        self.agent = agent

    def resolve(self, agent_id: str) -> ResolvedAgent:
        agent = self.agent.copy()
        agent.env = build_agent_env([], agent)
        return agent


def make_identity() -> RunIdentity:
    return RunIdentity(
        thread_id="thread-test", run_id="run-test", agent_id="agent", origin=RunOrigin.USER
    )


async def run_loop(agent: ResolvedAgent, messages: list[Message]) -> tuple[Any, list[AgentEvent]]:
    store = StateStore()
    runtime = PhaseRuntime(store)
    store.install_plugin(LoopStatePlugin())
    sink = VecEventSink()
    result = await run_agent_loop(
        AgentLoopParams(
            resolver=FixedResolver(agent),
            agent_id="test",
            runtime=runtime,
            sink=sink,
            checkpoint_store=None,
            messages=messages,
            run_identity=make_identity(),
            cancellation_token=None,
            decision_rx=None,
            overrides=None,
            frontend_tools=[],
        )
    )
    return result, sink.take()


async def test_tool_call_flow_end_to_end() -> None:
    llm = ScriptedLlm(
        [
            tool_step([ToolCall("c1", "get_weather", {"city": "Tokyo"})]),
            text_step("The weather in Tokyo is sunny."),
        ]
    )
    agent = ResolvedAgent.new("test", "model", "You are helpful.", llm).with_tool(GetWeatherTool())
    result, _ = await run_loop(agent, [Message.user("What's the weather?")])
    assert result.response == "The weather in Tokyo is sunny."
    assert result.steps == 2


async def test_mock_llm_executor_agent() -> None:
    llm = MockLlmExecutor().with_responses(["Hello!"])
    agent = ResolvedAgent.new("test", "model", "system prompt", llm)
    result, _ = await run_loop(agent, [Message.user("hi")])
    assert result.response == "Hello!"


# -- 5. testing the event stream -------------------------------------------------------------


def event_type(e: AgentEvent) -> str:
    mapping = {
        RunStart: "run_start",
        RunFinish: "run_finish",
        StepStart: "step_start",
        StepEnd: "step_end",
        TextDelta: "text_delta",
        ToolCallStart: "tool_call_start",
        ToolCallDone: "tool_call_done",
        InferenceComplete: "inference_complete",
        StateSnapshot: "state_snapshot",
    }
    return mapping.get(type(e), "other")


async def test_events_follow_expected_lifecycle() -> None:
    llm = ScriptedLlm([tool_step([ToolCall("c1", "get_weather", {})]), text_step("sunny")])
    agent = ResolvedAgent.new("test", "model", "sys", llm).with_tool(GetWeatherTool())
    _, events = await run_loop(agent, [Message.user("weather?")])
    assert isinstance(events[0], RunStart)
    assert isinstance(events[-1], RunFinish)
    step_starts = sum(isinstance(e, StepStart) for e in events)
    step_ends = sum(isinstance(e, StepEnd) for e in events)
    assert step_starts == step_ends, "every StepStart needs a StepEnd"
    assert events[-1].termination == TerminationReason.natural_end()
    types = [event_type(e) for e in events]
    assert types[0] == "run_start" and types[-1] == "run_finish"
    assert types.index("tool_call_start") < types.index("tool_call_done")
