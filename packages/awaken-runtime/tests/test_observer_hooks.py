"""Observer hooks (``PhaseHook.observer`` / ``ObserverHook``): a run whose hooks only observe sees
the same contexts, emits the same events and ends the same way as with plain hooks returning
empty commands — also when an observer raises — while the loop skips command collection and
the tool-interception path; an observer that returns something is a typed error."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from awaken_contract.actions import InterceptSetResult, ToolInterceptAction
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import ToolExecutionMode, ToolResult
from awaken_contract.errors import InvalidObserverHook
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    ObserverHook,
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
)
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import StateCommand
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.phase.engine import PhaseRuntime
from awaken_runtime.phase.immediate import ObservingPhase

from .test_tools_execution import Strict

OBSERVED: list[Phase] = [p for p in Phase if p is not Phase.TOOL_GATE]


class Boom(Exception):
    """What a failing hook raises."""


def _view(ctx: PhaseContext) -> tuple[Any, ...]:
    """What a hook can see of its context (the snapshot by revision)."""
    result = ctx.tool_result
    return (
        ctx.phase,
        ctx.snapshot.revision,
        len(ctx.messages),
        ctx.tool_name,
        ctx.tool_call_id,
        ctx.tool_args,
        ctx.tool_kind,
        None if result is None else msgspec.to_builtins(result),
        ctx.inference_model,
        ctx.llm_response is not None,
        ctx.inference_error is not None,
        None if ctx.termination is None else ctx.termination.type,
        ctx.cancellation_token is not None,
        len(ctx.tools),
    )


class Recorder(Plugin):
    """Records what it sees at ``phases``, as observers or as plain hooks; raises at
    ``fail_at``; ``returns`` makes the observer return that."""

    def __init__(
        self,
        *,
        observe: bool,
        phases: list[Phase] = OBSERVED,
        fail_at: Phase | None = None,
        name: str = "rec",
        returns: object = None,
    ) -> None:
        self.observe = observe
        self.phases = phases
        self.fail_at = fail_at
        self.name = name
        self.returns = returns
        self.seen: list[tuple[Any, ...]] = []

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(self.name)

    def _look(self, ctx: PhaseContext) -> Any:
        self.seen.append(_view(ctx))
        if ctx.phase is self.fail_at:
            raise Boom(f"{self.name} failed at {ctx.phase.value}")
        return self.returns

    async def _hook(self, ctx: PhaseContext) -> StateCommand:
        self._look(ctx)
        return StateCommand()

    def register(self, registrar: PluginRegistrar) -> None:
        hook: PhaseHook = (
            PhaseHook.observer(self._look) if self.observe else PhaseHook.of(self._hook)
        )
        for phase in self.phases:
            registrar.register_phase_hook(self.name, phase, hook)


class InterceptAtAfterInference(Plugin):
    """Queues a SetResult intercept for the next tool call (a queued action at the observers'
    BeforeToolExecute)."""

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("cache")

    async def _hook(self, ctx: PhaseContext) -> StateCommand:
        command = StateCommand()
        if ctx.llm_response is not None and ctx.llm_response.tool_calls:
            command.schedule_action(
                ToolInterceptAction, InterceptSetResult(ToolResult.success("strict", "cached"))
            )
        return command

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_phase_hook("cache", Phase.AFTER_INFERENCE, self._hook)


def _build(plugins: list[Plugin], mode: ToolExecutionMode = ToolExecutionMode.SEQUENTIAL) -> Any:
    llm = ScriptedLlm(
        [
            tool_step([ToolCall("c1", "strict", {"n": 1}), ToolCall("c2", "strict", {"n": 2})]),
            text_step("done"),
        ]
    )
    spec = AgentSpec("a").with_model("m")
    builder = (
        AgentRuntimeBuilder()
        .with_tool("strict", Strict())
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
        .with_tool_execution_mode(mode)
    )
    for plugin in plugins:
        name = plugin.descriptor().name
        spec = spec.with_plugin(name)
        builder = builder.with_plugin(name, plugin)
    return builder.with_agent_spec(spec).build()


async def _run(plugins: list[Plugin], mode: ToolExecutionMode) -> tuple[Any, list[Any]]:
    sink = VecEventSink()
    try:
        result: Any = await _build(plugins, mode).run(
            RunRequest("t1", [Message.user("go")]).with_agent_id("a"), sink
        )
    except Exception as exc:  # what the run raised, compared as (type, message)
        result = (type(exc), str(exc))
    return result, [_scrub(msgspec.to_builtins(e)) for e in sink.events]


_VARYING = {"run_id", "timestamp", "duration_ms", "message_id", "updated_at", "created_at"}


def _scrub(value: Any) -> Any:
    """``value`` without the ids and times that differ between two runs."""
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if k not in _VARYING}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def _outcome(result: Any) -> Any:
    if isinstance(result, tuple):
        return result
    return (result.termination.type, result.response, result.steps)


MODES = [ToolExecutionMode.SEQUENTIAL, ToolExecutionMode.PARALLEL_BATCH_APPROVAL]


@pytest.mark.parametrize("mode", MODES)
async def test_observers_see_what_plain_hooks_see(mode: ToolExecutionMode) -> None:
    plain, observer = Recorder(observe=False), Recorder(observe=True)
    plain_result, plain_events = await _run([plain], mode)
    observed_result, observed_events = await _run([observer], mode)
    assert observer.seen == plain.seen
    assert {v[0] for v in observer.seen} == set(OBSERVED)
    assert observed_events == plain_events
    assert _outcome(observed_result) == _outcome(plain_result)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "fail_at",
    [
        Phase.RUN_START,
        Phase.STEP_START,
        Phase.AFTER_INFERENCE,
        Phase.BEFORE_TOOL_EXECUTE,
        Phase.AFTER_TOOL_EXECUTE,
        Phase.STEP_END,
        Phase.RUN_END,
    ],
)
async def test_a_raising_observer_fails_the_run_as_a_raising_hook(
    mode: ToolExecutionMode, fail_at: Phase
) -> None:
    plain = Recorder(observe=False, fail_at=fail_at)
    observer = Recorder(observe=True, fail_at=fail_at)
    plain_result, plain_events = await _run([plain], mode)
    observed_result, observed_events = await _run([observer], mode)
    assert observer.seen == plain.seen
    assert observed_events == plain_events
    assert _outcome(observed_result) == _outcome(plain_result)


async def test_a_raising_hook_today_errors_the_run_and_stops_later_hooks() -> None:
    """The behaviour the observers keep: a hook failing at AfterToolExecute ends the run with
    ``error`` before the call's ``tool_call_done`` and the next observers of the phase."""
    first = Recorder(observe=True, fail_at=Phase.AFTER_TOOL_EXECUTE, name="first")
    second = Recorder(observe=True, name="second")
    result, events = await _run([first, second], ToolExecutionMode.SEQUENTIAL)
    assert _outcome(result)[0].value == "error"
    assert "first failed at after_tool_execute" in str(result.termination)
    assert not any(e.get("event_type") == "tool_call_done" for e in events)
    assert [v[0] for v in second.seen][-2:] == [Phase.BEFORE_TOOL_EXECUTE, Phase.RUN_END]


