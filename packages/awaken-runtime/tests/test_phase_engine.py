"""PhaseRuntime: GATHER (fast path and Exclusive fallback), EXECUTE cascades, effects."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import msgspec
import pytest
from awaken_contract.contract.cancellation import CancellationToken
from awaken_contract.errors import (
    ParallelMergeConflict,
    PhaseRunLoopExceeded,
    StateCancelled,
    UnknownEffectHandler,
    UnknownScheduledActionHandler,
)
from awaken_contract.model import (
    EffectSpec,
    FailedScheduledActions,
    PendingScheduledActions,
    Phase,
    ScheduledActionHandler,
    ScheduledActionSpec,
    TypedEffectHandler,
)
from awaken_contract.plugin import (
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
)
from awaken_contract.state import MergeStrategy, Snapshot, StateCommand, StateKey
from awaken_runtime.phase import PhaseRuntime
from awaken_runtime.plugins import ExecutionEnv
from awaken_runtime.state import StateStore
from hypothesis import given, settings
from hypothesis import strategies as st

# --------------------------------------------------------------------------- fixtures


class Owner(StateKey[str, str]):
    """Exclusive: two parallel writers conflict."""

    KEY = "owner"


class Trail(StateKey[list[str], str]):
    """Exclusive append-only list."""

    KEY = "trail"

    @classmethod
    def apply(cls, value: list[str], update: str) -> list[str]:
        return [*value, update]


class Hits(StateKey[int, int]):
    KEY = "hits"
    MERGE = MergeStrategy.COMMUTATIVE

    @classmethod
    def apply(cls, value: int, update: int) -> int:
        return value + update


class Calls:
    """Records hook invocations (which snapshot revision each saw)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []


class AppendHook(PhaseHook):
    def __init__(self, name: str, calls: Calls, *, hits: int = 0) -> None:
        self.name, self.calls, self.hits = name, calls, hits

    async def run(self, ctx: PhaseContext) -> StateCommand:
        self.calls.seen.append((self.name, ctx.snapshot.revision))
        trail = ctx.state(Trail)
        cmd = StateCommand().update(Trail, f"{self.name}@{len(trail or [])}")
        if self.hits:
            cmd.update(Hits, self.hits)
        return cmd


class HitHook(PhaseHook):
    def __init__(self, n: int) -> None:
        self.n = n

    async def run(self, ctx: PhaseContext) -> StateCommand:
        return StateCommand().update(Hits, self.n)


class FnPlugin(Plugin):
    """A test plugin assembled from callables."""

    def __init__(self, name: str, setup: Any) -> None:
        self.name, self.setup = name, setup

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(self.name)

    def register(self, registrar: PluginRegistrar) -> None:
        self.setup(registrar)


def _keys(r: PluginRegistrar) -> None:
    r.register_key(Owner)
    r.register_key(Trail)
    r.register_key(Hits)


def _setup(*plugins: Plugin) -> tuple[StateStore, PhaseRuntime, ExecutionEnv]:
    env = ExecutionEnv.from_plugins([FnPlugin("keys", _keys), *plugins])
    store = StateStore()
    runtime = PhaseRuntime(store)
    store.register_keys(env.key_registrations)
    return store, runtime, env


def _hook_plugin(name: str, phase: Phase, *hooks: PhaseHook) -> FnPlugin:
    def setup(r: PluginRegistrar) -> None:
        for hook in hooks:
            r.register_phase_hook(name, phase, hook)

    return FnPlugin(name, setup)


def _ctx(phase: Phase = Phase.STEP_START, **kw: Any) -> PhaseContext:
    return PhaseContext.test_default(phase).replace(**kw)


# --------------------------------------------------------------------------- GATHER


async def test_no_hooks_is_a_no_op() -> None:
    store, runtime, env = _setup()
    report = await runtime.run_phase(env, _ctx())
    assert store.revision() == 0
    assert report.rounds == 1 and report.processed_scheduled_actions == 0


