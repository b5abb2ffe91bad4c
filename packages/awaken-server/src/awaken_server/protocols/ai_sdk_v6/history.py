"""Thread history as AI SDK v6 UI messages (``GET /v1/ai-sdk/threads/:id/messages``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec
from awaken_contract.contract.content import TextBlock
from awaken_contract.contract.message import Message, Role

UiMessage = dict[str, Any]


def _text_parts(message: Message) -> list[dict[str, Any]]:
    return [{"type": "text", "text": b.text} for b in message.content if isinstance(b, TextBlock)]


def _parse_output(text: str) -> Any:
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError:
        return text


def encode_history(messages: Iterable[Message]) -> list[UiMessage]:
    """UI messages for stored messages: text parts, tool parts with their outputs merged in.

    A tool message fills the matching ``tool-<name>`` part of an earlier assistant message
    (``output-available``), unless its text says the call is still ``suspended``.
    """
    encoded: list[UiMessage] = []
    tool_parts: dict[str, dict[str, Any]] = {}
    for message in messages:
        message_id = message.id or ""
        if message.role in (Role.USER, Role.SYSTEM):
            parts = _text_parts(message)
            if parts:
                encoded.append({"id": message_id, "role": message.role.value, "parts": parts})
        elif message.role is Role.ASSISTANT:
            parts = _text_parts(message)
            for call in message.tool_calls or []:
                part = {
                    "type": f"tool-{call.name}",
                    "toolName": call.name,
                    "toolCallId": call.id,
                    "state": "input-available",
                    "input": call.arguments,
                    "providerExecuted": True,
                }
                tool_parts[call.id] = part
                parts.append(part)
            if parts:
                encoded.append({"id": message_id, "role": "assistant", "parts": parts})
        elif message.role is Role.TOOL:
            text = message.text()
            target = tool_parts.get(message.tool_call_id or "")
            if target is not None:
                if "suspended" not in text:
                    target["state"] = "output-available"
                    target["output"] = _parse_output(text)
                continue
            parts = _text_parts(message)
            encoded.append({"id": message_id, "role": "tool", "parts": parts})
    return encoded
