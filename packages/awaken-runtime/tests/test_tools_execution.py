"""Tool execution: validation, errors, progress, state commands, interception, executors."""

from typing import Any

from awaken_contract.actions import (
    InterceptSetResult,
    ToolCallStatesKey,
    ToolInterceptAction,
)
from awaken_contract.contract.event import (
    ActivityDelta,
    ActivitySnapshot,
    AgentEvent,
    StateSnapshot,
    ToolCallDone,
    ToolCallStreamDelta,
)
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.contract.progress import ProgressStatus
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.suspension import ToolCallOutcome, ToolCallStatus
from awaken_contract.contract.tool import (
    InvalidArguments,
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolExecutionMode,
    ToolOutput,
    ToolResult,
)
from awaken_contract.errors import ExecutionFailed
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
)
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import StateCommand, StateKey
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.execution import (
    ParallelToolExecutor,
    SequentialToolExecutor,
    execute_single_tool,
)


class Strict(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("strict", "strict", "needs n")

    def validate_args(self, args: Any) -> None:
        if not isinstance(args, dict) or not isinstance(args.get("n"), int):
            raise InvalidArguments("n must be an integer")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        if args["n"] < 0:
            raise ExecutionFailed("negative")
        return ToolResult.success("strict", args["n"] * 2)


class Counter(StateKey[int, int]):
    KEY = "test.counter"

    @classmethod
    def apply(cls, value: int, update: int) -> int:
        return value + update


class Bump(Tool):
    """Adds one to the counter and reports what it saw (Exclusive key)."""

    def __init__(self) -> None:
        self.seen: list[int | None] = []

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("bump", "bump", "bump the counter")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolOutput:
        self.seen.append(ctx.state(Counter))
        await ctx.report_progress(ProgressStatus.RUNNING, "bumping", 0.5)
        await ctx.report_activity_delta("log", {"op": "add", "path": "/x", "value": 1})
        await ctx.stream_output("chunk")
        return ToolOutput.with_command(
            ToolResult.success("bump", {"ok": True}), StateCommand().update(Counter, 1)
        )


class CounterPlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("counter")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(Counter)


def build(llm: ScriptedLlm, tools: dict[str, Tool], mode=ToolExecutionMode.SEQUENTIAL, **kw: Any):
    spec = AgentSpec("a").with_model("m")
    builder = AgentRuntimeBuilder().with_provider("llm", llm)
    for plugin_id, plugin in kw.get("plugins", {}).items():
        builder = builder.with_plugin(plugin_id, plugin)
        spec = spec.with_plugin(plugin_id)
    for tool_id, tool in tools.items():
        builder = builder.with_tool(tool_id, tool)
    return (
        builder.with_agent_spec(spec)
        .with_model("m", ModelSpec(id="m", provider="llm", model="x"))
        .with_tool_execution_mode(mode)
        .build()
    )


async def run(runtime: Any) -> tuple[Any, list[AgentEvent]]:
    sink = VecEventSink()
    result = await runtime.run(RunRequest("t", [Message.user("go")]).with_agent_id("a"), sink)
    return result, sink.take()


async def test_invalid_arguments_and_tool_errors_reach_the_model() -> None:
    llm = ScriptedLlm(
        [
            tool_step(
                [
                    ToolCall("c1", "strict", {"n": "x"}),
                    ToolCall("c2", "strict", {"n": -1}),
                    ToolCall("c3", "missing", {}),
                    ToolCall("c4", "strict", {"n": 2}),
                ]
            ),
            text_step("done"),
        ]
    )
    result, events = await run(build(llm, {"strict": Strict()}))
    assert result.termination.type is TerminationKind.NATURAL_END
    done = {e.id: e for e in events if isinstance(e, ToolCallDone)}
    assert done["c1"].result.message == "Invalid arguments: n must be an integer"
    assert done["c2"].result.message == "Execution failed: negative"
    assert done["c3"].result.message == "tool 'missing' not found"
    assert done["c4"].result.data == 4 and done["c4"].outcome is ToolCallOutcome.SUCCEEDED
    tool_texts = [m.text() for m in llm.requests[1].messages if m.role is Role.TOOL]
    assert tool_texts == [
        "Invalid arguments: n must be an integer",
        "Execution failed: negative",
        "tool 'missing' not found",
        "4",
    ]


async def test_sequential_calls_see_each_others_state_and_report_progress() -> None:
    bump = Bump()
    llm = ScriptedLlm(
        [tool_step([ToolCall("b1", "bump", {}), ToolCall("b2", "bump", {})]), text_step("ok")]
    )
    _, events = await run(build(llm, {"bump": bump}, plugins={"counter": CounterPlugin()}))
    assert bump.seen == [None, 1]
    progress = [e for e in events if isinstance(e, ActivitySnapshot)]
    assert progress[0].activity_type == "tool-call-progress"
    assert progress[0].content["status"] == "running"
    assert progress[0].content["node_id"] == "tool_call:b1"
    assert any(isinstance(e, ActivityDelta) and e.patch[0]["op"] == "add" for e in events)
    assert any(isinstance(e, ToolCallStreamDelta) and e.delta == "chunk" for e in events)
    # progress is emitted while the tool runs, before its tool_call_done
    first_progress = events.index(progress[0])
    first_done = next(i for i, e in enumerate(events) if isinstance(e, ToolCallDone))
    assert first_progress < first_done
    snapshot = [e for e in events if isinstance(e, StateSnapshot)][-1]
    assert snapshot.snapshot.extensions["test.counter"] == 2


async def test_parallel_calls_share_one_snapshot_and_conflict_on_exclusive_keys() -> None:
    bump = Bump()
    llm = ScriptedLlm(
        [tool_step([ToolCall("b1", "bump", {}), ToolCall("b2", "bump", {})]), text_step("ok")]
    )
    runtime = build(
        llm,
        {"bump": bump},
        ToolExecutionMode.PARALLEL_STREAMING,
        plugins={"counter": CounterPlugin()},
    )
    result, _ = await run(runtime)
    assert bump.seen == [None, None]
    assert result.termination.type is TerminationKind.ERROR
    assert "parallel merge conflict on exclusive key: test.counter" in result.termination.message


class ShortCircuit(PhaseHook):
    async def run(self, ctx: PhaseContext) -> StateCommand:
        cmd = StateCommand()
        if ctx.tool_name == "strict":
            cmd.schedule_action(
                ToolInterceptAction, InterceptSetResult(ToolResult.success("strict", "cached"))
            )
        return cmd


class CachePlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("cache")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_phase_hook("cache", Phase.BEFORE_TOOL_EXECUTE, ShortCircuit())


async def test_before_tool_execute_intercept_sets_the_result() -> None:
    llm = ScriptedLlm([tool_step([ToolCall("c1", "strict", {"n": 1})]), text_step("ok")])
    _, events = await run(build(llm, {"strict": Strict()}, plugins={"cache": CachePlugin()}))
    done = next(e for e in events if isinstance(e, ToolCallDone))
    assert done.result.data == "cached"
    snapshot = next(e for e in events if isinstance(e, StateSnapshot))
    states = snapshot.snapshot.extensions[ToolCallStatesKey.KEY]["calls"]
    assert states["c1"]["status"] == ToolCallStatus.SUCCEEDED.value


async def test_executors_directly() -> None:
    calls = [ToolCall("x", "strict", {"n": 1}), ToolCall("y", "strict", {"n": 2})]
    ctx = ToolCallContext.test_default()
    tools = {"strict": Strict()}
    sequential = await SequentialToolExecutor().execute(tools, calls, ctx)
    parallel = await ParallelToolExecutor.batch_approval().execute(tools, calls, ctx)
    assert [r.result.data for r in sequential] == [r.result.data for r in parallel] == [2, 4]
    assert SequentialToolExecutor().requires_incremental_state()
    assert not ParallelToolExecutor().requires_incremental_state()
    assert ParallelToolExecutor.streaming().name() == "parallel_streaming"
    output = await execute_single_tool(tools, ToolCall("z", "strict", None), ctx)
    assert output.result.is_error


class AskFirst(Tool):
    """Suspends itself until resumed; then uses the decision."""

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("ask", "ask", "asks the user")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        if ctx.resume_input is None:
            from awaken_contract.contract.suspension import SuspendTicket, Suspension

            ticket = SuspendTicket(suspension=Suspension(id=f"q-{ctx.call_id}", action="ask"))
            return ToolResult.suspended_with("ask", "need an answer", ticket)
        return ToolResult.success("ask", {"answer": ctx.resume_input.result})


async def test_tool_suspension_backfills_later_calls_and_states_follow_transitions() -> None:
    import asyncio

    from awaken_contract.contract.event import RunFinish
    from awaken_contract.contract.suspension import ToolCallResume

    llm = ScriptedLlm(
        [
            tool_step([ToolCall("a1", "ask", {}), ToolCall("s1", "strict", {"n": 1})]),
            text_step("thanks"),
        ]
    )
    runtime = build(llm, {"ask": AskFirst(), "strict": Strict()})
    sink = VecEventSink()
    task = asyncio.ensure_future(
        runtime.run(RunRequest("q", [Message.user("go")]).with_agent_id("a"), sink)
    )
    for _ in range(500):
        if any(isinstance(e, RunFinish) for e in sink.events):
            break
        await asyncio.sleep(0)
    done = {e.id: e for e in sink.events if isinstance(e, ToolCallDone)}
    assert done["a1"].outcome is ToolCallOutcome.SUSPENDED
    assert done["s1"].result.message == "[Tool execution was interrupted]"
    parked = [e for e in sink.events if isinstance(e, StateSnapshot)][-1]
    calls = parked.snapshot.extensions[ToolCallStatesKey.KEY]["calls"]
    assert calls["a1"]["status"] == "suspended" and calls["s1"]["status"] == "failed"
    assert calls["a1"]["suspension_id"] == "q-a1"

    # a decision for a call that is not suspended is ignored; the real one resumes
    assert runtime.send_decision("q", "s1", ToolCallResume.resume("ignored"))
    assert runtime.send_decision("q", "q-a1", ToolCallResume.resume("blue"))
    result = await asyncio.wait_for(task, 10)
    assert result.response == "thanks"
    tool_texts = [m.text() for m in llm.requests[1].messages if m.role is Role.TOOL]
    assert tool_texts == ['{"answer":"blue"}', "[Tool execution was interrupted]"]


async def test_decorated_function_tools_run_in_the_loop() -> None:
    from awaken_contract.contract.tool import tool

    @tool
    async def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    descriptor = add.descriptor()
    llm = ScriptedLlm(
        [
            tool_step(
                [
                    ToolCall("ok", descriptor.id, {"a": 2, "b": 3}),
                    ToolCall("bad", descriptor.id, {"a": "two"}),
                ]
            ),
            text_step("5"),
        ]
    )
    _, events = await run(build(llm, {descriptor.id: add}))
    done = {e.id: e for e in events if isinstance(e, ToolCallDone)}
    assert done["ok"].outcome is ToolCallOutcome.SUCCEEDED and done["ok"].result.data == 5
    assert done["bad"].outcome is ToolCallOutcome.FAILED
    assert (done["bad"].result.message or "").startswith("Invalid arguments")
