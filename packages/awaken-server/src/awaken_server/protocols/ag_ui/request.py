"""Decoding AG-UI ``RunAgentInput``: messages, frontend tools, state/context and resumes."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import msgspec
from awaken_contract.contract.content import text_of
from awaken_contract.contract.message import Message
from awaken_contract.contract.suspension import ResumeDecisionAction, ToolCallResume
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.ids import new_id, now_ms

from awaken_server.protocols.ag_ui.messages import content_blocks
from awaken_server.protocols.body import body_messages, optional_id
from awaken_server.protocols.errors import ProtocolRequestError

NO_MESSAGE_ERROR = "at least one message is required"
FRONTEND_TOOL_DESCRIPTION = "Frontend tool"


@dataclass(slots=True)
class RunAgentInput:
    """A decoded AG-UI run request (``runId``, ``forwardedProps`` and unknown keys ignored)."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    thread_id: str | None = None
    agent_id: str | None = None
    tools: list[ToolDescriptor] = field(default_factory=list)
    state: Any = None
    context: Any = None
    resume: list[tuple[str, ToolCallResume]] = field(default_factory=list)

    @classmethod
    def from_json(cls, body: Any) -> RunAgentInput:
        """Validate a parsed JSON body; raises :class:`ProtocolRequestError` on bad shapes."""
        body, raw_messages = body_messages(body)
        messages = [m for m in raw_messages if isinstance(m, dict)]
        return cls(
            messages=messages,
            thread_id=optional_id(body, "threadId", "thread_id"),
            agent_id=optional_id(body, "agentId", "agent_id"),
            tools=_frontend_tools(body.get("tools")),
            state=body.get("state"),
            context=body.get("context"),
            resume=_resume_decisions(body.get("resume")),
        )

    def frontend_context(self) -> Any:
        """The client context handed to the model: ``state`` and ``context`` merged.

        Empty values (``None``, ``{}``, ``[]``) count as absent. Two objects merge with
        ``context`` keys winning; otherwise both are kept side by side.
        """
        state = None if _is_empty(self.state) else self.state
        context = None if _is_empty(self.context) else self.context
        if state is None or context is None:
            return context if state is None else state
        if isinstance(state, dict) and isinstance(context, dict):
            return {**state, **context}
        return {"state": state, "context": context}


def _is_empty(value: Any) -> bool:
    return value is None or value == {} or value == []


def _frontend_tools(raw: Any) -> list[ToolDescriptor]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ProtocolRequestError("tools must be an array")
    tools: list[ToolDescriptor] = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"]:
            raise ProtocolRequestError(f"tools[{index}] must be an object with a name")
        description = item.get("description")
        descriptor = ToolDescriptor(
            id=item["name"],
            name=item["name"],
            description=description
            if isinstance(description, str) and description
            else (FRONTEND_TOOL_DESCRIPTION),
        )
        parameters = item.get("parameters")
        if isinstance(parameters, dict):
            descriptor.with_parameters(parameters)
        tools.append(descriptor)
    return tools


def decision_from_payload(payload: Any, *, cancelled: bool = False) -> ToolCallResume:
    """A decision answering an interrupt: cancel when asked to or when ``approved`` is false."""
    approved_false = isinstance(payload, dict) and payload.get("approved") is False
    action = (
        ResumeDecisionAction.CANCEL if cancelled or approved_false else ResumeDecisionAction.RESUME
    )
    return ToolCallResume(action=action, decision_id=new_id(), result=payload, updated_at=now_ms())


def _resume_entry(entry: Any) -> tuple[str, ToolCallResume] | None:
    if not isinstance(entry, dict):
        return None
    target = entry.get("interruptId", entry.get("interrupt_id"))
    if not isinstance(target, str) or not target:
        return None
    cancelled = entry.get("status") == "cancelled"
    return target, decision_from_payload(entry.get("payload"), cancelled=cancelled)


def _resume_decisions(raw: Any) -> list[tuple[str, ToolCallResume]]:
    """Official ``resume: ResumeEntry[]`` and the older single ``{interruptId, payload}``."""
    entries = raw if isinstance(raw, list) else [raw]
    return [d for d in (_resume_entry(e) for e in entries) if d is not None]


def _tool_output(content: Any) -> Any:
    if isinstance(content, str):
        try:
            return msgspec.json.decode(content)
        except msgspec.DecodeError:
            return content
    return content


@dataclass(slots=True)
class AgUiRunInput:
    """What an AG-UI run request asks the runtime to do."""

    thread_id: str | None
    agent_id: str | None
    messages: list[Message]
    decisions: list[tuple[str, ToolCallResume]]
    frontend_tools: list[ToolDescriptor]
    context: Any = None


def decode_run_input(
    request: RunAgentInput,
    *,
    known_ids: Collection[str] = (),
    has_history: bool = False,
    waiting_targets: Collection[str] = (),
) -> AgUiRunInput:
    """New input messages and decisions of a run request.

    Clients resend the whole conversation, so messages whose ``id`` is already stored are
    dropped and, once the thread has history, assistant messages are too (the server owns
    it). A ``tool`` message answering a call the run waits on becomes a decision, as do
    ``resume`` entries. ``developer`` messages are treated as system messages.
    """
    decisions = list(request.resume)
    targets = {t for t, _ in decisions}
    messages: list[Message] = []
    for item in request.messages:
        ui_id = item.get("id")
        ui_id = ui_id if isinstance(ui_id, str) and ui_id else None
        if ui_id is not None and ui_id in known_ids:
            continue
        role = item.get("role")
        if role == "tool":
            call_id = item.get("toolCallId")
            if isinstance(call_id, str) and call_id in waiting_targets and call_id not in targets:
                decisions.append(
                    (call_id, decision_from_payload(_tool_output(item.get("content"))))
                )
                targets.add(call_id)
            continue
        blocks = content_blocks(item.get("content"))
        if not blocks:
            continue
        text = text_of(blocks)
        if role == "user":
            message = Message.user_with_content(blocks)
        elif role in ("system", "developer") and text:
            message = Message.system(text)
        elif role == "assistant" and text and not has_history:
            message = Message.assistant(text)
        else:
            continue
        if ui_id is not None:
            message.id = ui_id
        messages.append(message)
    if not messages and not decisions:
        raise ProtocolRequestError(NO_MESSAGE_ERROR)
    return AgUiRunInput(
        thread_id=request.thread_id,
        agent_id=request.agent_id,
        messages=messages,
        decisions=decisions,
        frontend_tools=list(request.tools),
        context=request.frontend_context(),
    )
