"""AgentEvent → AI SDK v6 UI-message-stream parts (one encoder per HTTP stream).

The parts follow the ``ai`` package's ``uiMessageChunkSchema`` (v6): ``start``/``finish``,
``start-step``/``finish-step``, ``text-*``, ``reasoning-*``, ``tool-input-*``,
``tool-output-*``, ``tool-approval-request``, ``source-*``, ``file``, ``error`` and
``data-<name>`` parts (``data-output`` carries a run's structured output, right before
``finish``). Optional keys are omitted, never sent as null.
"""

from __future__ import annotations

from typing import Any

from awaken_contract.codec import to_builtins
from awaken_contract.contract.event import (
    ActivityDelta,
    ActivitySnapshot,
    AgentEvent,
    Error,
    InferenceComplete,
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
from awaken_contract.contract.suspension import ToolCallResumeMode
from awaken_contract.contract.tool import ToolResult, ToolStatus

Part = dict[str, Any]
"""One UI-message-stream part (a JSON object with a ``type``)."""

_FINISH_REASONS: dict[TerminationKind, str] = {
    TerminationKind.NATURAL_END: "stop",
    TerminationKind.BEHAVIOR_REQUESTED: "stop",
    TerminationKind.STOPPED: "stop",
    TerminationKind.CANCELLED: "stop",
    TerminationKind.ERROR: "error",
    TerminationKind.BLOCKED: "content-filter",
    TerminationKind.SUSPENDED: "tool-calls",
}

_DEFAULT_MEDIA_TYPE = "application/octet-stream"

OUTPUT_PART = "data-output"
"""The part carrying a run's validated structured output (``data``: the JSON value)."""


def data_part(name: str, data: Any, *, id: str | None = None, transient: bool = False) -> Part:
    """A ``data-<name>`` part (the prefix is added unless already present)."""
    part: Part = {"type": name if name.startswith("data-") else f"data-{name}"}
    if id is not None:
        part["id"] = id
    part["data"] = data
    if transient:
        part["transient"] = True
    return part


def finish_reason(kind: TerminationKind) -> str:
    """The ``finishReason`` of a ``finish`` part for a run that ended with ``kind``."""
    return _FINISH_REASONS[kind]


def tool_output(result: ToolResult) -> Any:
    """What ``tool-output-available`` reports for a successful result."""
    if result.metadata:
        return {"data": result.data, "metadata": result.metadata}
    return result.data


class AiSdkEncoder:
    """Stateful translator for one stream: call :meth:`encode` for each event in order."""

    def __init__(self) -> None:
        self.message_id = ""
        self._step_message_id_taken = False
        self._text_open = False
        self._text_counter = 0
        self._open_reasoning: set[str] = set()
        self._stream_outputs: dict[str, str] = {}
        self._finished = False

    @property
    def finished(self) -> bool:
        """A terminal part (``finish`` or ``error``) was produced."""
        return self._finished

    # ------------------------------------------------------------------ helpers
    def _text_id(self) -> str:
        return f"txt_{self._text_counter}"

    def _reasoning_id(self) -> str:
        return f"reasoning_{self.message_id}"

    def _close_text(self) -> list[Part]:
        if not self._text_open:
            return []
        part = {"type": "text-end", "id": self._text_id()}
        self._text_open = False
        self._text_counter += 1
        return [part]

    def _close_reasoning(self) -> list[Part]:
        parts = [{"type": "reasoning-end", "id": rid} for rid in sorted(self._open_reasoning)]
        self._open_reasoning.clear()
        return parts

    def _close_blocks(self) -> list[Part]:
        return self._close_text() + self._close_reasoning()

    # ------------------------------------------------------------------ encode
    def encode(self, event: AgentEvent) -> list[Part]:
        """The parts ``event`` produces (possibly none)."""
        if self._finished:
            if not isinstance(event, RunStart):
                return []
            self._finished = False
        return self._encode(event)

    def _encode(self, event: AgentEvent) -> list[Part]:
        if isinstance(event, RunStart):
            self.message_id = event.run_id
            return [
                {"type": "start", "messageId": event.run_id},
                data_part("run-info", {"runId": event.run_id, "threadId": event.thread_id}),
            ]
        if isinstance(event, StepStart):
            if event.message_id and not self._step_message_id_taken:
                self.message_id = event.message_id
                self._step_message_id_taken = True
            return [{"type": "start-step"}]
        if isinstance(event, TextDelta):
            parts: list[Part] = []
            if not self._text_open:
                self._text_open = True
                parts.append({"type": "text-start", "id": self._text_id()})
            parts.append({"type": "text-delta", "id": self._text_id(), "delta": event.delta})
            return parts
        if isinstance(event, ReasoningDelta):
            rid = self._reasoning_id()
            parts = []
            if rid not in self._open_reasoning:
                self._open_reasoning.add(rid)
                parts.append({"type": "reasoning-start", "id": rid})
            parts.append({"type": "reasoning-delta", "id": rid, "delta": event.delta})
            return parts
        if isinstance(event, ReasoningEncryptedValue):
            return [
                data_part(
                    "reasoning-encrypted",
                    {"encryptedValue": event.encrypted_value},
                    id=self._reasoning_id(),
                    transient=True,
                )
            ]
        if isinstance(event, ToolCallStart):
            return [
                *self._close_text(),
                {"type": "tool-input-start", "toolCallId": event.id, "toolName": event.name},
            ]
        if isinstance(event, ToolCallDelta):
            return [
                {
                    "type": "tool-input-delta",
                    "toolCallId": event.id,
                    "inputTextDelta": event.args_delta,
                }
            ]
        if isinstance(event, ToolCallReady):
            return [
                {
                    "type": "tool-input-available",
                    "toolCallId": event.id,
                    "toolName": event.name,
                    "input": event.arguments,
                }
            ]
        if isinstance(event, ToolCallStreamDelta):
            accumulated = self._stream_outputs.get(event.id, "") + event.delta
            self._stream_outputs[event.id] = accumulated
            return [
                {
                    "type": "tool-output-available",
                    "toolCallId": event.id,
                    "output": accumulated,
                    "preliminary": True,
                    "providerExecuted": True,
                }
            ]
        if isinstance(event, ToolCallDone):
            return self._tool_done(event)
        if isinstance(event, ToolCallResumed):
            return [self._tool_resumed(event)]
        if isinstance(event, StepEnd):
            return [*self._close_blocks(), {"type": "finish-step"}]
        if isinstance(event, RunFinish):
            self._finished = True
            parts = self._close_blocks()
            kind = event.termination.type
            if kind is TerminationKind.SUSPENDED:
                parts.append({"type": "finish-step"})
            if event.result is not None and "output" in event.result:
                parts.append(data_part(OUTPUT_PART, event.result["output"]))
            parts.append({"type": "finish", "finishReason": finish_reason(kind)})
            return parts
        if isinstance(event, Error):
            self._finished = True
            return [{"type": "error", "errorText": event.message}]
        if isinstance(event, StateSnapshot):
            return [data_part("state-snapshot", event.snapshot)]
        if isinstance(event, StateDelta):
            return [data_part("state-delta", list(event.delta))]
        if isinstance(event, MessagesSnapshot):
            return [data_part("messages-snapshot", list(event.messages))]
        if isinstance(event, ActivitySnapshot):
            return self._activity_snapshot(event)
        if isinstance(event, ActivityDelta):
            return [
                data_part(
                    "activity-delta",
                    {
                        "messageId": event.message_id,
                        "activityType": event.activity_type,
                        "patch": list(event.patch),
                    },
                )
            ]
        if isinstance(event, InferenceComplete):
            usage = to_builtins(event.usage) if event.usage is not None else None
            return [
                data_part(
                    "inference-complete",
                    {"model": event.model, "usage": usage, "durationMs": event.duration_ms},
                )
            ]
        return []

    def _tool_done(self, event: ToolCallDone) -> list[Part]:
        result = event.result
        if result.status is ToolStatus.SUCCESS:
            self._stream_outputs.pop(event.id, None)
            return [
                {
                    "type": "tool-output-available",
                    "toolCallId": event.id,
                    "output": tool_output(result),
                    "providerExecuted": True,
                }
            ]
        if result.status is ToolStatus.ERROR:
            self._stream_outputs.pop(event.id, None)
            return [
                {
                    "type": "tool-output-error",
                    "toolCallId": event.id,
                    "errorText": result.message or "tool execution error",
                    "providerExecuted": True,
                }
            ]
        ticket = result.suspension
        if (
            ticket is not None
            and ticket.resume_mode is ToolCallResumeMode.REPLAY_TOOL_CALL
            and ticket.suspension.id.strip()
        ):
            return [
                {
                    "type": "tool-approval-request",
                    "approvalId": ticket.suspension.id,
                    "toolCallId": event.id,
                }
            ]
        return []

    @staticmethod
    def _tool_resumed(event: ToolCallResumed) -> Part:
        result = event.result
        if isinstance(result, dict):
            error = result.get("error")
            if isinstance(error, str):
                return {
                    "type": "tool-output-error",
                    "toolCallId": event.target_id,
                    "errorText": error,
                    "providerExecuted": True,
                }
            if result.get("approved") is False:
                return {"type": "tool-output-denied", "toolCallId": event.target_id}
        return {
            "type": "tool-output-available",
            "toolCallId": event.target_id,
            "output": result,
            "providerExecuted": True,
        }

    def _activity_snapshot(self, event: ActivitySnapshot) -> list[Part]:
        content = event.content if isinstance(event.content, dict) else {}
        parts: list[Part] = []
        kind = event.activity_type
        if kind == "source-url":
            part: Part = {
                "type": "source-url",
                "sourceId": content.get("sourceId") or event.message_id,
                "url": content.get("url") or "",
            }
            if isinstance(content.get("title"), str):
                part["title"] = content["title"]
            parts.append(part)
        elif kind == "source-document":
            # The v6 schema requires ``title``; fall back to the filename, then "".
            title = content.get("title") or content.get("filename") or ""
            part = {
                "type": "source-document",
                "sourceId": content.get("sourceId") or event.message_id,
                "mediaType": content.get("mediaType") or _DEFAULT_MEDIA_TYPE,
                "title": title,
            }
            if isinstance(content.get("filename"), str):
                part["filename"] = content["filename"]
            parts.append(part)
        elif kind == "file":
            parts.append(
                {
                    "type": "file",
                    "url": content.get("url") or "",
                    "mediaType": content.get("mediaType") or _DEFAULT_MEDIA_TYPE,
                }
            )
        parts.append(
            data_part(
                "activity-snapshot",
                {
                    "messageId": event.message_id,
                    "activityType": kind,
                    "content": event.content,
                    "replace": event.replace,
                },
            )
        )
        return parts
