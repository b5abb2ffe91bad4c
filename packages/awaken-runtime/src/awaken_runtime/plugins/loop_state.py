"""``LoopStatePlugin`` (``__loop_state``): the state keys the agent loop itself keeps.

Run lifecycle, tool call states (Thread scoped), context-message throttle and store, the
pending-work flag and the delegates' remote tasks (Thread scoped). Installed into every run's
store before the loop starts.
"""

from __future__ import annotations

from awaken_contract.actions import (
    ContextMessageStoreKey,
    ContextThrottleKey,
    PendingWorkKey,
    RunLifecycleKey,
    ToolCallStatesKey,
)
from awaken_contract.plugin import Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.state import KeyScope, StateKeyOptions

from awaken_runtime.plugins.registrar import KeyRegistration, RuntimePluginRegistrar
from awaken_runtime.state.remote_tasks import DelegateRemoteTasksKey

__all__ = ["LOOP_STATE_PLUGIN_ID", "LoopStatePlugin", "loop_state_registrations"]

LOOP_STATE_PLUGIN_ID = "__loop_state"


class LoopStatePlugin(Plugin):
    """Registers the loop's own state keys (all persistent)."""

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(LOOP_STATE_PLUGIN_ID)

    def register(self, registrar: PluginRegistrar) -> None:
        run = StateKeyOptions(scope=KeyScope.RUN)
        registrar.register_key(RunLifecycleKey, run)
        registrar.register_key(ToolCallStatesKey, StateKeyOptions(scope=KeyScope.THREAD))
        registrar.register_key(ContextThrottleKey, run)
        registrar.register_key(ContextMessageStoreKey, run)
        registrar.register_key(PendingWorkKey, run)
        registrar.register_key(DelegateRemoteTasksKey)


_REGISTRATIONS: tuple[KeyRegistration, ...] = ()


def loop_state_registrations() -> tuple[KeyRegistration, ...]:
    """The keys of :class:`LoopStatePlugin`, computed once (``store.register_keys(...)`` is a
    cheaper per-run alternative to ``store.install_plugin(LoopStatePlugin())``)."""
    global _REGISTRATIONS
    if not _REGISTRATIONS:
        registrar = RuntimePluginRegistrar(LOOP_STATE_PLUGIN_ID)
        LoopStatePlugin().register(registrar)
        _REGISTRATIONS = tuple(registrar.keys)
    return _REGISTRATIONS
