"""The phase engine: GATHER hooks on one frozen snapshot, then EXECUTE scheduled actions.

``run_phase(env, ctx)``:

* GATHER — every active hook of the phase runs against the same snapshot; their commands are
  merged and committed once. When two hooks write the same Exclusive key, the first compatible
  batch is committed and the deferred hooks re-run one by one on fresh snapshots.
* EXECUTE — queued actions of this phase are handed to their handlers, cascading until no
  matching action is left (at most ``max_rounds`` rounds → ``PhaseRunLoopExceeded``). A failing
  handler dead-letters its action into ``FailedScheduledActions``.

Effects are validated when a command is submitted (``UnknownEffectHandler``) and dispatched
after its commit; effect failures are logged, never raised.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Sequence
from typing import Any

import msgspec
from awaken_contract.errors import (
    PhaseRunLoopExceeded,
    StateCancelled,
    UnknownEffectHandler,
    UnknownScheduledActionHandler,
)
from awaken_contract.model import (
    DEFAULT_MAX_PHASE_ROUNDS,
    FailedScheduledAction,
    FailedScheduledActions,
    PendingScheduledActions,
    Phase,
    PushScheduledAction,
    RemoveScheduledAction,
    ScheduledActionEnvelope,
)
from awaken_contract.plugin import PhaseContext, Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.state import MergeStrategy, MutationBatch, StateCommand, StateKeyOptions

from awaken_runtime.plugins.env import ExecutionEnv
from awaken_runtime.plugins.registrar import KeyRegistration, TaggedPhaseHook
from awaken_runtime.state.store import StateStore

__all__ = [
    "DEFAULT_MAX_PHASE_ROUNDS",
    "EffectReport",
    "PhaseRunReport",
    "PhaseRuntime",
    "PhaseRuntimePlugin",
    "SubmitReport",
]

_log = logging.getLogger(__name__)
_PENDING = PendingScheduledActions.KEY
_EXCLUSIVE = MergeStrategy.EXCLUSIVE
_NO_EFFECTS: list[Any] = []  # (never appended to: what a command without effects yields)


class EffectReport(msgspec.Struct, gc=False):
    """How many effects were attempted, dispatched successfully and failed."""

    attempted: int = 0
    dispatched: int = 0
    failed: int = 0

    def add(self, other: EffectReport) -> None:
        """Accumulate ``other`` into this report."""
        self.attempted += other.attempted
        self.dispatched += other.dispatched
        self.failed += other.failed


class SubmitReport(msgspec.Struct, gc=False):
    """Result of :meth:`PhaseRuntime.submit_command`."""

    revision: int
    effect_report: EffectReport


class PhaseRunReport(msgspec.Struct, gc=False):
    """What one phase run did."""

    phase: Phase
    rounds: int = 0
    processed_scheduled_actions: int = 0
    skipped_scheduled_actions: int = 0
    failed_scheduled_actions: int = 0
    generated_effects: int = 0
    effect_report: EffectReport = msgspec.field(default_factory=EffectReport)


class PhaseRuntimePlugin(Plugin):
    """Internal plugin ``phase-runtime``: the action queue and the dead-letter list."""

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("phase-runtime")

    def register(self, registrar: PluginRegistrar) -> None:
        options = StateKeyOptions()
        registrar.register_key(PendingScheduledActions, options)
        registrar.register_key(FailedScheduledActions, options)


_PHASE_RUNTIME_KEYS = (
    KeyRegistration.of(PendingScheduledActions, StateKeyOptions(), "phase-runtime"),
    KeyRegistration.of(FailedScheduledActions, StateKeyOptions(), "phase-runtime"),
)


# Hooks run in turn: each hook awaited after the other on the same frozen snapshot. Hooks only
# read ``ctx`` (its snapshot is immutable) and return commands, so running them one after the
# other gives the commands a concurrent ``gather`` would, without a task per hook; the commands
# are merged (and conflicts detected) afterwards exactly as before. The loops are written out
# in ``collect_commands`` and ``_gather`` (no helper coroutine, no async comprehension: two
# coroutines less per phase), and a command's emptiness is tested on its fields in place.


class _RunMutex(msgspec.Struct, eq=False):
    """``asyncio.Lock`` semantics (FIFO hand-over, cancellation safe), taken without an
    await when free: the engine takes it several times per step (``if not
    lock.try_acquire(): await lock.acquire()``, then ``lock.release()``).

    A msgspec struct: untracked by the garbage collector until contended (its waiters' deque
    is made then)."""

    locked: bool = False
    _waiters: deque[asyncio.Future[None]] | None = None  # made when contended

    def try_acquire(self) -> bool:
        """Take the lock when it is free (no await); ``False`` when it is held."""
        if self.locked:
            return False
        self.locked = True
        return True

    async def acquire(self) -> None:
        """Wait for the lock (handed over in arrival order by :meth:`release`)."""
        if self.try_acquire():
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = deque()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # it was handed to us just before the cancellation: pass it on
            raise

    def release(self) -> None:
        """Hand the lock to the first live waiter, else free it."""
        waiters = self._waiters
        while waiters:  # None or empty: nobody waits
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self.locked = False


class PhaseRuntime:
    """Runs phases over one run's :class:`StateStore` (one instance per run).

    Creating it registers the ``phase-runtime`` keys (the action queue and dead letters) in the
    store, exactly as installing :class:`PhaseRuntimePlugin` would.
    """

    __slots__ = ("_lock", "_next_id", "max_rounds", "store")

    def __init__(self, store: StateStore, *, max_rounds: int = DEFAULT_MAX_PHASE_ROUNDS) -> None:
        self.store = store
        self.max_rounds = max_rounds
        self._lock = _RunMutex()
        self._next_id = 1
        if not store.is_registered(_PENDING):
            store.register_keys(_PHASE_RUNTIME_KEYS)

    # ------------------------------------------------------------------ public API

    async def run_phase(
        self,
        env: ExecutionEnv,
        ctx: PhaseContext,
        hooks: Sequence[TaggedPhaseHook] | None = None,
    ) -> PhaseRunReport:
        """GATHER then EXECUTE for ``ctx.phase``; raises ``StateCancelled`` when the context's
        token is cancelled at entry or between the two stages. ``hooks`` are the phase's
        active hooks when the caller already has them (else taken from ``env``)."""
        token = ctx.cancellation_token
        if token is not None and token.is_cancelled:
            raise StateCancelled()
        lock = self._lock
        if lock.locked:
            await lock.acquire()
        else:
            lock.locked = True  # try_acquire() in place
        try:
            if hooks is None:
                hooks = self._hooks(env, ctx)
            effects = await self._gather(env, ctx, hooks) if hooks else None
            if token is not None and token.is_cancelled:
                raise StateCancelled()
            if self.store.values.get(_PENDING):
                report = await self._execute(env, ctx)
            else:
                report = PhaseRunReport(ctx.phase, rounds=1)  # nothing queued: one empty round
            if effects is not None:
                report.effect_report.add(effects)
            return report
        finally:
            if lock._waiters:
                lock.release()
            else:
                lock.locked = False  # release() with nobody waiting, in place

    async def run_execute_loop(self, env: ExecutionEnv, ctx: PhaseContext) -> PhaseRunReport:
        """EXECUTE only (no hooks, no cancellation checks)."""
        lock = self._lock
        if not lock.try_acquire():
            await lock.acquire()
        try:
            return await self._execute(env, ctx)
        finally:
            lock.release()

    async def collect_commands(
        self,
        env: ExecutionEnv,
        ctx: PhaseContext,
        hooks: Sequence[TaggedPhaseHook] | None = None,
    ) -> StateCommand:
        """Run the phase's hooks on the current snapshot and merge their commands without
        committing; an Exclusive overlap raises ``ParallelMergeConflict``."""
        if hooks is None:
            hooks = self._hooks(env, ctx)
        merged = StateCommand()
        if not hooks:
            return merged
        snap = self.store.snapshot()
        if ctx.snapshot is not snap:
            ctx = ctx.with_snapshot(snap)
        commands: list[StateCommand] = []
        for hook in hooks:
            commands.append(await hook.run(ctx))
        strategy = self.store.strategy
        for command in commands:
            if (
                command.raw_patch is None
                and command.raw_actions is None
                and command.raw_effects is None
            ):
                continue  # an untouched StateCommand(): merging it changes nothing
            if command.base_revision is None:
                if command.is_empty:
                    continue  # an empty command: merging it changes nothing
                command.patch.base_revision = snap.revision
            merged.merge_parallel(command, strategy)
        return merged

    async def submit_command(self, env: ExecutionEnv, command: StateCommand) -> SubmitReport:
        """Validate, enqueue actions, commit, then dispatch effects (under the lock)."""
        lock = self._lock
        if not lock.try_acquire():
            await lock.acquire()
        try:
            return await self._submit(env, command)
        finally:
            lock.release()

    def submit_now(self, env: ExecutionEnv, command: StateCommand) -> int | None:
        """:meth:`submit_command` without an await when nothing needs one (no effects to
        dispatch, the engine idle): the new revision; ``None`` when the caller must await
        :meth:`submit_command` instead."""
        if self._lock.locked:
            return None
        patch = command.plain_patch()
        if patch is not None:  # nothing to validate or enqueue: the commit is the submission
            return self.store.commit(patch)
        if command.has_effects:
            return None
        return self._commit(env, command)[0]

    @property
    def busy(self) -> bool:
        """Whether a phase, a submission or an EXECUTE loop holds the engine."""
        return self._lock.locked

    def next_id(self) -> int:
        """The next action/effect id (monotonic from 1)."""
        value = self._next_id
        self._next_id = value + 1
        return value

    # ------------------------------------------------------------------ internals

    @staticmethod
    def _hooks(env: ExecutionEnv, ctx: PhaseContext) -> Sequence[TaggedPhaseHook]:
        hooks = env.phase_hooks.get(ctx.phase)
        if not hooks:
            return []
        active = ctx.agent_spec.active_hook_filter
        if not active:
            return hooks
        return [h for h in hooks if h.plugin_id in active]

    async def _submit(self, env: ExecutionEnv, command: StateCommand) -> SubmitReport:
        revision, effects = self._commit(env, command)
        report = EffectReport()
        if effects:
            await self._dispatch_effects(env, effects, report)
        return SubmitReport(revision, report)

    async def _submit_effects(
        self, env: ExecutionEnv, command: StateCommand
    ) -> EffectReport | None:
        """:meth:`_submit`'s effect report only (``None``: the command had no effects)."""
        _, effects = self._commit(env, command)
        if not effects:
            return None
        report = EffectReport()
        await self._dispatch_effects(env, effects, report)
        return report

    def _commit(self, env: ExecutionEnv, command: StateCommand) -> tuple[int, list[Any]]:
        """Validate, enqueue the actions, commit: the revision and the effects to dispatch."""
        actions = command.scheduled_actions if command.has_actions else None
        effects = command.effects if command.has_effects else _NO_EFFECTS
        if actions:
            handlers = env.action_handlers
            for action in actions:
                if action.key not in handlers:
                    raise UnknownScheduledActionHandler(action.key)
        if effects:
            effect_handlers = env.effect_handlers
            for effect in effects:
                if effect.key not in effect_handlers:
                    raise UnknownEffectHandler(effect.key)
        patch = command.patch
        if actions:
            for action in actions:
                envelope = ScheduledActionEnvelope(self.next_id(), action)
                patch.update(PendingScheduledActions, PushScheduledAction(envelope))
            command.scheduled_actions = []
        if effects:
            for _ in effects:
                self.next_id()
            command.effects = []
        return self.store.commit(patch), effects

    async def _dispatch_effects(
        self, env: ExecutionEnv, effects: list[Any], report: EffectReport
    ) -> None:
        snapshot = self.store.snapshot()
        for effect in effects:
            report.attempted += 1
            registered = env.effect_handlers.get(effect.key)
            if registered is None:
                report.failed += 1
                _log.warning("no effect handler for %s", effect.key)
                continue
            try:
                payload = registered.spec.decode_payload(effect.payload)
                await registered.handler.handle_typed(payload, snapshot)
            except Exception:
                report.failed += 1
                _log.exception("effect handler for %s failed", effect.key)
            else:
                report.dispatched += 1

    async def _gather(
        self, env: ExecutionEnv, ctx: PhaseContext, hooks: Sequence[TaggedPhaseHook]
    ) -> EffectReport | None:
        """Run the hooks and commit their commands; the effects' report (``None``: nothing
        was submitted)."""
        if not hooks:
            return None
        store = self.store
        snap = store.snapshot()
        if ctx.snapshot is not snap:
            ctx = ctx.with_snapshot(snap)
        if len(hooks) == 1:
            command = await hooks[0].run(ctx)
            if (
                command.raw_patch is None
                and command.raw_actions is None
                and command.raw_effects is None
            ):
                return None  # an untouched StateCommand(), skipped without a call
            if command.is_empty:
                return None
            if command.base_revision is None:
                command.patch.base_revision = snap.revision
            if not command.has_effects:
                self._commit(env, command)
                return None
            return await self._submit_effects(env, command)

        results: list[StateCommand] = []
        for hook in hooks:
            results.append(await hook.run(ctx))
        commands: list[tuple[int, StateCommand]] = []
        for index, command in enumerate(results):
            if (
                command.raw_patch is None
                and command.raw_actions is None
                and command.raw_effects is None
            ):
                continue  # an untouched StateCommand(), skipped without a call
            if command.is_empty:
                continue  # empty
            if command.base_revision is None:
                command.patch.base_revision = snap.revision
            commands.append((index, command))
        if not commands:
            return None  # nothing submitted
        report = EffectReport()

        exclusive = self._exclusive_keys(commands)
        if not self._has_conflict(exclusive):
            merged = commands[0][1]
            for _, command in commands[1:]:
                merged.extend(command)
            report.add((await self._submit(env, merged)).effect_report)
            return report

        # Conflict: commit a compatible batch, then re-run deferred hooks serially.
        claimed: set[str] = set()
        batch = StateCommand()
        deferred: list[int] = []
        for (index, command), keys in zip(commands, exclusive, strict=True):
            if keys & claimed:
                deferred.append(index)
                continue
            claimed |= keys
            batch.extend(command)
        if not batch.is_empty:
            report.add((await self._submit(env, batch)).effect_report)
        for index in deferred:
            fresh = store.snapshot()
            command = await hooks[index].run(ctx.with_snapshot(fresh))
            if command.is_empty:
                continue
            if command.patch.base_revision is None:
                command.patch.base_revision = fresh.revision
            report.add((await self._submit(env, command)).effect_report)
        return report

    def _exclusive_keys(self, commands: list[tuple[int, StateCommand]]) -> list[set[str]]:
        strategy = self.store.strategy
        return [
            {k for k in command.patch.touched_keys if strategy(k) is _EXCLUSIVE}
            for _, command in commands
        ]

    @staticmethod
    def _has_conflict(exclusive: list[set[str]]) -> bool:
        seen: set[str] = set()
        for keys in exclusive:
            if keys & seen:
                return True
            seen |= keys
        return False

    async def _execute(self, env: ExecutionEnv, ctx: PhaseContext) -> PhaseRunReport:
        phase = ctx.phase
        store = self.store
        if not store.read_raw(_PENDING):
            return PhaseRunReport(phase, rounds=1)  # nothing queued: one empty round
        report = PhaseRunReport(phase)
        handlers = env.action_handlers
        rounds = 0
        while True:
            rounds += 1
            if rounds > self.max_rounds:
                raise PhaseRunLoopExceeded(phase, self.max_rounds)
            queue: list[ScheduledActionEnvelope] | None = store.read_raw(_PENDING)
            if not queue:
                break
            matching = [e for e in queue if e.action.phase == phase and e.action.key in handlers]
            if not matching:
                if rounds == 1:
                    report.skipped_scheduled_actions = sum(
                        1 for e in queue if e.action.phase != phase
                    )
                break
            for envelope in matching:
                registered = handlers[envelope.action.key]
                try:
                    payload = registered.spec.decode_payload(envelope.action.payload)
                    command = await registered.handler.handle(payload, store.snapshot())
                except Exception as exc:
                    self._dead_letter(envelope, str(exc))
                    report.failed_scheduled_actions += 1
                    continue
                if command.has_effects:
                    report.generated_effects += len(command.effects)
                command.patch.update(PendingScheduledActions, RemoveScheduledAction(envelope.id))
                try:
                    submitted = await self._submit(env, command)
                except Exception as exc:
                    self._dead_letter(envelope, f"failed to submit action command: {exc}")
                    report.failed_scheduled_actions += 1
                    continue
                report.processed_scheduled_actions += 1
                report.effect_report.add(submitted.effect_report)
        report.rounds = rounds
        return report

    def _dead_letter(self, envelope: ScheduledActionEnvelope, error: str) -> None:
        _log.warning("scheduled action %s (%s) failed: %s", envelope.id, envelope.action.key, error)
        batch = MutationBatch()
        batch.update(PendingScheduledActions, RemoveScheduledAction(envelope.id))
        batch.update(
            FailedScheduledActions,
            FailedScheduledAction(envelope.id, envelope.action, error),
        )
        self.store.commit(batch)