async def test_parallel_hooks_see_one_snapshot_and_commit_once() -> None:
    calls = Calls()
    store, runtime, env = _setup(
        _hook_plugin("a", Phase.STEP_START, HitHook(1), HitHook(2)),
        _hook_plugin("b", Phase.STEP_START, AppendHook("b", calls, hits=4)),
    )
    await runtime.run_phase(env, _ctx())
    assert store.revision() == 1
    assert store.read(Hits) == 7
    assert store.read(Trail) == ["b@0"]
    assert calls.seen == [("b", 0)]


class EmptyHook(PhaseHook):
    """Returns an empty command: untouched (``StateCommand()``) or with its parts made."""

    def __init__(self, touched: bool) -> None:
        self.touched = touched

    async def run(self, ctx: PhaseContext) -> StateCommand:
        command = StateCommand()
        if self.touched:
            assert command.patch.ops == [] and command.scheduled_actions == []
        return command


@pytest.mark.parametrize("touched", [False, True])
async def test_empty_commands_are_skipped_and_the_others_commit_once(touched: bool) -> None:
    assert StateCommand().raw_patch is StateCommand().raw_actions is None
    alone_store, alone, alone_env = _setup(_hook_plugin("e", Phase.STEP_START, EmptyHook(touched)))
    await alone.run_phase(alone_env, _ctx())
    assert alone_store.revision() == 0  # one hook, nothing to commit
    store, runtime, env = _setup(
        _hook_plugin("e", Phase.STEP_START, EmptyHook(touched), HitHook(2), EmptyHook(touched)),
        _hook_plugin("f", Phase.STEP_START, EmptyHook(not touched), HitHook(3)),
    )
    await runtime.run_phase(env, _ctx())
    assert store.revision() == 1 and store.read(Hits) == 5
    merged = await runtime.collect_commands(env, _ctx())
    assert merged.raw_patch is not None and [op[1] for op in merged.patch.ops] == ["hits"] * 2
    assert merged.base_revision == 1


async def test_exclusive_conflict_falls_back_to_serial_rerun() -> None:
    calls = Calls()
    store, runtime, env = _setup(
        _hook_plugin(
            "p",
            Phase.AFTER_INFERENCE,
            AppendHook("first", calls, hits=1),
            AppendHook("second", calls, hits=10),
            HitHook(100),
            AppendHook("third", calls),
        )
    )
    await runtime.run_phase(env, _ctx(Phase.AFTER_INFERENCE))
    # first + HitHook commit as the compatible batch; second and third re-run serially, each
    # on a fresh snapshot that includes the earlier commits.
    assert store.read(Trail) == ["first@0", "second@1", "third@2"]
    assert store.read(Hits) == 111
    assert store.revision() == 3
    assert calls.seen == [
        ("first", 0),
        ("second", 0),
        ("third", 0),
        ("second", 1),
        ("third", 2),
    ]


async def test_commutative_overlap_never_defers() -> None:
    store, runtime, env = _setup(
        _hook_plugin("p", Phase.STEP_END, HitHook(1), HitHook(2), HitHook(3))
    )
    await runtime.run_phase(env, _ctx(Phase.STEP_END))
    assert store.read(Hits) == 6 and store.revision() == 1


async def test_collect_commands_merges_without_commit_and_has_no_fallback() -> None:
    calls = Calls()
    store, runtime, env = _setup(_hook_plugin("p", Phase.BEFORE_INFERENCE, HitHook(1), HitHook(2)))
    merged = await runtime.collect_commands(env, _ctx(Phase.BEFORE_INFERENCE))
    assert store.revision() == 0
    assert merged.patch.base_revision == 0
    await runtime.submit_command(env, merged)
    assert store.read(Hits) == 3

    _, conflicting_runtime, conflicting_env = _setup(
        _hook_plugin("p", Phase.BEFORE_INFERENCE, AppendHook("a", calls), AppendHook("b", calls))
    )
    with pytest.raises(ParallelMergeConflict):
        await conflicting_runtime.collect_commands(conflicting_env, _ctx(Phase.BEFORE_INFERENCE))


async def test_hook_filter_of_the_agent_spec_applies() -> None:
    store, runtime, env = _setup(
        _hook_plugin("on", Phase.STEP_START, HitHook(1)),
        _hook_plugin("off", Phase.STEP_START, HitHook(100)),
    )
    ctx = _ctx()
    ctx = ctx.replace(agent_spec=ctx.agent_spec.with_hook_filter("on"))
    await runtime.run_phase(env, ctx)
    assert store.read(Hits) == 1


