"""``LoopActionHandlersPlugin`` (``__loop_action_handlers``): handlers of the core actions.

* ``runtime.add_context_message`` — throttle by ``cooldown_turns`` then upsert into the context
  message store;
* ``runtime.set_inference_override`` — merge into the step's inference override;
* ``runtime.exclude_tool`` / ``runtime.include_only_tools`` — extend the step's tool filter;
* ``runtime.tool_intercept`` — keep the highest-priority intercept of the current tool call.
"""

from __future__ import annotations

from awaken_contract.actions import (
    AddContextMessage,
    ContextMessageStoreKey,
    ContextThrottleKey,
    ExcludeTool,
    ExcludeToolUpdate,
    IncludeOnlyTools,
    IncludeOnlyToolsUpdate,
    InferenceOverrideKey,
    MergeInferenceOverride,
    RunLifecycleKey,
    SetInferenceOverride,
    ThrottleEntry,
    ThrottleUpdate,
    ToolFilterKey,
    ToolInterceptAction,
    ToolInterceptKey,
    ToolInterceptPayload,
    UpsertContextMessage,
    content_hash,
)
from awaken_contract.contract.context_message import ContextMessage
from awaken_contract.model import ScheduledActionHandler
from awaken_contract.plugin import Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.registry_spec import InferenceOverride
from awaken_contract.state import Snapshot, StateCommand

__all__ = [
    "LOOP_ACTION_HANDLERS_PLUGIN_ID",
    "AddContextMessageHandler",
    "ExcludeToolHandler",
    "IncludeOnlyToolsHandler",
    "LoopActionHandlersPlugin",
    "SetInferenceOverrideHandler",
    "ToolInterceptHandler",
]

LOOP_ACTION_HANDLERS_PLUGIN_ID = "__loop_action_handlers"


class AddContextMessageHandler(ScheduledActionHandler[ContextMessage]):
    """Inject unless the same content was injected fewer than ``cooldown_turns`` steps ago."""

    async def handle(self, payload: ContextMessage, snapshot: Snapshot) -> StateCommand:
        lifecycle = snapshot.get(RunLifecycleKey)
        current_step = (lifecycle.step_count if lifecycle is not None else 0) + 1
        digest = content_hash(payload)
        command = StateCommand()
        if payload.cooldown_turns > 0:
            throttle = snapshot.get(ContextThrottleKey)
            entry = throttle.entries.get(payload.key) if throttle is not None else None
            if (
                entry is not None
                and entry.content_hash == digest
                and current_step - entry.last_step < payload.cooldown_turns
            ):
                return command
        command.update(
            ContextThrottleKey, ThrottleUpdate(payload.key, ThrottleEntry(current_step, digest))
        )
        command.update(ContextMessageStoreKey, UpsertContextMessage(payload))
        return command


class SetInferenceOverrideHandler(ScheduledActionHandler[InferenceOverride]):
    """Merge the override into the step's accumulated override."""

    async def handle(self, payload: InferenceOverride, snapshot: Snapshot) -> StateCommand:
        return StateCommand().update(InferenceOverrideKey, MergeInferenceOverride(payload))


class ExcludeToolHandler(ScheduledActionHandler[str]):
    """Exclude one tool id for the step."""

    async def handle(self, payload: str, snapshot: Snapshot) -> StateCommand:
        return StateCommand().update(ToolFilterKey, ExcludeToolUpdate(payload))


class IncludeOnlyToolsHandler(ScheduledActionHandler[list[str]]):
    """Add an include-only list for the step."""

    async def handle(self, payload: list[str], snapshot: Snapshot) -> StateCommand:
        return StateCommand().update(ToolFilterKey, IncludeOnlyToolsUpdate(payload))


class ToolInterceptHandler(ScheduledActionHandler[ToolInterceptPayload]):
    """Record an intercept; the key keeps the highest priority (Block > Suspend > SetResult)."""

    async def handle(self, payload: ToolInterceptPayload, snapshot: Snapshot) -> StateCommand:
        return StateCommand().update(ToolInterceptKey, payload)


class LoopActionHandlersPlugin(Plugin):
    """Registers the tool filter, inference override and intercept keys and the core handlers."""

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(LOOP_ACTION_HANDLERS_PLUGIN_ID)

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(ToolFilterKey)
        registrar.register_key(InferenceOverrideKey)
        registrar.register_key(ToolInterceptKey)
        registrar.register_scheduled_action(AddContextMessage, AddContextMessageHandler())
        registrar.register_scheduled_action(SetInferenceOverride, SetInferenceOverrideHandler())
        registrar.register_scheduled_action(ExcludeTool, ExcludeToolHandler())
        registrar.register_scheduled_action(IncludeOnlyTools, IncludeOnlyToolsHandler())
        registrar.register_scheduled_action(ToolInterceptAction, ToolInterceptHandler())
