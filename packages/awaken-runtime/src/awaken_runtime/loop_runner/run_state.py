"""The fresh state of one run of a resolved agent."""

from __future__ import annotations

from awaken_runtime.phase.engine import PhaseRuntime
from awaken_runtime.plugins.loop_state import loop_state_registrations
from awaken_runtime.registry.resolved import ResolvedAgent
from awaken_runtime.state.store import StateStore

__all__ = ["new_run_state"]


def new_run_state(agent: ResolvedAgent) -> PhaseRuntime:
    """A new :class:`StateStore` with the phase-runtime, loop and agent keys registered and
    the agent's plugins bound to it, wrapped in its :class:`PhaseRuntime` (``.store``). The
    registrations are computed once per agent environment and shared by its runs' stores."""
    env = agent.env
    registrations = env.run_registrations
    if registrations is None:
        first = StateStore()
        PhaseRuntime(first)
        first.register_keys(loop_state_registrations())
        first.register_keys(env.key_registrations)
        registrations = env.run_registrations = first.registrations()
    store = StateStore.sharing(registrations)
    phase = PhaseRuntime(store)
    for plugin in env.plugins_overriding("bind_runtime_context"):
        plugin.bind_runtime_context(store, None)
    return phase
