"""Core actions and the runtime state keys plugins may read.

Actions (handled by the runtime's ``__loop_action_handlers`` plugin):

* :class:`AddContextMessage` — inject a :class:`ContextMessage` into the next inference;
* :class:`SetInferenceOverride` — override model/temperature/… for the current step;
* :class:`ExcludeTool` / :class:`IncludeOnlyTools` — shape the current step's tool list;
* :class:`ToolInterceptAction` — block, suspend or short-circuit the current tool call
  (priority Block > Suspend > SetResult).

State keys (registered by the runtime; plugins read them with ``ctx.state(Key)``): run
lifecycle, tool call states, context throttle and message store, pending work, tool filter,
inference override, tool intercept.
"""

from __future__ import annotations

import hashlib
from typing import Any, ClassVar

import msgspec

from awaken_contract.contract.context_message import ContextMessage
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.suspension import SuspendTicket, ToolCallState, ToolCallStatus
from awaken_contract.contract.tool import ToolResult
from awaken_contract.errors import KeyDecode
from awaken_contract.ids import now_ms
from awaken_contract.model import Phase, ScheduledActionSpec
from awaken_contract.registry_spec import InferenceOverride
from awaken_contract.state import KeyScope, MergeStrategy, StateKey, decode_value

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


# --------------------------------------------------------------------------- ToolInterceptPayload


class ToolInterceptPayload:
    """What a gate or BeforeToolExecute plugin decides about a tool call.

    Variants :class:`InterceptBlock` (fail the call and end the run), :class:`InterceptSuspend`
    (park it for a decision) and :class:`InterceptSetResult` (skip execution, use this result),
    also reachable as ``ToolInterceptPayload.Block`` / ``.Suspend`` / ``.SetResult``. JSON is
    externally tagged: ``{"Block": {"reason": ...}}``, ``{"Suspend": SuspendTicket}``,
    ``{"SetResult": ToolResult}``.
    """

    __slots__ = ()
    #: Resolution priority: Block (3) > Suspend (2) > SetResult (1).
    priority: ClassVar[int] = 0
    tag: ClassVar[str] = ""

    Block: ClassVar[type[InterceptBlock]]
    Suspend: ClassVar[type[InterceptSuspend]]
    SetResult: ClassVar[type[InterceptSetResult]]

    def _body(self) -> Any:
        raise TypeError("ToolInterceptPayload is abstract; use Block, Suspend or SetResult")

    def to_json_value(self) -> dict[str, Any]:
        """The externally tagged JSON data."""
        return {self.tag: self._body()}

    @classmethod
    def from_json_value(cls, data: Any) -> ToolInterceptPayload:
        """Parse externally tagged JSON data (raises ``KeyDecode``)."""
        if not isinstance(data, dict) or len(data) != 1:
            raise KeyDecode(ToolInterceptAction.KEY, f"expected a one-key object, got {data!r}")
        ((tag, body),) = data.items()
        if tag == "Block":
            if not isinstance(body, dict) or not isinstance(body.get("reason"), str):
                raise KeyDecode(ToolInterceptAction.KEY, "Block needs a string 'reason'")
            return InterceptBlock(body["reason"])
        if tag == "Suspend":
            return InterceptSuspend(decode_value(body, SuspendTicket, key=ToolInterceptAction.KEY))
        if tag == "SetResult":
            return InterceptSetResult(decode_value(body, ToolResult, key=ToolInterceptAction.KEY))
        raise KeyDecode(ToolInterceptAction.KEY, f"unknown intercept variant {tag!r}")

    def outranks(self, other: ToolInterceptPayload | None) -> bool:
        """Whether this payload wins over ``other`` (strictly higher priority; ties keep the
        first)."""
        return other is None or self.priority > other.priority

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._body() == other._body()

    def __hash__(self) -> int:
        return hash((self.tag, repr(self._body())))

    def __repr__(self) -> str:
        slots: tuple[str, ...] = type(self).__slots__
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in slots)
        return f"{type(self).__name__}({fields})"


class InterceptBlock(ToolInterceptPayload):
    """Fail the call with ``reason``; the run ends ``Blocked``."""

    __slots__ = ("reason",)
    priority = 3
    tag = "Block"

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def _body(self) -> Any:
        return {"reason": self.reason}


class InterceptSuspend(ToolInterceptPayload):
    """Park the call until a decision arrives."""

    __slots__ = ("ticket",)
    priority = 2
    tag = "Suspend"

    def __init__(self, ticket: SuspendTicket) -> None:
        self.ticket = ticket

    def _body(self) -> Any:
        return msgspec.to_builtins(self.ticket)


