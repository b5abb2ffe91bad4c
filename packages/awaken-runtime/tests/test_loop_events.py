"""Event order and loop behaviour: text-only, tools, parallel tools, errors, stops, state."""

import asyncio
from typing import Any

import pytest
from awaken_contract.actions import AddContextMessage, ExcludeTool, InterceptBlock
from awaken_contract.contract.context_message import ContextMessage
from awaken_contract.contract.event import (
    AgentEvent,
    Error,
    InferenceComplete,
    RunFinish,
    StateSnapshot,
    ToolCallDone,
)
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.lifecycle import TerminationKind, TerminationReason
from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.suspension import ToolCallOutcome
from awaken_contract.contract.tool import (
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolExecutionMode,
    ToolResult,
)
from awaken_contract.errors import ProviderError, ThreadAlreadyRunning
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
    ToolGateHook,
)
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import KeyScope, MergeStrategy, StateCommand, StateKey, StateKeyOptions
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import MockLlmExecutor, ScriptedLlm, text_step, tool_step
from awaken_stores import InMemoryStore


def kinds(events: list[AgentEvent]) -> list[str]:
    return [type(e).__name__ for e in events]


class Echo(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("echo", "echo", "Echo text")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("echo", {"echoed": args.get("text")})


def runtime_for(llm: LlmExecutor, *, spec: AgentSpec | None = None, **extra: Any):
    builder = (
        AgentRuntimeBuilder()
        .with_agent_spec(spec or AgentSpec("a").with_model("m").with_system_prompt("sys"))
        .with_tool("echo", Echo())
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="model-1"))
    )
    for plugin_id, plugin in extra.get("plugins", {}).items():
        builder = builder.with_plugin(plugin_id, plugin)
    if "store" in extra:
        builder = builder.with_thread_run_store(extra["store"])
    if "mode" in extra:
        builder = builder.with_tool_execution_mode(extra["mode"])
    return builder.build()


async def run(runtime: Any, text: str = "hi", thread: str = "t") -> tuple[Any, list[AgentEvent]]:
    sink = VecEventSink()
    result = await runtime.run(RunRequest(thread, [Message.user(text)]).with_agent_id("a"), sink)
    return result, sink.take()


async def test_text_only_event_order() -> None:
    result, events = await run(runtime_for(MockLlmExecutor(["Hello!"])))
    assert kinds(events) == [
        "RunStart",
        "StepStart",
        "TextDelta",
        "InferenceComplete",
        "StateSnapshot",
        "StepEnd",
        "StateSnapshot",
        "RunFinish",
    ]
    finish = events[-1]
    assert isinstance(finish, RunFinish)
    assert finish.result == {"response": "Hello!", "status": "done", "status_reason": "natural"}
    complete = next(e for e in events if isinstance(e, InferenceComplete))
    assert complete.model == "model-1" and complete.usage is not None
    assert result.usage.total_tokens == 30
    assert result.steps == 1


class NoSnapshots(VecEventSink):
    wants_state_snapshots = False


async def test_a_sink_that_wants_no_state_snapshots_gets_none() -> None:
    sink = NoSnapshots()
    runtime = runtime_for(MockLlmExecutor(["Hello!"]), store=InMemoryStore())
    result = await runtime.run(RunRequest("t", [Message.user("hi")]).with_agent_id("a"), sink)
    assert kinds(sink.take()) == [
        "RunStart",
        "StepStart",
        "TextDelta",
        "InferenceComplete",
        "StepEnd",
        "RunFinish",
    ]
    assert result.response == "Hello!"


async def test_tool_call_event_order() -> None:
    llm = ScriptedLlm([tool_step([ToolCall("c1", "echo", {"text": "x"})]), text_step("It's sunny")])
    result, events = await run(runtime_for(llm))
    assert kinds(events) == [
        "RunStart",
        "StepStart",
        "ToolCallStart",
        "ToolCallDelta",
        "ToolCallReady",
        "InferenceComplete",
        "ToolCallDone",
        "StateSnapshot",
        "StepEnd",
        "StepStart",
        "TextDelta",
        "InferenceComplete",
        "StateSnapshot",
        "StepEnd",
        "StateSnapshot",
        "RunFinish",
    ]
    assert result.response == "It's sunny" and result.steps == 2
    # the second request carries the assistant call and the tool answer after the prompt
    roles = [m.role for m in llm.requests[1].messages]
    assert roles == [Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL]
    assert [t.id for t in llm.requests[0].tools] == ["echo"]


