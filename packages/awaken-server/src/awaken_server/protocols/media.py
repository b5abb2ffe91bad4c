"""Media content blocks built from protocol file/media parts (shared by the adapters)."""

from __future__ import annotations

from typing import Literal

from awaken_contract.contract.content import (
    AudioBlock,
    Base64Source,
    DocumentBlock,
    ImageBlock,
    MediaSource,
    UrlSource,
    VideoBlock,
)

MediaKind = Literal["image", "audio", "video", "document"]

MediaBlock = ImageBlock | AudioBlock | VideoBlock | DocumentBlock


def media_kind(media_type: str | None) -> MediaKind:
    """The block kind for a MIME type (``image/``, ``audio/``, ``video/``; else document)."""
    mime = (media_type or "").lower()
    for prefix in ("image", "audio", "video"):
        if mime.startswith(prefix + "/"):
            return prefix
    return "document"


def media_block(kind: MediaKind, source: MediaSource) -> MediaBlock:
    """A content block of ``kind`` holding ``source``."""
    if kind == "image":
        return ImageBlock(source=source)
    if kind == "audio":
        return AudioBlock(source=source)
    if kind == "video":
        return VideoBlock(source=source)
    return DocumentBlock(source=source)


def parse_data_url(url: str) -> Base64Source | None:
    """``data:<mime>;base64,<data>`` → a base64 source; anything else → None."""
    if not url.startswith("data:"):
        return None
    header, sep, data = url[5:].partition(",")
    if not sep or not header.endswith(";base64"):
        return None
    mime = header[: -len(";base64")] or "application/octet-stream"
    return Base64Source(media_type=mime, data=data)


def block_from_url(url: str, media_type: str | None) -> MediaBlock:
    """A media block for a ``data:`` URL (kind from its MIME) or a URL (kind from media_type)."""
    inline = parse_data_url(url)
    if inline is not None:
        return media_block(media_kind(inline.media_type), inline)
    return media_block(media_kind(media_type), UrlSource(url=url))
