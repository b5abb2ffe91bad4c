"""The plugin system: the registrar implementation, ExecutionEnv and the runtime's own plugins."""

from awaken_contract.plugin import (
    ConfigSchema,
    InferenceRequestTransform,
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
    ToolGateHook,
)

from awaken_runtime.plugins.env import ExecutionEnv
from awaken_runtime.plugins.loop_actions import (
    LOOP_ACTION_HANDLERS_PLUGIN_ID,
    LoopActionHandlersPlugin,
)
from awaken_runtime.plugins.loop_state import (
    LOOP_STATE_PLUGIN_ID,
    LoopStatePlugin,
    loop_state_registrations,
)
from awaken_runtime.plugins.registrar import (
    KeyRegistration,
    RegisteredActionHandler,
    RegisteredEffectHandler,
    RuntimePluginRegistrar,
    TaggedPhaseHook,
    TaggedRequestTransform,
    TaggedToolGateHook,
)

__all__ = [
    "LOOP_ACTION_HANDLERS_PLUGIN_ID",
    "LOOP_STATE_PLUGIN_ID",
    "ConfigSchema",
    "ExecutionEnv",
    "InferenceRequestTransform",
    "KeyRegistration",
    "LoopActionHandlersPlugin",
    "LoopStatePlugin",
    "PhaseContext",
    "PhaseHook",
    "Plugin",
    "PluginDescriptor",
    "PluginRegistrar",
    "RegisteredActionHandler",
    "RegisteredEffectHandler",
    "RuntimePluginRegistrar",
    "TaggedPhaseHook",
    "TaggedRequestTransform",
    "TaggedToolGateHook",
    "ToolGateHook",
    "loop_state_registrations",
]