class InterceptSetResult(ToolInterceptPayload):
    """Skip execution and use ``result`` (a pending result counts as a suspension)."""

    __slots__ = ("result",)
    priority = 1
    tag = "SetResult"

    def __init__(self, result: ToolResult) -> None:
        self.result = result

    def _body(self) -> Any:
        return msgspec.to_builtins(self.result)


ToolInterceptPayload.Block = InterceptBlock
ToolInterceptPayload.Suspend = InterceptSuspend
ToolInterceptPayload.SetResult = InterceptSetResult


# --------------------------------------------------------------------------- actions


class AddContextMessage(ScheduledActionSpec[ContextMessage]):
    """Inject a context message into the next inference (throttled by ``cooldown_turns``)."""

    KEY = "runtime.add_context_message"
    PHASE = Phase.BEFORE_INFERENCE


class SetInferenceOverride(ScheduledActionSpec[InferenceOverride]):
    """Override inference parameters for the current step (field-wise, last non-null wins)."""

    KEY = "runtime.set_inference_override"
    PHASE = Phase.BEFORE_INFERENCE


class ExcludeTool(ScheduledActionSpec[str]):
    """Remove a tool id from the current step's tool list."""

    KEY = "runtime.exclude_tool"
    PHASE = Phase.BEFORE_INFERENCE


class IncludeOnlyTools(ScheduledActionSpec[list[str]]):
    """Restrict the current step's tools to these ids (several lists → their union)."""

    KEY = "runtime.include_only_tools"
    PHASE = Phase.BEFORE_INFERENCE


class ToolInterceptAction(ScheduledActionSpec[ToolInterceptPayload]):
    """Intercept the tool call being executed (scheduled from BeforeToolExecute hooks)."""

    KEY = "runtime.tool_intercept"
    PHASE = Phase.BEFORE_TOOL_EXECUTE

    @classmethod
    def encode_payload(cls, payload: ToolInterceptPayload) -> Any:
        return payload.to_json_value()

    @classmethod
    def decode_payload(cls, data: Any) -> ToolInterceptPayload:
        return ToolInterceptPayload.from_json_value(data)


# --------------------------------------------------------------------------- run lifecycle


class RunLifecycleState(msgspec.Struct, omit_defaults=True, gc=False):
    """``{"run_id", "status", "status_reason?", "updated_at" (ms), "step_count"}``."""

    run_id: str
    status: RunStatus
    updated_at: int
    step_count: int
    status_reason: str | None = None

    @classmethod
    def from_json_value(cls, data: Any) -> RunLifecycleState:
        """Decode, accepting ``done_reason`` / ``pause_reason`` for ``status_reason``."""
        return msgspec.convert(data, _RunLifecycleWire).to_state()


class _RunLifecycleWire(msgspec.Struct):
    run_id: str = ""
    status: RunStatus = RunStatus.RUNNING
    updated_at: int = 0
    step_count: int = 0
    status_reason: str | None = None
    done_reason: str | None = None
    pause_reason: str | None = None

    def to_state(self) -> RunLifecycleState:
        reason = self.status_reason or self.done_reason or self.pause_reason
        return RunLifecycleState(self.run_id, self.status, self.updated_at, self.step_count, reason)


class RunLifecycleUpdate(msgspec.Struct, frozen=True, gc=False):
    """A lifecycle transition; build with the classmethods. ``at`` is unix ms."""

    target: RunStatus
    at: int
    run_id: str | None = None
    reason: str | None = None
    step_completed: bool = False

    @classmethod
    def start(cls, run_id: str, at: int | None = None) -> RunLifecycleUpdate:
        """Status running, reason cleared, step_count 0."""
        return cls(RunStatus.RUNNING, now_ms() if at is None else at, run_id=run_id)

    @classmethod
    def step_completed_at(cls, at: int | None = None) -> RunLifecycleUpdate:
        """step_count + 1, status unchanged."""
        return cls(RunStatus.RUNNING, now_ms() if at is None else at, step_completed=True)

    @classmethod
    def set_waiting(cls, pause_reason: str, at: int | None = None) -> RunLifecycleUpdate:
        """Status waiting with a reason (``suspended``, ``awaiting_tasks`` …)."""
        return cls(RunStatus.WAITING, now_ms() if at is None else at, reason=pause_reason)

    @classmethod
    def set_running(cls, at: int | None = None) -> RunLifecycleUpdate:
        """Status running, reason cleared."""
        return cls(RunStatus.RUNNING, now_ms() if at is None else at)

    @classmethod
    def done(cls, done_reason: str, at: int | None = None) -> RunLifecycleUpdate:
        """Status done with the done reason (``natural``, ``cancelled``, ``stopped:<code>`` …)."""
        return cls(RunStatus.DONE, now_ms() if at is None else at, reason=done_reason)