async def test_text_before_tool_call_is_streamed_first() -> None:
    llm = ScriptedLlm(
        [tool_step([ToolCall("c1", "echo", {"text": "x"})], text="Let me check."), text_step("ok")]
    )
    _, events = await run(runtime_for(llm))
    assert kinds(events)[2:4] == ["TextDelta", "ToolCallStart"]


class Slow(Tool):
    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(self.name, self.name, "slow")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.log.append(f"start:{self.name}")
        await asyncio.sleep(0)
        self.log.append(f"end:{self.name}")
        return ToolResult.success(self.name, {"ok": True})


@pytest.mark.parametrize(
    ("mode", "interleaved"),
    [
        (ToolExecutionMode.SEQUENTIAL, False),
        (ToolExecutionMode.PARALLEL_STREAMING, True),
        (ToolExecutionMode.PARALLEL_BATCH_APPROVAL, True),
    ],
)
async def test_parallel_tool_calls(mode: ToolExecutionMode, interleaved: bool) -> None:
    log: list[str] = []
    llm = ScriptedLlm(
        [tool_step([ToolCall("c1", "a1", {}), ToolCall("c2", "a2", {})]), text_step("done")]
    )
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m"))
        .with_tool("a1", Slow("a1", log))
        .with_tool("a2", Slow("a2", log))
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="x"))
        .with_tool_execution_mode(mode)
        .build()
    )
    result, events = await run(runtime)
    assert result.response == "done"
    if interleaved:
        assert log == ["start:a1", "start:a2", "end:a1", "end:a2"]
    else:
        assert log == ["start:a1", "end:a1", "start:a2", "end:a2"]
    done = [e.id for e in events if isinstance(e, ToolCallDone)]
    assert done == ["c1", "c2"]
    tool_msgs = [m.tool_call_id for m in llm.requests[1].messages if m.role is Role.TOOL]
    assert tool_msgs == ["c1", "c2"]


class Failing(LlmExecutor):
    async def execute(self, request: InferenceRequest) -> StreamResult:
        raise ProviderError("upstream exploded")


async def test_inference_error_emits_error_then_run_finish() -> None:
    result, events = await run(runtime_for(Failing()))
    assert kinds(events) == [
        "RunStart",
        "StepStart",
        "Error",
        "StepEnd",
        "StateSnapshot",
        "RunFinish",
    ]
    error = events[2]
    assert isinstance(error, Error) and "upstream exploded" in error.message
    assert result.termination.type is TerminationKind.ERROR
    assert isinstance(events[-1], RunFinish)
    assert events[-1].termination.type is TerminationKind.ERROR


async def test_max_rounds_stops_before_the_extra_inference() -> None:
    llm = ScriptedLlm([tool_step([ToolCall(f"c{i}", "echo", {"text": "x"})]) for i in range(5)])
    spec = AgentSpec("a").with_model("m").with_max_rounds(2)
    result, events = await run(runtime_for(llm, spec=spec))
    assert len(llm.requests) == 2  # no third inference is paid for
    assert result.termination == TerminationReason.stopped("max_rounds", "exceeded 2 rounds")
    assert isinstance(events[-1], RunFinish)
    assert events[-1].termination.stopped_reason is not None
    assert events[-1].termination.stopped_reason.code == "max_rounds"
    assert kinds(events).count("StepStart") == kinds(events).count("StepEnd") == 2


class BlockGate(ToolGateHook):
    async def run(self, ctx: PhaseContext):
        return InterceptBlock("echo is forbidden") if ctx.tool_name == "echo" else None


class BlockPlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("block")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_tool_gate_hook("block", BlockGate())


