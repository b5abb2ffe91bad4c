"""Immediate phase hooks (the stop plugins'): run in place by the loop, with the same outcome,
events and state as through the phase engine, which still runs them when it must."""

from __future__ import annotations

from typing import Any

import pytest
from awaken_contract.actions import RunLifecycleKey, RunLifecycleUpdate
from awaken_contract.contract.cancellation import CancellationToken
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import ToolResult, tool
from awaken_contract.errors import StateCancelled
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext, Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import MutationBatch, StateCommand
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, tool_step
from awaken_runtime.phase import PhaseRuntime
from awaken_runtime.phase.immediate import ImmediatePhaseHook, run_immediately
from awaken_runtime.plugins.loop_state import loop_state_registrations
from awaken_runtime.policies import MaxRoundsPolicy, StopConditionPlugin
from awaken_runtime.policies.hook import MaxRoundsHook
from awaken_runtime.policies.plugin import MAX_ROUNDS_PLUGIN_ID
from awaken_runtime.policies.state import StopConditionStatsKey
from awaken_runtime.state.store import StateStore


@tool
async def echo(text: str) -> ToolResult:
    """Echo the text."""
    return ToolResult.success("echo", text)


async def _no_op(ctx: PhaseContext) -> StateCommand:
    return StateCommand()


class StepEndObserver(Plugin):
    """A second StepEnd hook: the phase then runs through the engine."""

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("observer")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_phase_hook("observer", Phase.STEP_END, _no_op)


def _looping_runtime(*, observed: bool, stop_plugin: bool = False) -> Any:
    calls = [tool_step([ToolCall(f"c{i}", "echo", {"text": "hi"})]) for i in range(6)]
    spec = AgentSpec("a").with_model("m").with_max_rounds(0 if stop_plugin else 2)
    builder = (
        AgentRuntimeBuilder()
        .with_tool("echo", echo)
        .with_provider("scripted", ScriptedLlm(calls))
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
    )
    if stop_plugin:
        spec = spec.with_hook_filter("stop-condition")
        builder = builder.with_plugin("stop-condition", StopConditionPlugin([MaxRoundsPolicy(2)]))
    if observed:  # (a hook filter keeps only the named plugins' hooks)
        spec = spec.with_hook_filter("observer").with_hook_filter(MAX_ROUNDS_PLUGIN_ID)
        builder = builder.with_plugin("observer", StepEndObserver())
    return builder.with_agent_spec(spec).build()


def _shape(events: list[Any]) -> list[tuple[str, Any]]:
    """Event types in order, with the stop a finishing run reports."""
    return [
        (type(e).__name__, getattr(e, "termination", None))
        for e in events
        if type(e).__name__ not in {"StateSnapshot"}
    ]


@pytest.mark.parametrize("stop_plugin", [False, True], ids=["max_rounds", "stop_condition"])
async def test_a_stop_fires_at_the_same_step_in_place_and_through_the_engine(
    stop_plugin: bool,
) -> None:
    results, shapes = [], []
    for observed in (False, True):
        sink = VecEventSink()
        runtime = _looping_runtime(observed=observed, stop_plugin=stop_plugin)
        result = await runtime.run(RunRequest(f"t-{observed}", [Message.user("go")]), sink)
        results.append((result.steps, result.termination, result.response))
        shapes.append(_shape(sink.events))
    assert results[0] == results[1]
    assert results[0][0] == 2
    assert results[0][1] == TerminationReason.stopped("max_rounds", "exceeded 2 rounds")
    assert shapes[0] == shapes[1]
    assert [name for name, _ in shapes[0]].count("StepEnd") == 2


def _ctx(store: StateStore, token: CancellationToken | None = None) -> PhaseContext:
    return PhaseContext(
        phase=Phase.STEP_END,
        snapshot=store.snapshot(),
        agent_spec=AgentSpec("a"),
        run_identity=PhaseContext.test_default().run_identity,
        cancellation_token=token,
    )


def _engine_at_step(steps: int) -> PhaseRuntime:
    store = StateStore()
    engine = PhaseRuntime(store)
    store.register_keys(loop_state_registrations())
    store.register_key(StopConditionStatsKey)
    store.commit(MutationBatch().update(RunLifecycleKey, RunLifecycleUpdate.start("r")))
    for _ in range(steps):
        store.commit(
            MutationBatch().update(RunLifecycleKey, RunLifecycleUpdate.step_completed_at())
        )
    return engine


async def test_an_immediate_hook_runs_its_updates_as_the_engine_commits_them() -> None:
    hook = MaxRoundsHook(2)
    idle, due = _engine_at_step(1), _engine_at_step(2)
    assert hook.idle(idle.store.snapshot()) and not hook.idle(due.store.snapshot())
    assert (await hook.run(_ctx(idle.store))).is_empty
    command = await hook.run(_ctx(due.store))
    assert command.patch.touched_keys == [StopConditionStatsKey.KEY, RunLifecycleKey.KEY]
    revision = due.store.revision()
    assert run_immediately(due, hook, _ctx(due.store))
    assert due.store.revision() == revision + 1  # one commit, as GATHER makes it
    lifecycle = due.store.read(RunLifecycleKey)
    assert lifecycle is not None and lifecycle.status_reason == "stopped:max_rounds"


async def test_a_busy_engine_leaves_the_phase_to_run_phase() -> None:
    engine = _engine_at_step(2)
    revision = engine.store.revision()
    assert engine._lock.try_acquire()  # another submission holds the engine
    try:
        assert engine.busy
        assert not run_immediately(engine, MaxRoundsHook(2), _ctx(engine.store))
        assert engine.store.revision() == revision  # nothing ran
    finally:
        engine._lock.release()
    assert not engine.busy


async def test_a_cancelled_token_raises_where_run_phase_does() -> None:
    engine = _engine_at_step(2)
    token = CancellationToken()
    token.cancel()

    class Counting(ImmediatePhaseHook):
        ran = 0

        def updates(self, ctx: PhaseContext) -> MutationBatch | None:
            Counting.ran += 1
            return None

    with pytest.raises(StateCancelled):
        run_immediately(engine, Counting(), _ctx(engine.store, token))
    assert Counting.ran == 0
