"""AgentEvent → AG-UI events (``@ag-ui/core`` 1.0 schemas), one encoder per run stream.

Lifecycle rules the official client verifies are kept by construction: text, reasoning,
tool-call and step spans are always closed before ``RUN_FINISHED``; nothing follows a
terminal event until a new ``RUN_STARTED``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from awaken_contract.codec import encode_json
from awaken_contract.contract.event import (
    ActivityDelta,
    ActivitySnapshot,
    AgentEvent,
    Error,
    MessagesSnapshot,
    ReasoningDelta,
    ReasoningEncryptedValue,
    RunFinish,
    RunStart,
    StateDelta,
    StateSnapshot,
    StepEnd,
    StepStart,
    TextDelta,
    ToolCallDelta,
    ToolCallDone,
    ToolCallReady,
    ToolCallResumed,
    ToolCallStart,
    ToolCallStreamDelta,
)
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.tool import ToolResult, ToolStatus

from awaken_server.protocols.ag_ui.messages import to_ag_ui_messages

AgUiEvent = dict[str, Any]
"""One AG-UI event (a JSON object with an UPPER_SNAKE ``type``)."""

TOOL_STREAM_ACTIVITY = "tool-stream-output"
DEFAULT_INTERRUPT_REASON = "tool_approval"


@dataclass(slots=True)
class PendingInterrupt:
    """A suspended tool call the client must answer before the thread continues."""

    id: str
    reason: str
    tool_call_id: str
    message: str | None = None
    response_schema: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``Interrupt`` object of a ``RUN_FINISHED`` interrupt outcome."""
        out: dict[str, Any] = {
            "id": self.id,
            "reason": self.reason,
            "toolCallId": self.tool_call_id,
        }
        if self.message:
            out["message"] = self.message
        if self.response_schema is not None:
            out["responseSchema"] = self.response_schema
        return out


def tool_result_content(result: ToolResult) -> str:
    """``TOOL_CALL_RESULT.content``: JSON of the data (with metadata), or the error text."""
    if result.status is ToolStatus.ERROR:
        return result.message or "tool error"
    if result.metadata:
        return encode_json({"data": result.data, "metadata": result.metadata}).decode()
    return encode_json(result.data).decode()


def reasoning_message_id(message_id: str) -> str:
    """Reasoning is its own message (role ``reasoning``), so it gets its own id."""
    return f"reasoning_{message_id}"


def result_message_id(tool_call_id: str) -> str:
    """Id of the tool message a result mints when the event carries none."""
    return f"result_{tool_call_id}"