async def test_hook_error_aborts_the_phase() -> None:
    class Broken(PhaseHook):
        async def run(self, ctx: PhaseContext) -> StateCommand:
            raise RuntimeError("hook exploded")

    store, runtime, env = _setup(_hook_plugin("p", Phase.STEP_START, HitHook(1), Broken()))
    with pytest.raises(RuntimeError, match="hook exploded"):
        await runtime.run_phase(env, _ctx())
    assert store.revision() == 0


async def test_cancelled_token_raises_state_cancelled_before_hooks() -> None:
    store, runtime, env = _setup(_hook_plugin("p", Phase.STEP_START, HitHook(1)))
    token = CancellationToken()
    token.cancel()
    with pytest.raises(StateCancelled) as err:
        await runtime.run_phase(env, _ctx(cancellation_token=token))
    assert str(err.value) == "operation cancelled"
    assert store.revision() == 0


async def test_cancellation_between_gather_and_execute() -> None:
    token = CancellationToken()

    class CancelHook(PhaseHook):
        async def run(self, ctx: PhaseContext) -> StateCommand:
            token.cancel()
            return StateCommand().update(Hits, 1)

    store, runtime, env = _setup(_hook_plugin("p", Phase.STEP_START, CancelHook()))
    with pytest.raises(StateCancelled):
        await runtime.run_phase(env, _ctx(cancellation_token=token))
    assert store.read(Hits) == 1  # GATHER committed, EXECUTE did not run


# --------------------------------------------------------------------------- EXECUTE


class Bump(ScheduledActionSpec[int]):
    KEY = "test.bump"
    PHASE = Phase.BEFORE_INFERENCE


class Later(ScheduledActionSpec[str]):
    KEY = "test.later"
    PHASE = Phase.STEP_END


class BumpHandler(ScheduledActionHandler[int]):
    """Adds the payload to Hits; a positive payload schedules payload-1 (a cascade)."""

    def __init__(self) -> None:
        self.snapshots: list[int] = []

    async def handle(self, payload: int, snapshot: Snapshot) -> StateCommand:
        self.snapshots.append(snapshot.revision)
        if payload < 0:
            raise ValueError(f"negative bump {payload}")
        cmd = StateCommand().update(Hits, payload)
        if payload > 0:
            cmd.schedule_action(Bump, payload - 1)
        return cmd


class LaterHandler(ScheduledActionHandler[str]):
    async def handle(self, payload: str, snapshot: Snapshot) -> StateCommand:
        return StateCommand().update(Trail, payload)


class Forever(ScheduledActionSpec[None]):
    KEY = "test.forever"
    PHASE = Phase.BEFORE_INFERENCE


class ForeverHandler(ScheduledActionHandler[None]):
    async def handle(self, payload: None, snapshot: Snapshot) -> StateCommand:
        return StateCommand().schedule_action(Forever, None)


class ScheduleHook(PhaseHook):
    def __init__(self, *actions: tuple[type[ScheduledActionSpec[Any]], Any]) -> None:
        self.actions = actions

    async def run(self, ctx: PhaseContext) -> StateCommand:
        cmd = StateCommand()
        for spec, payload in self.actions:
            cmd.schedule_action(spec, payload)
        return cmd


def _action_plugin(bump: BumpHandler | None = None) -> FnPlugin:
    def setup(r: PluginRegistrar) -> None:
        r.register_scheduled_action(Bump, bump or BumpHandler())
        r.register_scheduled_action(Later, LaterHandler())
        r.register_scheduled_action(Forever, ForeverHandler())

    return FnPlugin("actions", setup)


async def test_actions_cascade_within_the_phase_until_convergence() -> None:
    handler = BumpHandler()
    store, runtime, env = _setup(
        _action_plugin(handler),
        _hook_plugin("h", Phase.BEFORE_INFERENCE, ScheduleHook((Bump, 3))),
    )
    report = await runtime.run_phase(env, _ctx(Phase.BEFORE_INFERENCE))
    assert store.read(Hits) == 3 + 2 + 1 + 0
    assert report.processed_scheduled_actions == 4
    assert report.rounds == 5  # 4 working rounds + the converged check
    assert store.read(PendingScheduledActions) == []
    assert store.read(FailedScheduledActions) is None
    # Every handler ran on a fresh snapshot.
    assert handler.snapshots == sorted(handler.snapshots) and len(set(handler.snapshots)) == 4