class RunLifecycleKey(StateKey[RunLifecycleState, RunLifecycleUpdate]):
    """``__runtime.run_lifecycle``; updates the current status cannot reach are skipped."""

    KEY = "__runtime.run_lifecycle"
    MERGE = MergeStrategy.EXCLUSIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def default(cls) -> RunLifecycleState:
        return RunLifecycleState("", RunStatus.CREATED, 0, 0)

    @classmethod
    def apply(cls, value: RunLifecycleState, update: RunLifecycleUpdate) -> RunLifecycleState:
        if not value.status.can_transition_to(update.target):
            return value
        if update.step_completed:
            return msgspec.structs.replace(
                value, step_count=value.step_count + 1, updated_at=update.at
            )
        if update.run_id is not None:
            return RunLifecycleState(update.run_id, RunStatus.RUNNING, update.at, 0)
        return msgspec.structs.replace(
            value, status=update.target, status_reason=update.reason, updated_at=update.at
        )


# --------------------------------------------------------------------------- tool call states


class ToolCallStatesMap(msgspec.Struct):
    """``{"calls": {call_id: ToolCallState}}``."""

    calls: dict[str, ToolCallState] = msgspec.field(default_factory=dict)

    def get(self, call_id: str) -> ToolCallState | None:
        """The state of one call."""
        return self.calls.get(call_id)

    def with_status(self, status: ToolCallStatus) -> list[ToolCallState]:
        """Calls currently in ``status``, sorted by call id."""
        return sorted(
            (s for s in self.calls.values() if s.status is status), key=lambda s: s.call_id
        )


class PutToolCallState(msgspec.Struct, frozen=True):
    """Set one call's state (skipped when its status cannot move to the new one)."""

    state: ToolCallState


class ClearToolCallStates(msgspec.Struct, frozen=True, gc=False):
    """Forget every call state."""


class ToolCallStatesKey(StateKey[ToolCallStatesMap, PutToolCallState | ClearToolCallStates]):
    """``__runtime.tool_call_states`` (thread scoped, commutative)."""

    KEY = "__runtime.tool_call_states"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.THREAD

    @classmethod
    def apply(
        cls, value: ToolCallStatesMap, update: PutToolCallState | ClearToolCallStates
    ) -> ToolCallStatesMap:
        if isinstance(update, ClearToolCallStates):
            return ToolCallStatesMap()
        new = update.state
        current = value.calls.get(new.call_id)
        status = current.status if current is not None else ToolCallStatus.NEW
        if not status.can_transition_to(new.status):
            return value
        calls = dict(value.calls)
        calls[new.call_id] = new
        return ToolCallStatesMap(calls)


# --------------------------------------------------------------------------- context messages


def content_hash(message: ContextMessage) -> int:
    """Stable 64-bit hash of the JSON of a context message's content."""
    data = msgspec.json.encode(message.content)
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


class ThrottleEntry(msgspec.Struct, gc=False):
    """When a context message key was last injected, and with which content."""

    last_step: int
    content_hash: int


class ContextThrottleState(msgspec.Struct):
    """``{"entries": {key: ThrottleEntry}}``."""

    entries: dict[str, ThrottleEntry] = msgspec.field(default_factory=dict)


class ThrottleUpdate(msgspec.Struct, frozen=True, gc=False):
    """Record an injection of ``key``."""

    key: str
    entry: ThrottleEntry


class ContextThrottleKey(StateKey[ContextThrottleState, ThrottleUpdate]):
    """``__runtime.context_throttle``."""

    KEY = "__runtime.context_throttle"
    MERGE = MergeStrategy.EXCLUSIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: ContextThrottleState, update: ThrottleUpdate) -> ContextThrottleState:
        entries = dict(value.entries)
        entries[update.key] = update.entry
        return ContextThrottleState(entries)


class ContextMessageStoreState(msgspec.Struct):
    """``{"messages": {key: ContextMessage}}``."""

    messages: dict[str, ContextMessage] = msgspec.field(default_factory=dict)

    def sorted_messages(self) -> list[ContextMessage]:
        """Messages in injection order (target, priority, key)."""
        return sorted(self.messages.values(), key=ContextMessage.sort_key)


class UpsertContextMessage(msgspec.Struct, frozen=True):
    """Insert or replace the message with the same key."""

    message: ContextMessage


class RemoveContextMessages(msgspec.Struct, frozen=True):
    """Remove messages by key."""

    keys: list[str]