class AgUiEncoder:
    """Stateful translator for one stream: call :meth:`encode` for each event in order."""

    def __init__(self, *, thread_id: str = "", run_id: str = "") -> None:
        """``thread_id``/``run_id`` name a run joined mid-way (a live resume): its first event
        is then preceded by a synthetic ``RUN_STARTED`` unless it is a ``run_start`` itself."""
        self.message_id = run_id
        self.thread_id = thread_id
        self.run_id = run_id
        self._started = False
        self._text_open: str | None = None
        self._reasoning_open: str | None = None
        self._open_tool_calls: list[str] = []
        self._step_counter = 0
        self._step_open: str | None = None
        self._interrupts: dict[str, PendingInterrupt] = {}
        self._streamed: dict[str, str] = {}
        self._finished = False

    @property
    def finished(self) -> bool:
        """A terminal event (``RUN_FINISHED`` or ``RUN_ERROR``) was produced."""
        return self._finished

    @property
    def pending_interrupts(self) -> list[PendingInterrupt]:
        """Interrupts recorded so far and not yet answered, in order."""
        return list(self._interrupts.values())

    # ------------------------------------------------------------------ span helpers
    def _close_text(self) -> list[AgUiEvent]:
        if self._text_open is None:
            return []
        event = {"type": "TEXT_MESSAGE_END", "messageId": self._text_open}
        self._text_open = None
        return [event]

    def _close_reasoning(self) -> list[AgUiEvent]:
        if self._reasoning_open is None:
            return []
        rid = self._reasoning_open
        self._reasoning_open = None
        return [
            {"type": "REASONING_MESSAGE_END", "messageId": rid},
            {"type": "REASONING_END", "messageId": rid},
        ]

    def _close_messages(self) -> list[AgUiEvent]:
        return self._close_text() + self._close_reasoning()

    def _close_all(self) -> list[AgUiEvent]:
        events = self._close_messages()
        events += [{"type": "TOOL_CALL_END", "toolCallId": i} for i in self._open_tool_calls]
        self._open_tool_calls.clear()
        if self._step_open is not None:
            events.append({"type": "STEP_FINISHED", "stepName": self._step_open})
            self._step_open = None
        return events

    # ------------------------------------------------------------------ encode
    def encode(self, event: AgentEvent) -> list[AgUiEvent]:
        """The AG-UI events ``event`` produces (possibly none)."""
        if self._finished:
            if not isinstance(event, RunStart):
                return []
            self._finished = False
        if not self._started and not isinstance(event, RunStart) and self.run_id:
            self._started = True
            return [
                {"type": "RUN_STARTED", "threadId": self.thread_id, "runId": self.run_id},
                *self._encode(event),
            ]
        return self._encode(event)

    def _encode(self, event: AgentEvent) -> list[AgUiEvent]:
        if isinstance(event, RunStart):
            return self._run_start(event)
        if isinstance(event, StepStart):
            events = self._close_all()
            self._step_counter += 1
            if event.message_id:
                self.message_id = event.message_id
            self._step_open = f"step_{self._step_counter}"
            events.append({"type": "STEP_STARTED", "stepName": self._step_open})
            return events
        if isinstance(event, TextDelta):
            events = self._close_reasoning()
            if self._text_open is None:
                self._text_open = self.message_id
                events.append(
                    {
                        "type": "TEXT_MESSAGE_START",
                        "messageId": self.message_id,
                        "role": "assistant",
                    }
                )
            events.append(
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": self._text_open, "delta": event.delta}
            )
            return events
        if isinstance(event, ReasoningDelta):
            events = self._close_text()
            if self._reasoning_open is None:
                rid = reasoning_message_id(self.message_id)
                self._reasoning_open = rid
                events.append({"type": "REASONING_START", "messageId": rid})
                events.append(
                    {"type": "REASONING_MESSAGE_START", "messageId": rid, "role": "reasoning"}
                )
            events.append(
                {
                    "type": "REASONING_MESSAGE_CONTENT",
                    "messageId": self._reasoning_open,
                    "delta": event.delta,
                }
            )
            return events
        if isinstance(event, ReasoningEncryptedValue):
            return [
                {
                    "type": "REASONING_ENCRYPTED_VALUE",
                    "subtype": "message",
                    "entityId": reasoning_message_id(self.message_id),
                    "encryptedValue": event.encrypted_value,
                }
            ]
        if isinstance(event, ToolCallStart):
            events = self._close_messages()
            if event.id not in self._open_tool_calls:
                self._open_tool_calls.append(event.id)
            events.append(
                {
                    "type": "TOOL_CALL_START",
                    "toolCallId": event.id,
                    "toolCallName": event.name,
                    "parentMessageId": self.message_id,
                }
            )
            return events
        if isinstance(event, ToolCallDelta):
            return [{"type": "TOOL_CALL_ARGS", "toolCallId": event.id, "delta": event.args_delta}]
        if isinstance(event, ToolCallReady):
            if event.id not in self._open_tool_calls:
                return []
            self._open_tool_calls.remove(event.id)
            return [{"type": "TOOL_CALL_END", "toolCallId": event.id}]
        if isinstance(event, ToolCallDone):
            return self._tool_done(event)
        if isinstance(event, ToolCallResumed):
            self._interrupts.pop(event.target_id, None)
            return [
                {
                    "type": "TOOL_CALL_RESULT",
                    "messageId": result_message_id(event.target_id),
                    "toolCallId": event.target_id,
                    "content": encode_json(event.result).decode(),
                    "role": "tool",
                }
            ]
        if isinstance(event, ToolCallStreamDelta):
            return [self._stream_delta(event)]
        if isinstance(event, StepEnd):
            return self._close_all()
        if isinstance(event, RunFinish):
            return self._run_finish(event)
        if isinstance(event, Error):
            self._finished = True
            error: AgUiEvent = {"type": "RUN_ERROR", "message": event.message}
            if event.code:
                error["code"] = event.code
            return [error]
        if isinstance(event, StateSnapshot):
            return [{"type": "STATE_SNAPSHOT", "snapshot": event.snapshot}]
        if isinstance(event, StateDelta):
            return [{"type": "STATE_DELTA", "delta": list(event.delta)}]
        if isinstance(event, MessagesSnapshot):
            return [{"type": "MESSAGES_SNAPSHOT", "messages": to_ag_ui_messages(event.messages)}]
        if isinstance(event, ActivitySnapshot):
            content = event.content if isinstance(event.content, dict) else {"value": event.content}
            snapshot: AgUiEvent = {
                "type": "ACTIVITY_SNAPSHOT",
                "messageId": event.message_id,
                "activityType": event.activity_type,
                "content": content,
            }
            if event.replace is not None:
                snapshot["replace"] = event.replace
            return [snapshot]
        if isinstance(event, ActivityDelta):
            return [
                {
                    "type": "ACTIVITY_DELTA",
                    "messageId": event.message_id,
                    "activityType": event.activity_type,
                    "patch": list(event.patch),
                }
            ]
        return []

    def _run_start(self, event: RunStart) -> list[AgUiEvent]:
        self._started = True
        self.thread_id = event.thread_id
        self.run_id = event.run_id
        self.message_id = event.run_id
        self._step_counter = 0
        started: AgUiEvent = {
            "type": "RUN_STARTED",
            "threadId": event.thread_id,
            "runId": event.run_id,
        }
        if event.parent_run_id:
            started["parentRunId"] = event.parent_run_id
        return [started]

    def _tool_done(self, event: ToolCallDone) -> list[AgUiEvent]:
        result = event.result
        if result.status is ToolStatus.PENDING:
            ticket = result.suspension
            if ticket is not None:
                suspension = ticket.suspension
                schema = suspension.response_schema
                self._interrupts[event.id] = PendingInterrupt(
                    id=suspension.id.strip() or event.id,
                    reason=suspension.action.strip() or DEFAULT_INTERRUPT_REASON,
                    tool_call_id=event.id,
                    message=suspension.message or None,
                    response_schema=schema if isinstance(schema, dict) else None,
                )
            return []
        self._interrupts.pop(event.id, None)
        self._streamed.pop(event.id, None)
        return [
            {
                "type": "TOOL_CALL_RESULT",
                "messageId": event.message_id or result_message_id(event.id),
                "toolCallId": event.id,
                "content": tool_result_content(result),
                "role": "tool",
            }
        ]

    def _stream_delta(self, event: ToolCallStreamDelta) -> AgUiEvent:
        previous = self._streamed.get(event.id)
        self._streamed[event.id] = (previous or "") + event.delta
        if previous is None:
            return {
                "type": "ACTIVITY_SNAPSHOT",
                "messageId": event.id,
                "activityType": TOOL_STREAM_ACTIVITY,
                "content": {"toolName": event.name, "output": event.delta},
            }
        return {
            "type": "ACTIVITY_DELTA",
            "messageId": event.id,
            "activityType": TOOL_STREAM_ACTIVITY,
            "patch": [{"op": "replace", "path": "/output", "value": self._streamed[event.id]}],
        }

    def _run_finish(self, event: RunFinish) -> list[AgUiEvent]:
        self._finished = True
        events = self._close_all()
        termination = event.termination
        if termination.type is TerminationKind.ERROR:
            events.append({"type": "RUN_ERROR", "message": termination.message or "run failed"})
            return events
        finished: AgUiEvent = {
            "type": "RUN_FINISHED",
            "threadId": event.thread_id,
            "runId": event.run_id,
        }
        if termination.type is TerminationKind.SUSPENDED:
            interrupts = [i.to_json() for i in self._interrupts.values()] or [
                {"id": event.run_id, "reason": DEFAULT_INTERRUPT_REASON}
            ]
            finished["outcome"] = {"type": "interrupt", "interrupts": interrupts}
        elif termination.type is TerminationKind.CANCELLED:
            finished["outcome"] = {"type": "cancelled"}
        else:
            if event.result is not None:
                finished["result"] = event.result
            finished["outcome"] = {"type": "success"}
        return [*events, finished]
