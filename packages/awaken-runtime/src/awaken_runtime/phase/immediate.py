"""Immediate phase hooks: state updates computed without an await, run in place.

A phase whose only active hook is an :class:`ImmediatePhaseHook` runs without the phase
engine's awaits (:func:`run_immediately`) when the engine is idle and no action is queued: the
hook's updates are committed exactly as GATHER commits a single hook's command (against the
snapshot the hook read) and EXECUTE then finds nothing of its own to do. Otherwise — the engine
busy, actions queued, or more hooks at the phase — the phase runs through
``PhaseRuntime.run_phase`` as before, where :meth:`ImmediatePhaseHook.run` wraps the same
updates in a command.

A phase whose active hooks all only observe (:class:`~awaken_contract.plugin.ObserverHook`)
runs the same way, as one :class:`ObservingPhase`: an immediate hook whose updates are always
``None`` and that calls every observer, in registration order, on the one context.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence

from awaken_contract.errors import StateCancelled
from awaken_contract.model import PendingScheduledActions, Phase
from awaken_contract.plugin import ObserverHook, PhaseContext, PhaseHook
from awaken_contract.state import MutationBatch, Snapshot, StateCommand

from awaken_runtime.phase.engine import PhaseRuntime
from awaken_runtime.plugins.registrar import TaggedPhaseHook

__all__ = [
    "ImmediatePhaseHook",
    "ObservingPhase",
    "immediate_hooks",
    "observing_phases",
    "run_immediately",
]

_PENDING = PendingScheduledActions.KEY


class ImmediatePhaseHook(PhaseHook):
    """A hook that only reads its context and returns state updates (no scheduled actions,
    no effects, nothing awaited): :meth:`updates`."""

    waits = False

    @abstractmethod
    def updates(self, ctx: PhaseContext) -> MutationBatch | None:
        """The state updates this hook wants (``None``: nothing)."""

    def idle(self, snapshot: Snapshot) -> bool:
        """``True`` when :meth:`updates` is ``None`` on ``snapshot`` whatever the rest of the
        context (the phase is then skipped without building one); default ``False``."""
        return False

    async def run(self, ctx: PhaseContext) -> StateCommand:
        batch = self.updates(ctx)
        return StateCommand() if batch is None else StateCommand.of(batch)


class ObservingPhase(ImmediatePhaseHook):
    """The observers of a phase whose active hooks all observe, run as one immediate hook."""

    __slots__ = ("_calls", "observers")

    def __init__(self, observers: Sequence[ObserverHook]) -> None:
        self.observers = tuple(observers)
        self._calls = tuple((o, o.observer_fn()) for o in self.observers)

    def updates(self, ctx: PhaseContext) -> MutationBatch | None:
        self.observe(ctx)
        return None

    def observe(self, ctx: PhaseContext) -> None:
        """Call every observer with ``ctx``, in registration order (an exception propagates
        at once, as from a phase's hooks awaited in turn)."""
        for hook, observe in self._calls:
            returned: object = observe(ctx)
            if returned is not None:
                raise hook.rejected(returned)


def observing_phases(
    hooks: Mapping[Phase, Sequence[TaggedPhaseHook]],
) -> dict[Phase, ObservingPhase]:
    """The phases whose active hooks all observe, with their observers."""
    found: dict[Phase, ObservingPhase] = {}
    for phase, tagged in hooks.items():
        observers = [t.hook for t in tagged if isinstance(t.hook, ObserverHook)]
        if observers and len(observers) == len(tagged):
            found[phase] = ObservingPhase(observers)
    return found


def immediate_hooks(
    hooks: Mapping[Phase, Sequence[TaggedPhaseHook]],
) -> dict[Phase, ImmediatePhaseHook]:
    """The phases whose only active hook is immediate, with that hook, and those whose hooks
    all observe, with their :class:`ObservingPhase`."""
    found: dict[Phase, ImmediatePhaseHook] = dict(observing_phases(hooks))
    for phase, tagged in hooks.items():
        if len(tagged) == 1:
            hook = tagged[0].hook
            if isinstance(hook, ImmediatePhaseHook):
                found[phase] = hook
    return found


def run_immediately(engine: PhaseRuntime, hook: ImmediatePhaseHook, ctx: PhaseContext) -> bool:
    """Run ``ctx.phase`` (whose only hook is ``hook``) in place, as ``engine.run_phase`` would;
    ``False`` — nothing done — when the engine is busy or actions are queued (await
    ``run_phase`` then). Raises ``StateCancelled`` where ``run_phase`` does."""
    store = engine.store
    if engine.busy or store.values.get(_PENDING):
        return False
    token = ctx.cancellation_token
    if token is not None and token.is_cancelled:
        raise StateCancelled()
    snap = store.snapshot()
    if ctx.snapshot is not snap:
        ctx = ctx.with_snapshot(snap)
    batch = hook.updates(ctx)
    if batch is not None and batch.ops:
        if batch.base_revision is None:
            batch.base_revision = snap.revision
        store.commit(batch)
    if token is not None and token.is_cancelled:
        raise StateCancelled()
    return True