async def test_sixteen_round_limit_raises_phase_run_loop_exceeded() -> None:
    _store, runtime, env = _setup(
        _action_plugin(), _hook_plugin("h", Phase.BEFORE_INFERENCE, ScheduleHook((Forever, None)))
    )
    with pytest.raises(PhaseRunLoopExceeded) as err:
        await runtime.run_phase(env, _ctx(Phase.BEFORE_INFERENCE))
    assert err.value.max_rounds == 16
    assert str(err.value) == "phase before_inference did not converge after 16 rounds"


async def test_fifteen_cascading_rounds_still_converge() -> None:
    _store, runtime, env = _setup(
        _action_plugin(), _hook_plugin("h", Phase.BEFORE_INFERENCE, ScheduleHook((Bump, 14)))
    )
    report = await runtime.run_phase(env, _ctx(Phase.BEFORE_INFERENCE))
    assert report.processed_scheduled_actions == 15 and report.rounds == 16
    _store2, runtime2, env2 = _setup(
        _action_plugin(), _hook_plugin("h", Phase.BEFORE_INFERENCE, ScheduleHook((Bump, 15)))
    )
    with pytest.raises(PhaseRunLoopExceeded):
        await runtime2.run_phase(env2, _ctx(Phase.BEFORE_INFERENCE))


async def test_failed_action_is_dead_lettered_and_not_retried() -> None:
    handler = BumpHandler()
    store, runtime, env = _setup(
        _action_plugin(handler),
        _hook_plugin("h", Phase.BEFORE_INFERENCE, ScheduleHook((Bump, -1), (Bump, 0))),
    )
    report = await runtime.run_phase(env, _ctx(Phase.BEFORE_INFERENCE))
    assert report.failed_scheduled_actions == 1 and report.processed_scheduled_actions == 1
    failed = store.read(FailedScheduledActions) or []
    assert len(failed) == 1
    assert failed[0].action.key == "test.bump" and failed[0].action.payload == -1
    assert failed[0].error == "negative bump -1"
    assert store.read(PendingScheduledActions) == []
    again = await runtime.run_execute_loop(env, _ctx(Phase.BEFORE_INFERENCE))
    assert again.failed_scheduled_actions == 0
    assert len(handler.snapshots) == 2  # never retried


async def test_undecodable_payload_is_dead_lettered() -> None:
    store, runtime, env = _setup(_action_plugin())
    from awaken_contract.model import ScheduledAction

    cmd = StateCommand()
    cmd.scheduled_actions.append(ScheduledAction(Phase.BEFORE_INFERENCE, Bump.KEY, "not-an-int"))
    await runtime.submit_command(env, cmd)
    report = await runtime.run_phase(env, _ctx(Phase.BEFORE_INFERENCE))
    assert report.failed_scheduled_actions == 1
    (failed,) = store.read(FailedScheduledActions) or []
    assert "failed to decode key test.bump" in failed.error


async def test_action_whose_command_cannot_be_submitted_is_dead_lettered() -> None:
    class Stray(StateKey[int, int]):
        KEY = "stray.unregistered"

    class StrayAction(ScheduledActionSpec[int]):
        KEY = "test.stray"
        PHASE = Phase.STEP_START

    class StrayHandler(ScheduledActionHandler[int]):
        async def handle(self, payload: int, snapshot: Snapshot) -> StateCommand:
            return StateCommand().update(Stray, payload)

    def setup(r: PluginRegistrar) -> None:
        r.register_scheduled_action(StrayAction, StrayHandler())

    store, runtime, env = _setup(
        FnPlugin("stray", setup),
        _hook_plugin("h", Phase.STEP_START, ScheduleHook((StrayAction, 1))),
    )
    report = await runtime.run_phase(env, _ctx())
    assert report.failed_scheduled_actions == 1
    (failed,) = store.read(FailedScheduledActions) or []
    assert failed.error == "failed to submit action command: unknown key: stray.unregistered"