async def test_blocked_tool_ends_run_blocked_and_backfills_the_rest() -> None:
    llm = ScriptedLlm(
        [tool_step([ToolCall("c1", "echo", {"text": "x"}), ToolCall("c2", "echo", {})])]
    )
    spec = AgentSpec("a").with_model("m").with_plugin("block")
    result, events = await run(runtime_for(llm, spec=spec, plugins={"block": BlockPlugin()}))
    assert result.termination == TerminationReason.blocked("echo is forbidden")
    done = [e for e in events if isinstance(e, ToolCallDone)]
    assert [d.outcome for d in done] == [ToolCallOutcome.FAILED, ToolCallOutcome.FAILED]
    assert done[0].result.message == "echo is forbidden"
    assert done[1].result.message == "[Tool execution was interrupted]"


class Visits(StateKey[int, int]):
    KEY = "test.visits"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.THREAD

    @classmethod
    def apply(cls, value: int, update: int) -> int:
        return value + update


class CountHook(PhaseHook):
    def __init__(self) -> None:
        self.seen: list[int | None] = []

    async def run(self, ctx: PhaseContext) -> StateCommand:
        self.seen.append(ctx.state(Visits))
        return StateCommand().update(Visits, 1)


class VisitsPlugin(Plugin):
    def __init__(self) -> None:
        self.hook = CountHook()

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("visits")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(Visits, StateKeyOptions(scope=KeyScope.THREAD))
        registrar.register_phase_hook("visits", Phase.RUN_START, self.hook)


async def test_thread_scoped_state_survives_runs_and_a_new_runtime() -> None:
    store = InMemoryStore()
    spec = AgentSpec("a").with_model("m").with_plugin("visits")
    plugin = VisitsPlugin()
    runtime = runtime_for(
        MockLlmExecutor(["one"]), spec=spec, plugins={"visits": plugin}, store=store
    )
    await run(runtime, thread="th")
    await run(runtime, thread="th")
    assert plugin.hook.seen == [None, 1]
    other = VisitsPlugin()
    fresh = runtime_for(MockLlmExecutor(["two"]), spec=spec, plugins={"visits": other}, store=store)
    _, events = await run(fresh, thread="th")
    assert other.hook.seen == [2]
    snap = next(e for e in reversed(events) if isinstance(e, StateSnapshot))
    assert snap.snapshot.extensions["test.visits"] == 3
    messages = await store.load_messages("th")
    assert [m.text() for m in messages if m.role is Role.ASSISTANT] == ["one", "one", "two"]


class ContextHook(PhaseHook):
    async def run(self, ctx: PhaseContext) -> StateCommand:
        cmd = StateCommand()
        cmd.schedule_action(AddContextMessage, ContextMessage.system("hint", "Use metric units."))
        cmd.schedule_action(ExcludeTool, "echo")
        return cmd


class ContextPlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("ctx")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_phase_hook("ctx", Phase.BEFORE_INFERENCE, ContextHook())


async def test_before_inference_actions_shape_the_request() -> None:
    llm = ScriptedLlm([text_step("ok")])
    spec = AgentSpec("a").with_model("m").with_system_prompt("sys").with_plugin("ctx")
    await run(runtime_for(llm, spec=spec, plugins={"ctx": ContextPlugin()}))
    request = llm.requests[0]
    assert [m.text() for m in request.messages[:2]] == ["sys", "Use metric units."]
    assert request.tools == []


async def test_second_run_on_a_busy_thread_is_rejected() -> None:
    gate = asyncio.Event()

    class Waiting(LlmExecutor):
        async def execute(self, request: InferenceRequest) -> StreamResult:
            await gate.wait()
            return text_step("late")

    runtime = runtime_for(Waiting())
    first = asyncio.ensure_future(run(runtime, thread="busy"))
    await asyncio.sleep(0)
    with pytest.raises(ThreadAlreadyRunning):
        await runtime.run(RunRequest("busy", [Message.user("again")]).with_agent_id("a"))
    gate.set()
    result, _ = await first
    assert result.response == "late"


