"""The plugin contract: plugins, the registrar they declare components on, hooks and contexts.

A :class:`Plugin` declares, in ``register(registrar)``, two kinds of components:

* structural — state keys, scheduled-action handlers, effect handlers (always available);
* behavioural — phase hooks, tool-gate hooks, tools and request transforms (only when the plugin
  passes the agent's ``active_hook_filter``).

Hooks are pure: they read a frozen :class:`PhaseContext` and return a ``StateCommand``; the
runtime may re-run a hook when its writes conflict with another hook's.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from awaken_contract.hooks import (
    ConfigSchema,
    InferenceRequestTransform,
    ObserveFn,
    ObserverHook,
    PhaseContext,
    PhaseHook,
    PhaseHookFn,
    PluginDescriptor,
    ToolGateHook,
    ToolKind,
    TransformOutput,
    apply_transforms,
)
from awaken_contract.model import Phase
from awaken_contract.registry_spec import AgentSpec
from awaken_contract.state import Snapshot, StateKey
from awaken_contract.tool_policy import ToolPolicyGateHook

if TYPE_CHECKING:
    from awaken_contract.contract.tool import Tool
    from awaken_contract.model import (
        EffectSpec,
        ScheduledActionHandler,
        ScheduledActionSpec,
        TypedEffectHandler,
    )
    from awaken_contract.registry_spec import AgentSpec
    from awaken_contract.state import (
        MutationBatch,
        StateCommand,
        StateKeyOptions,
        StateStoreHandle,
    )
    from awaken_contract.tool_policy import ToolPolicyHook

__all__ = [
    "ConfigSchema",
    "InferenceRequestTransform",
    "ObserveFn",
    "ObserverHook",
    "PhaseContext",
    "PhaseHook",
    "PhaseHookFn",
    "Plugin",
    "PluginDescriptor",
    "PluginRegistrar",
    "ToolGateHook",
    "ToolKind",
    "TransformOutput",
    "apply_transforms",
]

P = TypeVar("P")


# --------------------------------------------------------------------------- registrar


class PluginRegistrar(ABC):
    """Where a plugin declares its components (implemented by the runtime)."""

    @abstractmethod
    def register_key(
        self, key: type[StateKey[Any, Any]], options: StateKeyOptions | None = None
    ) -> None:
        """Declare a state key (duplicate → ``KeyAlreadyRegistered``)."""

    @abstractmethod
    def register_profile_key(self, key: type[Any]) -> None:
        """Declare a profile-store namespace (a class with ``KEY``; duplicate →
        ``KeyAlreadyRegistered``)."""

    @abstractmethod
    def register_scheduled_action(
        self,
        action: type[ScheduledActionSpec[P]],
        handler: ScheduledActionHandler[P] | Callable[[P, Snapshot], Awaitable[StateCommand]],
    ) -> None:
        """Handle ``action`` with a handler or an ``async def (payload, snapshot)`` function
        (duplicate → ``HandlerAlreadyRegistered``)."""

    @abstractmethod
    def register_effect(
        self,
        effect: type[EffectSpec[P]],
        handler: TypedEffectHandler[P] | Callable[[P, Snapshot], Awaitable[None]],
    ) -> None:
        """Handle ``effect`` with a handler or an ``async def (payload, snapshot)`` function
        (duplicate → ``EffectHandlerAlreadyRegistered``)."""

    @abstractmethod
    def register_phase_hook(
        self, plugin_id: str, phase: Phase, hook: PhaseHook | PhaseHookFn
    ) -> None:
        """Run ``hook`` (a PhaseHook or an async function of the context) at ``phase``
        (behavioural)."""

    @abstractmethod
    def register_tool_gate_hook(self, plugin_id: str, hook: ToolGateHook) -> None:
        """Run ``hook`` before every tool call (behavioural)."""

    def register_tool_policy_hook(self, plugin_id: str, hook: ToolPolicyHook) -> None:
        """Run a tool policy before every tool call; it is adapted into a gate hook
        (Deny → Block, Suspend → Suspend, ReplaceResult → SetResult, Allow/AuditOnly → none)."""
        self.register_tool_gate_hook(plugin_id, ToolPolicyGateHook(hook))

    @abstractmethod
    def register_tool(self, tool_id: str, tool: Tool) -> None:
        """Offer a tool to the model (behavioural; duplicate → ``ToolAlreadyRegistered``)."""

    @abstractmethod
    def register_request_transform(
        self, plugin_id: str, transform: InferenceRequestTransform
    ) -> None:
        """Rewrite inference requests (behavioural)."""


# --------------------------------------------------------------------------- Plugin


class Plugin(ABC):
    """A runtime extension: registers keys, handlers, hooks, tools and transforms."""

    @abstractmethod
    def descriptor(self) -> PluginDescriptor:
        """The plugin's identity."""

    @property
    def plugin_id(self) -> str:
        """``descriptor().name``."""
        return self.descriptor().name

    def register(self, registrar: PluginRegistrar) -> None:  # noqa: B027 - optional hook
        """Declare components (default: nothing)."""

    def config_schemas(self) -> list[ConfigSchema]:
        """Schemas of the agent-spec sections this plugin reads (default: none)."""
        return []

    def on_activate(self, agent_spec: AgentSpec, patch: MutationBatch) -> None:  # noqa: B027
        """Add mutations when the agent using this plugin becomes active (run start, handoff)."""

    def on_deactivate(self, patch: MutationBatch) -> None:  # noqa: B027
        """Add mutations when the agent using this plugin becomes inactive (handoff)."""

    def bind_runtime_context(  # noqa: B027
        self, store: StateStoreHandle, owner_inbox: object | None
    ) -> None:
        """Receive the run's state store and inbox sender at run preparation."""
