"""Decoding ``useChat`` v6 request bodies: UI messages → Awaken messages and HITL decisions."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from awaken_contract.contract.content import AnyContentBlock, TextBlock, text_of
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.suspension import ResumeDecisionAction, ToolCallResume
from awaken_contract.ids import new_id, now_ms

from awaken_server.protocols.body import body_messages, optional_id
from awaken_server.protocols.errors import ProtocolRequestError
from awaken_server.protocols.media import block_from_url

NO_INPUT_ERROR = "no new messages or interaction responses"


@dataclass(slots=True)
class ChatRequest:
    """A decoded ``POST /v1/ai-sdk/chat`` body (``DefaultChatTransport`` extras are ignored)."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    thread_id: str | None = None
    agent_id: str | None = None
    state: Any = None

    @classmethod
    def from_json(cls, body: Any) -> ChatRequest:
        """Validate a parsed JSON body; raises :class:`ProtocolRequestError` on bad shapes."""
        body, raw_messages = body_messages(body)
        messages: list[dict[str, Any]] = []
        for index, item in enumerate(raw_messages):
            if not isinstance(item, dict) or not isinstance(item.get("role"), str):
                raise ProtocolRequestError(f"messages[{index}] must be an object with a role")
            messages.append(item)
        return cls(
            messages=messages,
            thread_id=optional_id(body, "threadId", "thread_id"),
            agent_id=optional_id(body, "agentId", "agent_id"),
            state=body.get("state"),
        )


# --------------------------------------------------------------------------- messages


def _part_block(part: Any) -> AnyContentBlock | None:
    if not isinstance(part, dict):
        return None
    kind = part.get("type")
    text = part.get("text")
    if kind == "text" and isinstance(text, str):
        return TextBlock(text=text)
    url = part.get("url")
    if kind == "file" and isinstance(url, str) and url:
        media_type = part.get("mediaType")
        return block_from_url(url, media_type if isinstance(media_type, str) else None)
    return None


def message_parts(message: dict[str, Any]) -> list[Any]:
    """The ``parts`` of a UI message (absent → none; not an array → 400)."""
    parts = message.get("parts")
    if parts is None:
        return []
    if not isinstance(parts, list):
        raise ProtocolRequestError("message parts must be an array")
    return parts


def ui_message_blocks(message: dict[str, Any]) -> list[AnyContentBlock]:
    """Content blocks of a UI message: text and file parts, else a plain ``content`` string."""
    blocks = [b for b in (_part_block(p) for p in message_parts(message)) if b is not None]
    if not blocks and isinstance(message.get("content"), str) and message["content"]:
        blocks.append(TextBlock(text=message["content"]))
    return blocks


def convert_ui_messages(
    messages: Iterable[dict[str, Any]],
    *,
    known_ids: Collection[str] = (),
    keep_assistant: bool = False,
) -> list[Message]:
    """New input messages from UI messages.

    Messages whose ``id`` is in ``known_ids`` are dropped (already persisted). ``user`` keeps
    all blocks, ``system`` becomes text; ``assistant`` is history kept by the server and is
    dropped unless ``keep_assistant`` (draft previews send the whole transcript). The UI
    message id becomes the stored message id.
    """
    converted: list[Message] = []
    for message in messages:
        ui_id = message.get("id")
        ui_id = ui_id if isinstance(ui_id, str) and ui_id else None
        if ui_id is not None and ui_id in known_ids:
            continue
        role = message.get("role")
        blocks = ui_message_blocks(message)
        if not blocks:
            continue
        text = text_of(blocks)
        if role == "user":
            out = Message.user_with_content(blocks)
        elif role == "system" and text:
            out = Message.system(text)
        elif role == "assistant" and keep_assistant and text:
            out = Message.assistant(text)
        else:
            continue
        if ui_id is not None:
            out.id = ui_id
        converted.append(out)
    return converted


# --------------------------------------------------------------------------- decisions


def _decision_for(part: dict[str, Any]) -> tuple[str, ToolCallResume] | None:
    state = part.get("state")
    call_id = part.get("toolCallId")
    if not isinstance(state, str) or not isinstance(call_id, str):
        return None
    if state == "output-available":
        return call_id, _resume(ResumeDecisionAction.RESUME, part.get("output"))
    if state == "output-error":
        error = part.get("errorText") or "tool execution error"
        return call_id, _resume(ResumeDecisionAction.RESUME, {"error": error})
    if state == "output-denied":
        return call_id, _resume(ResumeDecisionAction.CANCEL, {"approved": False})
    if state == "approval-responded":
        approval = part.get("approval")
        if not isinstance(approval, dict):
            return None
        target = part.get("approvalId") or approval.get("id") or call_id
        if not isinstance(target, str) or not target:
            target = call_id
        action = (
            ResumeDecisionAction.CANCEL
            if approval.get("approved") is False
            else ResumeDecisionAction.RESUME
        )
        return target, _resume(action, approval)
    return None


def _resume(action: ResumeDecisionAction, result: Any) -> ToolCallResume:
    return ToolCallResume(action=action, decision_id=new_id(), result=result, updated_at=now_ms())


def extract_decisions(messages: Iterable[dict[str, Any]]) -> list[tuple[str, ToolCallResume]]:
    """HITL decisions carried by assistant tool parts (one per target; later parts win).

    Parts executed by the server (``providerExecuted: true``) are history and skipped.
    """
    found: dict[str, ToolCallResume] = {}
    for message in messages:
        if message.get("role") != Role.ASSISTANT.value:
            continue
        for part in message_parts(message):
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if not isinstance(kind, str) or not kind.startswith("tool-"):
                continue
            if part.get("providerExecuted") is True:
                continue
            decision = _decision_for(part)
            if decision is not None:
                found.pop(decision[0], None)
                found[decision[0]] = decision[1]
    return list(found.items())


def filter_decisions(
    decisions: Iterable[tuple[str, ToolCallResume]], waiting_targets: Collection[str]
) -> list[tuple[str, ToolCallResume]]:
    """Only the decisions whose target the run is actually waiting on."""
    return [(target, d) for target, d in decisions if target in waiting_targets]


@dataclass(slots=True)
class ChatInput:
    """What a chat request asks the runtime to do."""

    thread_id: str | None
    agent_id: str | None
    messages: list[Message]
    decisions: list[tuple[str, ToolCallResume]]
    has_interaction_responses: bool
    state: Any = None


def decode_chat_input(
    request: ChatRequest,
    *,
    known_ids: Collection[str] = (),
    waiting_targets: Collection[str] | None = None,
    keep_assistant: bool = False,
    empty_error: str = NO_INPUT_ERROR,
) -> ChatInput:
    """Turn a chat request into new messages and decisions; 400-style error when it is empty.

    ``waiting_targets`` (ticket ids and tool-call ids the thread's run waits on) filters the
    decisions; ``None`` keeps them all (draft previews).
    """
    all_decisions = extract_decisions(request.messages)
    decisions = (
        all_decisions
        if waiting_targets is None
        else filter_decisions(all_decisions, waiting_targets)
    )
    messages = convert_ui_messages(
        request.messages, known_ids=known_ids, keep_assistant=keep_assistant
    )
    if not messages and not decisions and not all_decisions:
        raise ProtocolRequestError(empty_error)
    return ChatInput(
        thread_id=request.thread_id,
        agent_id=request.agent_id,
        messages=messages,
        decisions=decisions,
        has_interaction_responses=bool(all_decisions),
        state=request.state,
    )