async def test_stream_yields_the_same_events() -> None:
    runtime = runtime_for(MockLlmExecutor(["streamed"]))
    events = [
        e async for e in runtime.stream(RunRequest("s", [Message.user("x")]).with_agent_id("a"))
    ]
    assert kinds(events)[0] == "RunStart" and isinstance(events[-1], RunFinish)
    assert events[-1].response == "streamed"


async def test_truncated_output_is_continued_and_kept() -> None:
    from awaken_contract.contract.content import ContentBlock
    from awaken_contract.contract.inference import StopReason

    cut = StreamResult(
        content=[ContentBlock.text("First half, ")], stop_reason=StopReason.MAX_TOKENS
    )
    llm = ScriptedLlm([cut, text_step("second half.")])
    store = InMemoryStore()
    result, events = await run(runtime_for(llm, store=store))
    assert result.response == "second half."
    assert len(llm.requests) == 2
    retry = llm.requests[1].messages
    assert retry[-2].role is Role.ASSISTANT and retry[-2].text() == "First half, "
    assert retry[-1].role is Role.USER and retry[-1].is_internal
    assert "token limit" in retry[-1].text()
    assert kinds(events).count("InferenceComplete") == 1
    assert kinds(events).count("TextDelta") == 2
    stored = await store.load_messages("t")
    assert [m.text() for m in stored if m.role is Role.ASSISTANT] == [
        "First half, ",
        "second half.",
    ]


async def test_agent_id_is_inferred() -> None:
    store = InMemoryStore()
    runtime = runtime_for(MockLlmExecutor(["only agent"]), store=store)
    sink = VecEventSink()
    result = await runtime.run(RunRequest("inf", [Message.user("hi")]), sink)
    assert result.response == "only agent"
    record = await store.load_run(result.run_id)
    assert record is not None and record.agent_id == "a"


async def test_run_id_rules() -> None:
    from awaken_contract.errors import InvalidResume

    store = InMemoryStore()
    runtime = runtime_for(MockLlmExecutor(["x"]), store=store)
    hinted = await runtime.run(
        RunRequest("ids", [Message.user("a")]).with_agent_id("a").with_run_id("my-run")
    )
    assert hinted.run_id == "my-run"
    with pytest.raises(InvalidResume, match="already exists as a run"):
        await runtime.run(
            RunRequest("ids", [Message.user("b")]).with_agent_id("a").with_run_id("my-run")
        )
    with pytest.raises(InvalidResume, match="does not reference an existing run"):
        await runtime.run(
            RunRequest("ids", [Message.user("c")]).with_agent_id("a").with_continue_run_id("nope")
        )
    without_store = runtime_for(MockLlmExecutor(["x"]))
    with pytest.raises(InvalidResume, match="requires run storage"):
        await without_store.run(
            RunRequest("ids", []).with_agent_id("a").with_continue_run_id("my-run")
        )
    continued = await runtime.run(
        RunRequest("ids", [Message.user("d")]).with_agent_id("a").with_continue_run_id("my-run")
    )
    assert continued.run_id == "my-run"
    record = await store.load_run("my-run")
    assert record is not None and record.steps == 2


async def test_concurrent_runs_on_distinct_threads_do_not_mix() -> None:
    class Echoing(LlmExecutor):
        async def execute(self, request: InferenceRequest) -> StreamResult:
            await asyncio.sleep(0)
            return text_step(f"re: {request.messages[-1].text()}")

    runtime = runtime_for(Echoing())
    sinks = [VecEventSink() for _ in range(50)]
    results = await asyncio.gather(
        *(
            runtime.run(RunRequest(f"c{i}", [Message.user(f"m{i}")]).with_agent_id("a"), sink)
            for i, sink in enumerate(sinks)
        )
    )
    assert [r.response for r in results] == [f"re: m{i}" for i in range(50)]
    for i, sink in enumerate(sinks):
        finish = sink.events[-1]
        assert isinstance(finish, RunFinish) and finish.thread_id == f"c{i}"
        assert finish.response == f"re: m{i}"
