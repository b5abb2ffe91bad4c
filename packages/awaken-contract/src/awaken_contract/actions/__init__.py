"""Core actions and the runtime state keys plugins may read.

Actions (handled by the runtime's ``__loop_action_handlers`` plugin):

* :class:`AddContextMessage` — inject a :class:`ContextMessage` into the next inference;
* :class:`SetInferenceOverride` — override model/temperature/… for the current step;
* :class:`ExcludeTool` / :class:`IncludeOnlyTools` — shape the current step's tool list;
* :class:`ToolInterceptAction` — block, suspend or short-circuit the current tool call
  (priority Block > Suspend > SetResult).

State keys (registered by the runtime; plugins read them with ``ctx.state(Key)``): run
lifecycle, tool call states, context throttle and message store, pending work, tool filter,
inference override, tool intercept. One module per concept: ``specs``, ``intercept``,
``lifecycle``, ``tool_calls``, ``context``, ``pending``, ``tool_filter``, ``inference``.
"""

from __future__ import annotations

from awaken_contract.actions.context import (
    ContextMessageStoreKey,
    ContextMessageStoreState,
    ContextThrottleKey,
    ContextThrottleState,
    RemoveContextMessages,
    ThrottleEntry,
    ThrottleUpdate,
    UpsertContextMessage,
    content_hash,
)
from awaken_contract.actions.inference import (
    ClearInferenceOverride,
    InferenceOverrideKey,
    InferenceOverrideState,
    MergeInferenceOverride,
)
from awaken_contract.actions.intercept import (
    InterceptBlock,
    InterceptSetResult,
    InterceptSuspend,
    ToolInterceptAction,
    ToolInterceptKey,
    ToolInterceptPayload,
    ToolInterceptState,
)
from awaken_contract.actions.lifecycle import RunLifecycleKey, RunLifecycleState, RunLifecycleUpdate
from awaken_contract.actions.pending import PendingWorkKey, PendingWorkState
from awaken_contract.actions.specs import (
    AddContextMessage,
    ExcludeTool,
    IncludeOnlyTools,
    SetInferenceOverride,
)
from awaken_contract.actions.tool_calls import (
    ClearToolCallStates,
    PutToolCallState,
    ToolCallStatesKey,
    ToolCallStatesMap,
)
from awaken_contract.actions.tool_filter import (
    ClearToolFilter,
    ExcludeToolUpdate,
    IncludeOnlyToolsUpdate,
    ToolFilterKey,
    ToolFilterState,
)

__all__ = [
    "AddContextMessage",
    "ClearInferenceOverride",
    "ClearToolCallStates",
    "ClearToolFilter",
    "ContextMessageStoreKey",
    "ContextMessageStoreState",
    "ContextThrottleKey",
    "ContextThrottleState",
    "ExcludeTool",
    "ExcludeToolUpdate",
    "IncludeOnlyTools",
    "IncludeOnlyToolsUpdate",
    "InferenceOverrideKey",
    "InferenceOverrideState",
    "InterceptBlock",
    "InterceptSetResult",
    "InterceptSuspend",
    "MergeInferenceOverride",
    "PendingWorkKey",
    "PendingWorkState",
    "PutToolCallState",
    "RemoveContextMessages",
    "RunLifecycleKey",
    "RunLifecycleState",
    "RunLifecycleUpdate",
    "SetInferenceOverride",
    "ThrottleEntry",
    "ThrottleUpdate",
    "ToolCallStatesKey",
    "ToolCallStatesMap",
    "ToolFilterKey",
    "ToolFilterState",
    "ToolInterceptAction",
    "ToolInterceptKey",
    "ToolInterceptPayload",
    "ToolInterceptState",
    "UpsertContextMessage",
    "content_hash",
]
