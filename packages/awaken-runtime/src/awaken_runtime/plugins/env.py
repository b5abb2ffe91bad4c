"""``ExecutionEnv``: what a resolved agent's plugins contribute to a run.

Built once per resolve by :meth:`ExecutionEnv.from_plugins`. Structural components (state keys,
profile keys, action and effect handlers) are collected from every plugin; behavioural ones
(phase hooks, tool-gate hooks, request transforms, tools) only from plugins that pass the
agent's ``active_hook_filter`` (an empty filter activates every plugin).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from awaken_contract.contract.tool import Tool
from awaken_contract.errors import (
    EffectHandlerAlreadyRegistered,
    HandlerAlreadyRegistered,
    ToolAlreadyRegistered,
)
from awaken_contract.model import Phase
from awaken_contract.plugin import ConfigSchema, InferenceRequestTransform, Plugin

from awaken_runtime.plugins.registrar import (
    KeyRegistration,
    RegisteredActionHandler,
    RegisteredEffectHandler,
    RuntimePluginRegistrar,
    TaggedPhaseHook,
    TaggedRequestTransform,
    TaggedToolGateHook,
)

__all__ = ["ExecutionEnv"]


class ExecutionEnv:
    """Hooks per phase, handlers, transforms, plugin tools and keys of one resolved agent."""

    __slots__ = (
        "_lifecycle_plugins",
        "action_handlers",
        "config_schemas",
        "effect_handlers",
        "key_registrations",
        "phase_hooks",
        "plugins",
        "profile_keys",
        "request_transforms",
        "run_registrations",
        "tool_gate_hooks",
        "tools",
    )

    def __init__(self) -> None:
        self.plugins: list[Plugin] = []
        self.phase_hooks: dict[Phase, list[TaggedPhaseHook]] = {}
        self.tool_gate_hooks: list[TaggedToolGateHook] = []
        self.action_handlers: dict[str, RegisteredActionHandler] = {}
        self.effect_handlers: dict[str, RegisteredEffectHandler] = {}
        self.request_transforms: list[TaggedRequestTransform] = []
        self.tools: dict[str, Tool] = {}
        self.key_registrations: list[KeyRegistration] = []
        self.profile_keys: list[type[Any]] = []
        self.config_schemas: dict[str, list[ConfigSchema]] = {}
        self.run_registrations: dict[str, KeyRegistration] | None = None
        """Every key a run's store starts with, by name (built once by ``new_run_state``)."""
        self._lifecycle_plugins: dict[str, list[Plugin]] = {}

    @classmethod
    def empty(cls) -> ExecutionEnv:
        """An environment without plugins."""
        return cls()

    @classmethod
    def from_plugins(
        cls, plugins: Iterable[Plugin], active_filter: Collection[str] = ()
    ) -> ExecutionEnv:
        """Register every plugin in order and collect its components.

        Duplicate action handlers raise ``HandlerAlreadyRegistered``, duplicate effect handlers
        ``EffectHandlerAlreadyRegistered`` and duplicate tools of active plugins
        ``ToolAlreadyRegistered``. Keys registered by several plugins are merged (first wins).
        """
        env = cls()
        seen_keys: set[str] = set()
        seen_profile: set[str] = set()
        for plugin in plugins:
            name = plugin.descriptor().name
            registrar = RuntimePluginRegistrar(name)
            plugin.register(registrar)
            env.plugins.append(plugin)
            schemas = plugin.config_schemas()
            if schemas:
                env.config_schemas[name] = list(schemas)
            for reg in registrar.keys:
                if reg.name not in seen_keys:
                    seen_keys.add(reg.name)
                    env.key_registrations.append(reg)
            for profile_key in registrar.profile_keys:
                if profile_key.KEY not in seen_profile:
                    seen_profile.add(profile_key.KEY)
                    env.profile_keys.append(profile_key)
            for key, action in registrar.action_handlers.items():
                if key in env.action_handlers:
                    raise HandlerAlreadyRegistered(key)
                env.action_handlers[key] = action
            for key, effect in registrar.effect_handlers.items():
                if key in env.effect_handlers:
                    raise EffectHandlerAlreadyRegistered(key)
                env.effect_handlers[key] = effect
            if active_filter and name not in active_filter:
                continue
            for tagged in registrar.phase_hooks:
                env.phase_hooks.setdefault(tagged.phase, []).append(tagged)
            env.tool_gate_hooks.extend(registrar.tool_gate_hooks)
            env.request_transforms.extend(registrar.request_transforms)
            for tool_id, tool in registrar.tools.items():
                if tool_id in env.tools:
                    raise ToolAlreadyRegistered(tool_id)
                env.tools[tool_id] = tool
        return env

    def plugins_overriding(self, method: str) -> list[Plugin]:
        """The plugins (in order) whose class overrides ``Plugin.<method>`` (one of the no-op
        lifecycle callbacks ``on_activate``, ``on_deactivate``, ``bind_runtime_context``): a
        run calls only those. Computed once per environment."""
        found = self._lifecycle_plugins.get(method)
        if found is None:
            base = getattr(Plugin, method)
            found = [p for p in self.plugins if getattr(type(p), method, base) is not base]
            self._lifecycle_plugins[method] = found
        return found

    def hooks_for_phase(self, phase: Phase) -> list[TaggedPhaseHook]:
        """Phase hooks of ``phase`` in registration order."""
        return self.phase_hooks.get(phase, [])

    def transforms(self) -> list[InferenceRequestTransform]:
        """Request transforms in registration order."""
        return [tagged.transform for tagged in self.request_transforms]

    def plugin_ids(self) -> list[str]:
        """Descriptor names of every plugin, in order."""
        return [plugin.descriptor().name for plugin in self.plugins]

    def __repr__(self) -> str:
        return (
            f"ExecutionEnv(plugins={self.plugin_ids()}, "
            f"hooks={ {p.value: len(h) for p, h in self.phase_hooks.items()} }, "
            f"actions={list(self.action_handlers)}, effects={list(self.effect_handlers)}, "
            f"tools={list(self.tools)})"
        )
