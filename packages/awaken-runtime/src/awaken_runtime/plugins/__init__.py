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
    "ConfigSchema",
    "ExecutionEnv",
    "InferenceRequestTransform",
    "KeyRegistration",
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
]