async def test_an_observer_returning_something_is_a_typed_error() -> None:
    result, _ = await _run(
        [Recorder(observe=True, phases=[Phase.STEP_START], returns=StateCommand())],
        ToolExecutionMode.SEQUENTIAL,
    )
    assert _outcome(result)[0].value == "error"
    assert "returned StateCommand (observers return None)" in str(result.termination)
    with pytest.raises(InvalidObserverHook, match="returned int"):
        await PhaseHook.observer(lambda ctx: 1).run(PhaseContext.test_default())  # type: ignore[arg-type]


def test_an_async_function_is_rejected_when_wrapped() -> None:
    async def hook(ctx: PhaseContext) -> None:
        return None

    with pytest.raises(InvalidObserverHook, match="must be a plain function"):
        PhaseHook.observer(hook)  # type: ignore[arg-type]
    with pytest.raises(InvalidObserverHook):
        PhaseHook.observer(PhaseHook.of(hook))  # type: ignore[arg-type]
    assert issubclass(InvalidObserverHook, TypeError)


class Counted(ObserverHook):
    def __init__(self) -> None:
        self.calls = 0

    def observe(self, ctx: PhaseContext) -> None:
        self.calls += 1


class CountingPlugin(Plugin):
    def __init__(self, hook: ObserverHook) -> None:
        self.hook = hook

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("counting")

    def register(self, registrar: PluginRegistrar) -> None:
        for phase in (Phase.STEP_START, Phase.BEFORE_TOOL_EXECUTE, Phase.AFTER_TOOL_EXECUTE):
            registrar.register_phase_hook("counting", phase, self.hook)


