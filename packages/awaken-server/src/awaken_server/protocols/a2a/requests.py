"""What A2A requests mean: message validation, task state names, page tokens, decisions."""

from __future__ import annotations

from awaken_contract.contract.storage import RunRecord
from awaken_contract.contract.suspension import ResumeDecisionAction, ToolCallResume
from awaken_contract.ids import id_problem, now_ms

from awaken_server.protocols.a2a.convert import ROLE_USER
from awaken_server.protocols.a2a.errors import A2aError, FieldViolation
from awaken_server.protocols.a2a.wire import (
    A2aMessage,
    SendMessageRequest,
    TaskState,
)
from awaken_server.wire import parse_offset

__all__ = [
    "MAX_PAGE_SIZE",
    "clamp_page_size",
    "decision_of",
    "page_offset",
    "parse_status",
    "pending_targets",
    "validate_send",
]

MAX_PAGE_SIZE = 100


_STATUS_ALIASES = {
    "submitted": TaskState.SUBMITTED,
    "working": TaskState.WORKING,
    "input_required": TaskState.INPUT_REQUIRED,
    "input-required": TaskState.INPUT_REQUIRED,
    "auth_required": TaskState.AUTH_REQUIRED,
    "auth-required": TaskState.AUTH_REQUIRED,
    "completed": TaskState.COMPLETED,
    "failed": TaskState.FAILED,
    "canceled": TaskState.CANCELED,
    "cancelled": TaskState.CANCELED,
    "rejected": TaskState.REJECTED,
}


def parse_status(raw: str) -> TaskState:
    """A task state from its wire name (``TASK_STATE_WORKING``) or a short alias (``working``)."""
    value = raw.strip()
    for state in TaskState:
        if value.upper() == state.value:
            return state
    alias = _STATUS_ALIASES.get(value.lower())
    if alias is None:
        raise A2aError.invalid_field("status", f"unknown task state: {raw}")
    return alias


def page_offset(token: str | None, message: str) -> int:
    """A ``pageToken`` (an offset; absent → 0)."""
    text = (token or "").strip()
    offset = parse_offset(text) if text else 0
    if offset is None:
        raise A2aError.invalid_field("pageToken", message)
    return offset


def clamp_page_size(size: int | None) -> int:
    return 50 if size is None else min(max(size, 1), MAX_PAGE_SIZE)


def decision_of(message: A2aMessage) -> ToolCallResume:
    """The decision an interrupted task's follow-up message carries.

    A ``data`` part holding an object is the decision result (``{"approved": false}`` or
    ``{"action": "cancel"}`` reject); otherwise the message text approves and is the result.
    """
    data = next((p.data for p in message.parts if isinstance(p.data, dict)), None)
    if data is not None:
        if data.get("approved") is False or data.get("action") == "cancel":
            reason = data.get("reason") if isinstance(data.get("reason"), str) else None
            return ToolCallResume(
                action=ResumeDecisionAction.CANCEL, result=data, reason=reason, updated_at=now_ms()
            )
        return ToolCallResume.resume(data)
    text = "\n".join(p.text for p in message.parts if p.text is not None)
    return ToolCallResume.resume(text)


def pending_targets(run: RunRecord | None) -> set[str]:
    """One target per call the run waits on (answering each call once)."""
    if run is None or run.waiting is None:
        return set()
    return set(run.waiting.call_targets())


def validate_send(body: SendMessageRequest, tenant: str | None) -> A2aMessage:
    violations: list[FieldViolation] = []
    body_tenant = (body.tenant or body.agent_id or "").strip()
    if tenant and body_tenant and tenant != body_tenant:
        violations.append(("tenant", "tenant in the body does not match the route"))
    message = body.message
    if message is None:
        violations.append(("message", "message is required"))
    else:
        if message.role != ROLE_USER:
            violations.append(("message.role", "role must be ROLE_USER"))
        if not message.message_id.strip():
            violations.append(("message.messageId", "messageId is required"))
        for name, value in (
            ("message.messageId", message.message_id),
            ("message.taskId", message.task_id),
            ("message.contextId", message.context_id),
        ):
            problem = id_problem(value.strip()) if value and value.strip() else None
            if problem is not None:
                violations.append((name, f"{name.split('.')[-1]} {problem}"))
        if not message.parts:
            violations.append(("message.parts", "at least one part is required"))
        for index, part in enumerate(message.parts):
            if part.payload_count() != 1:
                violations.append(
                    (f"message.parts[{index}]", "a part needs exactly one of text, raw, url, data")
                )
    if violations:
        raise A2aError.invalid(violations)
    assert message is not None
    return message
