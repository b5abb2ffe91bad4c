"""Suspension and resume: parking a tool call until a human (or client) decides."""

from __future__ import annotations

import enum
from typing import Any

import msgspec

from awaken_contract.codec import is_unset
from awaken_contract.ids import now_ms


class Suspension(msgspec.Struct, omit_defaults=True):
    """What the run is waiting for: an id, an action label, a message and parameters."""

    id: str = msgspec.UNSET  # type: ignore[assignment]  # always written, default ""
    action: str = msgspec.UNSET  # type: ignore[assignment]
    message: str = ""
    parameters: Any = None
    response_schema: Any = None

    def __post_init__(self) -> None:
        if is_unset(self.id):
            self.id = ""
        if is_unset(self.action):
            self.action = ""


class PendingToolCall(msgspec.Struct):
    """The tool call that is parked."""

    id: str
    name: str
    arguments: Any


class ToolCallResumeMode(enum.StrEnum):
    """How a decision resumes a suspended call."""

    REPLAY_TOOL_CALL = "replay_tool_call"
    USE_DECISION_AS_TOOL_RESULT = "use_decision_as_tool_result"
    PASS_DECISION_TO_TOOL = "pass_decision_to_tool"


class SuspendTicket(msgspec.Struct):
    """A suspension plus the parked call and how to resume it."""

    suspension: Suspension = msgspec.field(default_factory=Suspension)
    pending: PendingToolCall = msgspec.field(
        default_factory=lambda: PendingToolCall(id="", name="", arguments=None)
    )
    resume_mode: ToolCallResumeMode = ToolCallResumeMode.REPLAY_TOOL_CALL


class ResumeDecisionAction(enum.StrEnum):
    """Resume the call, or cancel it."""

    RESUME = "resume"
    CANCEL = "cancel"


class ToolCallResume(msgspec.Struct, omit_defaults=True):
    """A decision about a suspended call (``updated_at`` in unix ms)."""

    action: ResumeDecisionAction
    decision_id: str = msgspec.UNSET  # type: ignore[assignment]  # always written
    result: Any = None
    reason: str | None = None
    updated_at: int = msgspec.UNSET  # type: ignore[assignment]  # always written

    def __post_init__(self) -> None:
        if is_unset(self.decision_id):
            self.decision_id = ""
        if is_unset(self.updated_at):
            self.updated_at = 0

    @classmethod
    def resume(cls, result: Any = None, *, decision_id: str = "") -> ToolCallResume:
        """Approve / answer the suspended call."""
        return cls(
            action=ResumeDecisionAction.RESUME,
            decision_id=decision_id,
            result=result,
            updated_at=now_ms(),
        )

    @classmethod
    def cancel(cls, reason: str | None = None, *, decision_id: str = "") -> ToolCallResume:
        """Reject the suspended call."""
        return cls(
            action=ResumeDecisionAction.CANCEL,
            decision_id=decision_id,
            reason=reason,
            updated_at=now_ms(),
        )


class ToolCallStatus(enum.StrEnum):
    """Lifecycle of one tool call."""

    NEW = "new"
    RUNNING = "running"
    SUSPENDED = "suspended"
    RESUMING = "resuming"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def is_terminal(self) -> bool:
        """Succeeded, failed and cancelled are terminal."""
        return self in _TERMINAL_CALL_STATUSES

    def can_transition_to(self, target: ToolCallStatus) -> bool:
        """Whether the lifecycle allows moving from this status to ``target``."""
        return target is self or target in _CALL_TRANSITIONS[self]


_TERMINAL_CALL_STATUSES = frozenset(
    {ToolCallStatus.SUCCEEDED, ToolCallStatus.FAILED, ToolCallStatus.CANCELLED}
)
_CALL_TRANSITIONS: dict[ToolCallStatus, frozenset[ToolCallStatus]] = {
    ToolCallStatus.NEW: frozenset(ToolCallStatus),
    ToolCallStatus.RUNNING: frozenset(
        {
            ToolCallStatus.SUSPENDED,
            ToolCallStatus.SUCCEEDED,
            ToolCallStatus.FAILED,
            ToolCallStatus.CANCELLED,
        }
    ),
    ToolCallStatus.SUSPENDED: frozenset({ToolCallStatus.RESUMING, ToolCallStatus.CANCELLED}),
    ToolCallStatus.RESUMING: frozenset(
        {
            ToolCallStatus.RUNNING,
            ToolCallStatus.SUSPENDED,
            ToolCallStatus.SUCCEEDED,
            ToolCallStatus.FAILED,
            ToolCallStatus.CANCELLED,
        }
    ),
    ToolCallStatus.SUCCEEDED: frozenset(),
    ToolCallStatus.FAILED: frozenset(),
    ToolCallStatus.CANCELLED: frozenset(),
}


class ToolCallOutcome(enum.StrEnum):
    """Outcome of a finished tool execution, derived from the result status."""

    SUSPENDED = "suspended"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class ToolCallState(msgspec.Struct, omit_defaults=True):
    """Runtime record of one tool call (``updated_at`` in unix ms)."""

    call_id: str
    tool_name: str
    arguments: Any
    status: ToolCallStatus
    updated_at: int
    resume_mode: ToolCallResumeMode = msgspec.UNSET  # type: ignore[assignment]  # always written
    suspension_id: str | None = None
    suspension_reason: str | None = None
    resume_input: ToolCallResume | None = None

    def __post_init__(self) -> None:
        if is_unset(self.resume_mode):
            self.resume_mode = ToolCallResumeMode.REPLAY_TOOL_CALL
        if self.suspension_id is not None:
            self.suspension_id = self.suspension_id.strip() or None
        if self.suspension_reason is not None:
            self.suspension_reason = self.suspension_reason.strip() or None


class WaitingReason(enum.StrEnum):
    """Why a run is waiting (the later FAQ's richer set)."""

    TOOL_PERMISSION = "tool_permission"
    USER_INPUT = "user_input"
    BACKGROUND_TASKS = "background_tasks"
    EXTERNAL_EVENT = "external_event"
    RATE_LIMIT = "rate_limit"
    MANUAL_PAUSE = "manual_pause"
    SCHEDULED_ACTION = "scheduled_action"
    DELEGATION = "delegation"
    INTERRUPTED_TOOL_CALL = "interrupted_tool_call"
    """A non-idempotent tool call was running when its process died: a human decides (resume =
    retry it, cancel = tell the model it was interrupted)."""