async def test_cross_phase_actions_stay_queued_until_their_phase() -> None:
    store, runtime, env = _setup(
        _action_plugin(), _hook_plugin("h", Phase.BEFORE_INFERENCE, ScheduleHook((Later, "done")))
    )
    report = await runtime.run_phase(env, _ctx(Phase.BEFORE_INFERENCE))
    assert report.skipped_scheduled_actions == 1
    queued = store.read(PendingScheduledActions)
    assert queued is not None and len(queued) == 1
    report = await runtime.run_phase(env, _ctx(Phase.STEP_END))
    assert report.processed_scheduled_actions == 1
    assert store.read(Trail) == ["done"]
    assert store.read(PendingScheduledActions) == []


async def test_submit_rejects_unknown_action_handler_and_commits_nothing() -> None:
    store, runtime, env = _setup()
    cmd = StateCommand().update(Hits, 1).schedule_action(Bump, 1)
    with pytest.raises(UnknownScheduledActionHandler) as err:
        await runtime.submit_command(env, cmd)
    assert str(err.value) == "no scheduled action handler registered for test.bump"
    assert store.revision() == 0


async def test_envelope_ids_are_monotonic_from_one() -> None:
    store, runtime, env = _setup(_action_plugin())
    await runtime.submit_command(env, StateCommand().schedule_action(Later, "a"))
    await runtime.submit_command(env, StateCommand().schedule_action(Later, "b"))
    queue = store.read(PendingScheduledActions)
    assert queue is not None and [e.id for e in queue] == [1, 2]
    assert msgspec.to_builtins(queue[0]) == {
        "id": 1,
        "action": {"phase": "step_end", "key": "test.later", "payload": "a"},
    }


# --------------------------------------------------------------------------- effects


class AuditPayload(msgspec.Struct):
    action: str


class AuditEffect(EffectSpec[AuditPayload]):
    KEY = "audit.record"


class AuditEffectHandler(TypedEffectHandler[AuditPayload]):
    def __init__(self) -> None:
        self.seen: list[tuple[str, int | None]] = []

    async def handle_typed(self, payload: AuditPayload, snapshot: Snapshot) -> None:
        if payload.action == "fail":
            raise RuntimeError("webhook down")
        self.seen.append((payload.action, snapshot.get(Hits)))


def _effect_plugin(handler: AuditEffectHandler) -> FnPlugin:
    return FnPlugin("audit", lambda r: r.register_effect(AuditEffect, handler))


async def test_effects_dispatch_after_commit_with_post_commit_snapshot() -> None:
    handler = AuditEffectHandler()
    _store, runtime, env = _setup(_effect_plugin(handler))
    cmd = StateCommand().update(Hits, 5).emit(AuditEffect, AuditPayload("login"))
    report = await runtime.submit_command(env, cmd)
    assert handler.seen == [("login", 5)]
    assert (report.effect_report.attempted, report.effect_report.dispatched) == (1, 1)
    assert report.revision == 1


async def test_effect_failures_are_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    handler = AuditEffectHandler()
    store, runtime, env = _setup(_effect_plugin(handler))
    cmd = (
        StateCommand()
        .update(Hits, 1)
        .emit(AuditEffect, AuditPayload("fail"))
        .emit(AuditEffect, AuditPayload("after"))
    )
    with caplog.at_level(logging.ERROR):
        report = await runtime.submit_command(env, cmd)
    assert report.effect_report.failed == 1 and report.effect_report.dispatched == 1
    assert handler.seen == [("after", 1)]
    assert store.read(Hits) == 1  # no rollback
    assert "audit.record" in caplog.text


async def test_unknown_effect_handler_rejected_at_submit() -> None:
    store, runtime, env = _setup()
    cmd = StateCommand().update(Hits, 1).emit(AuditEffect, AuditPayload("x"))
    with pytest.raises(UnknownEffectHandler) as err:
        await runtime.submit_command(env, cmd)
    assert str(err.value) == "no effect handler registered for audit.record"
    assert store.revision() == 0


