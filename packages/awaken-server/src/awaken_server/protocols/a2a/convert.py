"""A2A parts ↔ Awaken content blocks, and thread messages → A2A history messages."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlparse

from awaken_contract.codec import decode_json, encode_json
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

from awaken_server.protocols.a2a.wire import A2aMessage, Part
from awaken_server.protocols.media import media_block, media_kind

__all__ = [
    "ROLE_AGENT",
    "ROLE_USER",
    "blocks_from_parts",
    "infer_media_type",
    "parts_from_blocks",
    "to_a2a_message",
]

ROLE_USER = "ROLE_USER"
ROLE_AGENT = "ROLE_AGENT"

_SUFFIX_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".mp3": "audio/mpeg",
    ".wav": "audio/wav",
    ".mp4": "video/mp4",
    ".pdf": "application/pdf",
}
OCTET_STREAM = "application/octet-stream"


def infer_media_type(url: str) -> str:
    """The media type implied by a URL's file suffix (``application/octet-stream`` if none)."""
    path = urlparse(url).path or url
    suffix = posixpath.splitext(path)[1].lower()
    return _SUFFIX_TYPES.get(suffix, OCTET_STREAM)


def _block_from_part(part: Part) -> AnyContentBlock:
    if part.text is not None:
        return TextBlock(text=part.text)
    if part.data is not None:
        return TextBlock(text=encode_json(part.data).decode())
    if part.url is not None:
        media_type = part.media_type or infer_media_type(part.url)
        block = media_block(media_kind(media_type), UrlSource(url=part.url))
        if isinstance(block, DocumentBlock) and part.filename:
            block.title = part.filename
        return block
    media_type = part.media_type or OCTET_STREAM
    block = media_block(
        media_kind(media_type), Base64Source(media_type=media_type, data=part.raw or "")
    )
    if isinstance(block, DocumentBlock) and part.filename:
        block.title = part.filename
    return block


def blocks_from_parts(parts: Sequence[Part]) -> list[AnyContentBlock]:
    """Content blocks for validated parts (``data`` becomes compact JSON text)."""
    return [_block_from_part(p) for p in parts]


def _part_from_block(block: AnyContentBlock) -> Part | None:
    if isinstance(block, TextBlock):
        return Part(text=block.text) if block.text else None
    if isinstance(block, ImageBlock | AudioBlock | VideoBlock | DocumentBlock):
        source = block.source
        filename = block.title if isinstance(block, DocumentBlock) else None
        if isinstance(source, UrlSource):
            return Part(url=source.url, media_type=infer_media_type(source.url), filename=filename)
        return Part(raw=source.data, media_type=source.media_type, filename=filename)
    return None


def parts_from_blocks(blocks: Sequence[AnyContentBlock]) -> list[Part]:
    """A2A parts for the convertible blocks (text and media; tool/thinking blocks dropped)."""
    return [p for p in (_part_from_block(b) for b in blocks) if p is not None]


def to_a2a_message(message: Message, task_id: str, context_id: str) -> A2aMessage | None:
    """The A2A form of a visible user/assistant message with convertible content."""
    if message.is_internal or message.role not in (Role.USER, Role.ASSISTANT):
        return None
    parts = parts_from_blocks(message.content)
    if message.metadata is not None and message.metadata.structured_output:
        # the run's validated structured output: one DataPart with the JSON value
        parts = [Part(data=decode_json(message.text(), Any), media_type="application/json")]
    if not parts:
        return None
    return A2aMessage(
        message_id=message.id or "",
        role=ROLE_USER if message.role is Role.USER else ROLE_AGENT,
        parts=parts,
        task_id=task_id,
        context_id=context_id,
    )