class ContextMessageStoreKey(
    StateKey[ContextMessageStoreState, UpsertContextMessage | RemoveContextMessages]
):
    """``__runtime.context_message_store`` (commutative)."""

    KEY = "__runtime.context_message_store"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(
        cls,
        value: ContextMessageStoreState,
        update: UpsertContextMessage | RemoveContextMessages,
    ) -> ContextMessageStoreState:
        messages = dict(value.messages)
        if isinstance(update, UpsertContextMessage):
            messages[update.message.key] = update.message
        else:
            for key in update.keys:
                messages.pop(key, None)
        return ContextMessageStoreState(messages)


# --------------------------------------------------------------------------- pending work


class PendingWorkState(msgspec.Struct, gc=False):
    """``{"has_pending": bool}`` — background work that keeps a run from ending naturally."""

    has_pending: bool = False


class PendingWorkKey(StateKey[PendingWorkState, bool]):
    """``__runtime.pending_work``; the update is the new flag."""

    KEY = "__runtime.pending_work"
    MERGE = MergeStrategy.EXCLUSIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: PendingWorkState, update: bool) -> PendingWorkState:
        return PendingWorkState(update)


# --------------------------------------------------------------------------- tool filter


class ToolFilterState(msgspec.Struct):
    """``{"excluded": [id], "include_only": [[id]]}`` for the current step."""

    excluded: list[str] = msgspec.field(default_factory=list)
    include_only: list[list[str]] = msgspec.field(default_factory=list)

    def filter_ids(self, tool_ids: list[str]) -> list[str]:
        """Keep ids in the union of include-only lists (if any), then drop excluded ids."""
        ids = tool_ids
        if self.include_only:
            allowed = {t for group in self.include_only for t in group}
            ids = [t for t in ids if t in allowed]
        if self.excluded:
            excluded = set(self.excluded)
            ids = [t for t in ids if t not in excluded]
        return ids


class ExcludeToolUpdate(msgspec.Struct, frozen=True, gc=False):
    """Append an excluded id."""

    tool_id: str


class IncludeOnlyToolsUpdate(msgspec.Struct, frozen=True):
    """Append an include-only list."""

    tool_ids: list[str]


class ClearToolFilter(msgspec.Struct, frozen=True, gc=False):
    """Reset the filter (done after each inference request is built)."""


class ToolFilterKey(
    StateKey[ToolFilterState, ExcludeToolUpdate | IncludeOnlyToolsUpdate | ClearToolFilter]
):
    """``__runtime.tool_filter_state`` (commutative)."""

    KEY = "__runtime.tool_filter_state"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(
        cls,
        value: ToolFilterState,
        update: ExcludeToolUpdate | IncludeOnlyToolsUpdate | ClearToolFilter,
    ) -> ToolFilterState:
        if isinstance(update, ExcludeToolUpdate):
            return ToolFilterState([*value.excluded, update.tool_id], value.include_only)
        if isinstance(update, IncludeOnlyToolsUpdate):
            return ToolFilterState(value.excluded, [*value.include_only, list(update.tool_ids)])
        return ToolFilterState()


# --------------------------------------------------------------------------- inference override


class InferenceOverrideState(msgspec.Struct):
    """``{"overrides": InferenceOverride | null}`` accumulated for the current step."""

    overrides: InferenceOverride | None = None


class MergeInferenceOverride(msgspec.Struct, frozen=True):
    """Merge an override (field-wise, last non-null wins)."""

    override: InferenceOverride


class ClearInferenceOverride(msgspec.Struct, frozen=True, gc=False):
    """Reset the accumulated override."""


class InferenceOverrideKey(
    StateKey[InferenceOverrideState, MergeInferenceOverride | ClearInferenceOverride]
):
    """``__runtime.inference_override_state`` (commutative)."""

    KEY = "__runtime.inference_override_state"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(
        cls,
        value: InferenceOverrideState,
        update: MergeInferenceOverride | ClearInferenceOverride,
    ) -> InferenceOverrideState:
        if isinstance(update, ClearInferenceOverride):
            return InferenceOverrideState()
        current = value.overrides
        merged = (
            current.merged(update.override)
            if current is not None
            else update.override.model_copy(deep=True)
        )
        return InferenceOverrideState(merged)


# --------------------------------------------------------------------------- tool intercept


class ToolInterceptState(msgspec.Struct):
    """The winning intercept for the tool call being executed (``None`` = proceed)."""

    payload: ToolInterceptPayload | None = None


class ToolInterceptKey(StateKey[ToolInterceptState, ToolInterceptPayload | None]):
    """``__runtime.tool_intercept``: an update keeps the higher-priority payload (ties keep the
    first); ``None`` clears it."""

    KEY = "__runtime.tool_intercept"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(
        cls, value: ToolInterceptState, update: ToolInterceptPayload | None
    ) -> ToolInterceptState:
        if update is None:
            return ToolInterceptState()
        if update.outranks(value.payload):
            return ToolInterceptState(update)
        return value