async def test_effects_from_hooks_and_handlers_are_counted_in_the_phase_report() -> None:
    handler = AuditEffectHandler()

    class EmitHook(PhaseHook):
        async def run(self, ctx: PhaseContext) -> StateCommand:
            return (
                StateCommand().emit(AuditEffect, AuditPayload("hook")).schedule_action(Later, "x")
            )

    class EmittingLater(ScheduledActionHandler[str]):
        async def handle(self, payload: str, snapshot: Snapshot) -> StateCommand:
            return StateCommand().emit(AuditEffect, AuditPayload("action"))

    def setup(r: PluginRegistrar) -> None:
        r.register_scheduled_action(Later, EmittingLater())
        r.register_effect(AuditEffect, handler)
        r.register_phase_hook("fx", Phase.STEP_END, EmitHook())

    _store, runtime, env = _setup(FnPlugin("fx", setup))
    report = await runtime.run_phase(env, _ctx(Phase.STEP_END))
    assert [s[0] for s in handler.seen] == ["hook", "action"]
    assert report.generated_effects == 1
    assert report.effect_report.dispatched == 2


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(min_value=1, max_value=9)), max_size=6))
def test_gather_applies_every_hook_exactly_once(spec: list[int | None]) -> None:
    """Whatever mix of Exclusive appenders (None) and Commutative adders (ints) runs in one
    phase, the fallback yields each appender once, in registration order, and the full sum."""
    calls = Calls()
    hooks: list[PhaseHook] = [
        AppendHook(f"h{i}", calls) if item is None else HitHook(item) for i, item in enumerate(spec)
    ]
    store, runtime, env = _setup(_hook_plugin("p", Phase.STEP_START, *hooks))
    asyncio.run(runtime.run_phase(env, _ctx()))
    appenders = [f"h{i}" for i, item in enumerate(spec) if item is None]
    trail = store.read(Trail) or []
    assert [entry.split("@")[0] for entry in trail] == appenders
    assert [int(entry.split("@")[1]) for entry in trail] == list(range(len(appenders)))
    assert (store.read(Hits) or 0) == sum(item for item in spec if item is not None)


# --------------------------------------------------------------------------- serialisation


class GateHook(PhaseHook):
    """Records its start, then waits for ``release`` before answering."""

    def __init__(self, name: str, order: list[str], release: asyncio.Event) -> None:
        self.name, self.order, self.release = name, order, release

    async def run(self, ctx: PhaseContext) -> StateCommand:
        self.order.append(f"{self.name}:{ctx.phase.value}")
        await self.release.wait()
        return StateCommand().update(Hits, 1)


async def test_concurrent_phase_runs_of_one_run_are_serialised_in_arrival_order() -> None:
    order: list[str] = []
    release = asyncio.Event()
    store, runtime, env = _setup(
        _hook_plugin("g", Phase.STEP_START, GateHook("g", order, release)),
        _hook_plugin("h", Phase.STEP_END, GateHook("h", order, release)),
    )
    first = asyncio.ensure_future(runtime.run_phase(env, _ctx(Phase.STEP_START)))
    await asyncio.sleep(0)
    second = asyncio.ensure_future(runtime.run_phase(env, _ctx(Phase.STEP_END)))
    submitted = asyncio.ensure_future(runtime.submit_command(env, StateCommand().update(Hits, 5)))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    # the first phase holds the engine: the second phase and the submit wait for it
    assert order == ["g:step_start"]
    assert store.revision() == 0
    release.set()
    await asyncio.gather(first, second, submitted)
    assert order == ["g:step_start", "h:step_end"]
    # each ran on the state the one before it left: 1, then the submit's 5, then 1 more
    assert store.read(Hits) == 7 and store.revision() == 3


async def test_a_cancelled_waiter_does_not_keep_the_engine_locked() -> None:
    order: list[str] = []
    release = asyncio.Event()
    store, runtime, env = _setup(_hook_plugin("g", Phase.STEP_START, GateHook("g", order, release)))
    holder = asyncio.ensure_future(runtime.run_phase(env, _ctx(Phase.STEP_START)))
    await asyncio.sleep(0)
    waiter = asyncio.ensure_future(runtime.submit_command(env, StateCommand().update(Hits, 5)))
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    release.set()
    await holder
    # the engine is free again: a later submit commits at once
    assert runtime.submit_now(env, StateCommand().update(Hits, 10)) == 2
    assert store.read(Hits) == 11
