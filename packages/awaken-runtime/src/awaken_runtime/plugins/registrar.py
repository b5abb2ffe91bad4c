"""The runtime's :class:`PluginRegistrar`: collects what one plugin declares in ``register``.

Duplicates inside one registrar raise the book's errors (``KeyAlreadyRegistered``,
``HandlerAlreadyRegistered``, ``EffectHandlerAlreadyRegistered``, ``ToolAlreadyRegistered``);
hooks and transforms may repeat.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import msgspec
from awaken_contract.contract.tool import Tool
from awaken_contract.errors import (
    EffectHandlerAlreadyRegistered,
    HandlerAlreadyRegistered,
    KeyAlreadyRegistered,
    ToolAlreadyRegistered,
)
from awaken_contract.model import (
    EffectSpec,
    Phase,
    ScheduledActionHandler,
    ScheduledActionSpec,
    TypedEffectHandler,
)
from awaken_contract.plugin import (
    InferenceRequestTransform,
    PhaseHook,
    PhaseHookFn,
    PluginRegistrar,
    ToolGateHook,
)
from awaken_contract.state import (
    KeyScope,
    MergeStrategy,
    Snapshot,
    StateCommand,
    StateKey,
    StateKeyOptions,
)

__all__ = [
    "KeyRegistration",
    "RegisteredActionHandler",
    "RegisteredEffectHandler",
    "RuntimePluginRegistrar",
    "TaggedPhaseHook",
    "TaggedRequestTransform",
    "TaggedToolGateHook",
]

P = TypeVar("P")

_DEFAULT_OPTIONS = StateKeyOptions()


class KeyRegistration(msgspec.Struct, frozen=True):
    """A registered key with its options, effective scope/merge and owning plugin."""

    name: str
    key: type[StateKey[Any, Any]]
    options: StateKeyOptions
    scope: KeyScope
    merge: MergeStrategy
    owner: str | None = None

    @property
    def key_name(self) -> str:
        """``key.KEY`` (same as ``name``)."""
        return self.name

    @classmethod
    def of(
        cls,
        key: type[StateKey[Any, Any]],
        options: StateKeyOptions | None = None,
        owner: str | None = None,
    ) -> KeyRegistration:
        """Registration of ``key`` under ``options`` (scope defaults to ``key.SCOPE``)."""
        opts = options if options is not None else _DEFAULT_OPTIONS
        scope = opts.scope if opts.scope is not None else key.SCOPE
        return cls(key.KEY, key, opts, scope, key.MERGE, owner)


class TaggedPhaseHook(msgspec.Struct, frozen=True):
    """A phase hook with the id of the plugin that registered it; ``run`` is what the phase
    engine awaits (``hook.runner()``)."""

    plugin_id: str
    phase: Phase
    hook: PhaseHook
    run: PhaseHookFn

    @classmethod
    def of(cls, plugin_id: str, phase: Phase, hook: PhaseHook | PhaseHookFn) -> TaggedPhaseHook:
        """Tag ``hook`` (a :class:`PhaseHook` or a plain ``async def hook(ctx)``)."""
        wrapped = PhaseHook.of(hook)
        return cls(plugin_id, phase, wrapped, wrapped.runner())


class TaggedToolGateHook(msgspec.Struct, frozen=True):
    """A tool-gate hook with its plugin id."""

    plugin_id: str
    hook: ToolGateHook


class TaggedRequestTransform(msgspec.Struct, frozen=True):
    """A request transform with its plugin id."""

    plugin_id: str
    transform: InferenceRequestTransform


class RegisteredActionHandler(msgspec.Struct, frozen=True):
    """An action handler with the action spec used to decode payloads."""

    spec: type[ScheduledActionSpec[Any]]
    handler: ScheduledActionHandler[Any]
    plugin_id: str


class RegisteredEffectHandler(msgspec.Struct, frozen=True):
    """An effect handler with the effect spec used to decode payloads."""

    spec: type[EffectSpec[Any]]
    handler: TypedEffectHandler[Any]
    plugin_id: str


class RuntimePluginRegistrar(PluginRegistrar):
    """Collects one plugin's registrations (``plugin_id`` tags keys and handlers)."""

    def __init__(self, plugin_id: str = "") -> None:
        self.plugin_id = plugin_id
        self.keys: list[KeyRegistration] = []
        self._key_names: set[str] = set()
        self.profile_keys: list[type[Any]] = []
        self.action_handlers: dict[str, RegisteredActionHandler] = {}
        self.effect_handlers: dict[str, RegisteredEffectHandler] = {}
        self.phase_hooks: list[TaggedPhaseHook] = []
        self.tool_gate_hooks: list[TaggedToolGateHook] = []
        self.tools: dict[str, Tool] = {}
        self.request_transforms: list[TaggedRequestTransform] = []

    def register_key(
        self, key: type[StateKey[Any, Any]], options: StateKeyOptions | None = None
    ) -> None:
        name = key.KEY
        if name in self._key_names:
            raise KeyAlreadyRegistered(name)
        self._key_names.add(name)
        self.keys.append(KeyRegistration.of(key, options, self.plugin_id or None))

    def register_profile_key(self, key: type[Any]) -> None:
        name = key.KEY
        if any(getattr(p, "KEY", None) == name for p in self.profile_keys):
            raise KeyAlreadyRegistered(name)
        self.profile_keys.append(key)

    def register_scheduled_action(
        self,
        action: type[ScheduledActionSpec[P]],
        handler: ScheduledActionHandler[P] | Callable[[P, Snapshot], Awaitable[StateCommand]],
    ) -> None:
        if action.KEY in self.action_handlers:
            raise HandlerAlreadyRegistered(action.KEY)
        self.action_handlers[action.KEY] = RegisteredActionHandler(
            action, ScheduledActionHandler.of(handler), self.plugin_id
        )

    def register_effect(
        self,
        effect: type[EffectSpec[P]],
        handler: TypedEffectHandler[P] | Callable[[P, Snapshot], Awaitable[None]],
    ) -> None:
        if effect.KEY in self.effect_handlers:
            raise EffectHandlerAlreadyRegistered(effect.KEY)
        self.effect_handlers[effect.KEY] = RegisteredEffectHandler(
            effect, TypedEffectHandler.of(handler), self.plugin_id
        )

    def register_phase_hook(
        self, plugin_id: str, phase: Phase, hook: PhaseHook | PhaseHookFn
    ) -> None:
        self.phase_hooks.append(TaggedPhaseHook.of(plugin_id, phase, hook))

    def register_tool_gate_hook(self, plugin_id: str, hook: ToolGateHook) -> None:
        self.tool_gate_hooks.append(TaggedToolGateHook(plugin_id, hook))

    def register_tool(self, tool_id: str, tool: Tool) -> None:
        if tool_id in self.tools:
            raise ToolAlreadyRegistered(tool_id)
        self.tools[tool_id] = tool

    def register_request_transform(
        self, plugin_id: str, transform: InferenceRequestTransform
    ) -> None:
        self.request_transforms.append(TaggedRequestTransform(plugin_id, transform))
