"""AgentEvent → Agent Client Protocol output (a pure encoder, spec B.3).

Each event becomes zero or more :data:`AcpOutput` items: a ``session/update`` payload, a
permission request to send to the client, the prompt's stop reason, or a prompt failure.
The stdio agent turns them into JSON-RPC traffic; golden tests pin them as dicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from awaken_contract.codec import to_builtins
from awaken_contract.contract.event import (
    AgentEvent,
    Error,
    ReasoningDelta,
    RunFinish,
    TextDelta,
    ToolCallDone,
    ToolCallReady,
    ToolCallResumed,
)
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.suspension import ToolCallOutcome
from awaken_contract.contract.tool import ToolStatus

__all__ = [
    "PERMISSION_ACTION",
    "AcpEncoder",
    "AcpOutput",
    "PermissionRequest",
    "PromptFailed",
    "PromptFinished",
    "SessionUpdate",
    "stop_reason",
    "tool_kind",
]

PERMISSION_ACTION = "tool:PermissionConfirm"
"""The suspension action that becomes an ACP permission request."""

_KINDS: list[tuple[tuple[str, ...], str]] = [
    (("read", "cat", "view"), "read"),
    (("edit", "write", "patch"), "edit"),
    (("delete", "remove", "rm"), "delete"),
    (("move", "rename", "mv"), "move"),
    (("search", "grep", "find"), "search"),
    (("bash", "exec", "run", "shell"), "execute"),
    (("think", "reason", "plan"), "think"),
    (("fetch", "http", "curl"), "fetch"),
]
_MAX_TOKENS_CODES = frozenset({"max_rounds_reached", "timeout_reached", "token_budget_exceeded"})


def tool_kind(name: str) -> str:
    """The ACP tool kind inferred from a tool name (first matching substring)."""
    lowered = name.lower()
    for needles, kind in _KINDS:
        if any(n in lowered for n in needles):
            return kind
    return "other"


@dataclass(slots=True)
class SessionUpdate:
    """A ``session/update`` notification's ``update`` object."""

    update: dict[str, Any]


@dataclass(slots=True)
class PermissionRequest:
    """Ask the client whether ``tool_call`` may run."""

    tool_call: dict[str, Any]

    @property
    def tool_call_id(self) -> str:
        """The suspended tool call."""
        return str(self.tool_call["toolCallId"])


@dataclass(slots=True)
class PromptFinished:
    """The prompt turn ended normally with ``stop_reason``."""

    stop_reason: str


@dataclass(slots=True)
class PromptFailed:
    """The prompt turn fails with a JSON-RPC error."""

    code: int
    message: str
    data: Any = None


AcpOutput = SessionUpdate | PermissionRequest | PromptFinished | PromptFailed


def stop_reason(event: RunFinish) -> str:
    """The ACP stop reason of a finished run."""
    termination = event.termination
    kind = termination.type
    if kind is TerminationKind.CANCELLED or kind is TerminationKind.SUSPENDED:
        return "cancelled"
    if kind is TerminationKind.BLOCKED:
        return "refusal"
    if kind is TerminationKind.STOPPED:
        stopped = termination.stopped_reason
        if stopped is not None and stopped.code in _MAX_TOKENS_CODES:
            return "max_tokens"
    return "end_turn"


@dataclass(slots=True)
class AcpEncoder:
    """Stateful encoder of one prompt turn (remembers announced tool calls)."""

    pending: dict[str, dict[str, Any]] = field(default_factory=dict)

    def encode(self, event: AgentEvent) -> list[AcpOutput]:
        """The outputs of ``event``."""
        if isinstance(event, TextDelta):
            return [_chunk("agent_message_chunk", event.delta)]
        if isinstance(event, ReasoningDelta):
            return [_chunk("agent_thought_chunk", event.delta)]
        if isinstance(event, ToolCallReady):
            call = {
                "toolCallId": event.id,
                "title": event.name,
                "kind": tool_kind(event.name),
                "status": "pending",
                "rawInput": event.arguments,
            }
            self.pending[event.id] = call
            return [SessionUpdate({"sessionUpdate": "tool_call", **call})]
        if isinstance(event, ToolCallDone):
            return self._done(event)
        if isinstance(event, ToolCallResumed):
            result = event.result
            failed = isinstance(result, dict) and (
                isinstance(result.get("error"), str) or result.get("approved") is False
            )
            update: dict[str, Any] = {
                "sessionUpdate": "tool_call_update",
                "toolCallId": event.target_id,
                "status": "failed" if failed else "completed",
            }
            if not failed:
                update["rawOutput"] = result
            return [SessionUpdate(update)]
        if isinstance(event, Error):
            return [
                PromptFailed(-32603, event.message, {"code": event.code} if event.code else None)
            ]
        if isinstance(event, RunFinish):
            kind = event.termination.type
            if kind is TerminationKind.SUSPENDED:
                return []
            if kind is TerminationKind.ERROR:
                return [PromptFailed(-32603, event.termination.message or "run failed")]
            return [PromptFinished(stop_reason(event))]
        return []

    def _done(self, event: ToolCallDone) -> list[AcpOutput]:
        result = event.result
        if result.status is ToolStatus.SUCCESS:
            update = {
                "sessionUpdate": "tool_call_update",
                "toolCallId": event.id,
                "status": "completed",
                "rawOutput": to_builtins(result),
            }
            return [SessionUpdate(update)]
        if result.status is ToolStatus.ERROR:
            failed = {
                "sessionUpdate": "tool_call_update",
                "toolCallId": event.id,
                "status": "failed",
            }
            return [SessionUpdate(failed)]
        if event.outcome is not ToolCallOutcome.SUSPENDED:
            return []
        ticket = result.suspension
        if ticket is None:
            return [
                PromptFailed(
                    -32603,
                    f"ACP stdio only supports suspended tool action '{PERMISSION_ACTION}'; "
                    "got a suspension without a suspension ticket",
                )
            ]
        action = ticket.suspension.action
        if action != PERMISSION_ACTION:
            return [
                PromptFailed(
                    -32603,
                    f"ACP stdio only supports suspended tool action '{PERMISSION_ACTION}'; "
                    f"got '{action}'",
                )
            ]
        known = self.pending.get(event.id)
        name = known["title"] if known else ticket.pending.name
        call = {
            "toolCallId": event.id,
            "kind": tool_kind(name),
            "status": "pending",
            "title": name,
            "rawInput": known["rawInput"] if known else ticket.pending.arguments,
        }
        return [PermissionRequest(call)]


def _chunk(kind: str, text: str) -> SessionUpdate:
    return SessionUpdate({"sessionUpdate": kind, "content": {"type": "text", "text": text}})
