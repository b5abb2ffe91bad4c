"""Awaken messages ↔ AG-UI messages (``@ag-ui/core`` ``Message`` union)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from awaken_contract.codec import convert, encode_json
from awaken_contract.contract.content import (
    AnyContentBlock,
    AudioBlock,
    Base64Source,
    DocumentBlock,
    ImageBlock,
    TextBlock,
    UrlSource,
    VideoBlock,
)
from awaken_contract.contract.message import Message, Role
from awaken_contract.errors import DecodeError
from awaken_contract.ids import new_id

from awaken_server.protocols.media import MediaKind, media_block

AgUiMessage = dict[str, Any]

_MEDIA_KINDS: dict[type, str] = {
    ImageBlock: "image",
    AudioBlock: "audio",
    VideoBlock: "video",
    DocumentBlock: "document",
}


def _content_part(block: AnyContentBlock) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    kind = _MEDIA_KINDS.get(type(block))
    if kind is None:
        return None
    source = block.source  # type: ignore[union-attr]
    if isinstance(source, Base64Source):
        src = {"type": "data", "value": source.data, "mimeType": source.media_type}
    else:
        src = {"type": "url", "value": source.url}
    return {"type": kind, "source": src}


def to_ag_ui_message(message: Message) -> AgUiMessage | None:
    """The AG-UI form of one stored message (None for messages AG-UI cannot show)."""
    message_id = message.id or new_id()
    text = message.text()
    if message.role is Role.USER:
        parts = [p for p in (_content_part(b) for b in message.content) if p is not None]
        only_text = all(p["type"] == "text" for p in parts)
        content: Any = text if only_text else parts
        return {"id": message_id, "role": "user", "content": content}
    if message.role is Role.SYSTEM:
        return {"id": message_id, "role": "system", "content": text}
    if message.role is Role.ASSISTANT:
        out: AgUiMessage = {"id": message_id, "role": "assistant"}
        if text:
            out["content"] = text
        if message.tool_calls:
            out["toolCalls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": encode_json(call.arguments).decode(),
                    },
                }
                for call in message.tool_calls
            ]
        return out
    if message.role is Role.TOOL and message.tool_call_id:
        return {
            "id": message_id,
            "role": "tool",
            "content": text,
            "toolCallId": message.tool_call_id,
        }
    return None


def to_ag_ui_messages(items: Iterable[Any]) -> list[AgUiMessage]:
    """AG-UI messages for a ``messages_snapshot`` payload (stored messages or their JSON).

    Internal (model-only) messages are left out; items already in AG-UI form pass through.
    """
    out: list[AgUiMessage] = []
    for item in items:
        message = item
        if not isinstance(item, Message):
            try:
                message = convert(item, Message)
            except DecodeError:
                if isinstance(item, dict) and isinstance(item.get("id"), str):
                    out.append(item)
                continue
        if message.is_internal:
            continue
        converted = to_ag_ui_message(message)
        if converted is not None:
            out.append(converted)
    return out


# --------------------------------------------------------------------------- inbound

_PART_KINDS: dict[str, MediaKind] = {
    "image": "image",
    "audio": "audio",
    "video": "video",
    "document": "document",
}


def _source(value: Any) -> Base64Source | UrlSource | None:
    if not isinstance(value, dict) or not isinstance(value.get("value"), str):
        return None
    kind = value.get("type")
    if kind == "data":
        mime = value.get("mimeType")
        if not isinstance(mime, str) or not mime:
            return None
        return Base64Source(media_type=mime, data=value["value"])
    if kind == "url":
        return UrlSource(url=value["value"])
    return None


def content_blocks(content: Any) -> list[AnyContentBlock]:
    """Blocks of an AG-UI ``content`` (string or content parts); invalid parts are skipped."""
    if isinstance(content, str):
        return [TextBlock(text=content)] if content else []
    if not isinstance(content, list):
        return []
    blocks: list[AnyContentBlock] = []
    for part in content:
        if not isinstance(part, dict):
            continue
        kind = str(part.get("type", "")).lower()
        if kind == "text" and isinstance(part.get("text"), str):
            blocks.append(TextBlock(text=part["text"]))
        elif kind in _PART_KINDS:
            source = _source(part.get("source"))
            if source is not None:
                blocks.append(media_block(_PART_KINDS[kind], source))
    return blocks
