"""Content blocks: the pieces a message is made of (text, media, tool use, reasoning)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec


class Base64Source(msgspec.Struct, tag_field="type", tag="base64", gc=False):
    """Inline binary data (image, document, audio or video)."""

    media_type: str
    data: str


class UrlSource(msgspec.Struct, tag_field="type", tag="url", gc=False):
    """Media referenced by URL."""

    url: str


MediaSource = Base64Source | UrlSource


class ContentBlock(msgspec.Struct, tag_field="type", omit_defaults=True):
    """Base of every content block; JSON is tagged by ``"type"``."""

    @classmethod
    def text(cls, text: str) -> TextBlock:
        """A text block."""
        return TextBlock(text=text)

    @classmethod
    def thinking(cls, thinking: str) -> ThinkingBlock:
        """A reasoning block."""
        return ThinkingBlock(thinking=thinking)

    @classmethod
    def image_url(cls, url: str) -> ImageBlock:
        """An image referenced by URL."""
        return ImageBlock(source=UrlSource(url=url))

    @classmethod
    def image_base64(cls, media_type: str, data: str) -> ImageBlock:
        """An inline base64 image."""
        return ImageBlock(source=Base64Source(media_type=media_type, data=data))

    @classmethod
    def tool_use(cls, id: str, name: str, input: Any) -> ToolUseBlock:
        """A tool invocation block."""
        return ToolUseBlock(id=id, name=name, input=input)


class TextBlock(ContentBlock, tag="text", gc=False):
    """Plain text."""

    text: str  # type: ignore[assignment]


class ImageBlock(ContentBlock, tag="image", gc=False):
    """An image."""

    source: MediaSource


class DocumentBlock(ContentBlock, tag="document", gc=False):
    """A document (e.g. PDF)."""

    source: MediaSource
    title: str | None = None


class AudioBlock(ContentBlock, tag="audio", gc=False):
    """An audio clip."""

    source: MediaSource


class VideoBlock(ContentBlock, tag="video", gc=False):
    """A video clip."""

    source: MediaSource


class ToolUseBlock(ContentBlock, tag="tool_use"):
    """A tool invocation embedded in content."""

    id: str
    name: str
    input: Any


class ToolResultBlock(ContentBlock, tag="tool_result"):
    """The result of a tool invocation, as content blocks."""

    tool_use_id: str
    content: list[AnyContentBlock]


class ThinkingBlock(ContentBlock, tag="thinking", gc=False):
    """Model reasoning ("thinking") text."""

    thinking: str  # type: ignore[assignment]


AnyContentBlock = (
    TextBlock
    | ImageBlock
    | DocumentBlock
    | AudioBlock
    | VideoBlock
    | ToolUseBlock
    | ToolResultBlock
    | ThinkingBlock
)


def text_of(blocks: Iterable[ContentBlock]) -> str:
    """Concatenate the text of every text block, ignoring other block types."""
    if type(blocks) is list and len(blocks) < 2:  # the usual shapes, without a generator
        if not blocks:
            return ""
        block = blocks[0]
        return block.text if isinstance(block, TextBlock) else ""
    return "".join(b.text for b in blocks if isinstance(b, TextBlock))