@pytest.mark.parametrize("mode", MODES)
async def test_an_observer_hook_subclass_is_called_in_place(mode: ToolExecutionMode) -> None:
    counted = Counted()
    result, _ = await _run([CountingPlugin(counted)], mode)
    assert result.response == "done"
    assert counted.calls == 2 + 2 + 2  # two steps, two tool calls
    assert not counted.waits


async def test_an_observer_hook_subclass_returning_a_command_is_a_typed_error() -> None:
    class Sneaky(ObserverHook):
        def observe(self, ctx: PhaseContext) -> None:
            return StateCommand()  # type: ignore[return-value]

    result, _ = await _run([CountingPlugin(Sneaky())], ToolExecutionMode.SEQUENTIAL)
    assert _outcome(result)[0].value == "error"
    assert "returned StateCommand" in str(result.termination)
    with pytest.raises(InvalidObserverHook):
        await Sneaky().run(PhaseContext.test_default())


def _forbid(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the run if the loop collects commands or awaits the tool interception."""

    async def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("observers took the engine path")

    monkeypatch.setattr(PhaseRuntime, "collect_commands", forbidden)
    monkeypatch.setattr(PhaseRuntime, "run_phase", forbidden)
    for name in ("intercept", "before_execute"):
        monkeypatch.setattr(f"awaken_runtime.execution.pipeline.{name}", forbidden)


@pytest.mark.parametrize("mode", MODES)
async def test_observer_phases_skip_the_engine_and_the_interception(
    monkeypatch: pytest.MonkeyPatch, mode: ToolExecutionMode
) -> None:
    # (StepEnd also runs the default max-rounds hook, so its phase goes through the engine)
    phases: list[Phase] = [p for p in OBSERVED if p is not Phase.STEP_END]
    observer = Recorder(observe=True, phases=phases)
    runtime = _build([observer], mode)
    agent = runtime.resolver.resolve("a")
    observing = agent.observing_phase_hooks()
    assert set(observing) == set(phases)
    assert all(isinstance(o, ObservingPhase) for o in observing.values())
    _forbid(monkeypatch)
    result = await runtime.run(RunRequest("t1", [Message.user("go")]).with_agent_id("a"))
    assert result.response == "done"
    assert len([v for v in observer.seen if v[0] is Phase.BEFORE_TOOL_EXECUTE]) == 2


async def test_an_observer_next_to_a_plain_hook_runs_through_the_engine_in_order() -> None:
    order: list[str] = []

    async def plain(ctx: PhaseContext) -> StateCommand:
        order.append("plain")
        return StateCommand()

    class Both(Plugin):
        def descriptor(self) -> PluginDescriptor:
            return PluginDescriptor("both")

        def register(self, registrar: PluginRegistrar) -> None:
            registrar.register_phase_hook(
                "both", Phase.STEP_START, PhaseHook.observer(lambda ctx: order.append("obs"))
            )
            registrar.register_phase_hook("both", Phase.STEP_START, plain)

    runtime = _build([Both()])
    assert Phase.STEP_START not in runtime.resolver.resolve("a").observing_phase_hooks()
    await runtime.run(RunRequest("t1", [Message.user("go")]).with_agent_id("a"))
    assert order == ["obs", "plain", "obs", "plain"]


@pytest.mark.parametrize("mode", MODES)
async def test_a_queued_intercept_still_applies_with_observers(mode: ToolExecutionMode) -> None:
    observer = Recorder(observe=True, phases=[Phase.BEFORE_TOOL_EXECUTE])
    _, events = await _run([InterceptAtAfterInference(), observer], mode)
    done = [e for e in events if e.get("event_type") == "tool_call_done"]
    assert done[0]["result"]["data"] == "cached"
    assert len(observer.seen) == 2
