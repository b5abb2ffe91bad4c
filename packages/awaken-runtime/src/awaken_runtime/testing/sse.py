"""The SSE client parser of the tests: frames of Awaken's SSE endpoints, data decoded as JSON.

Built on the engine's strict reader (:func:`awaken_runtime.engine.sse.iter_sse`), keeping ids
and comments (heartbeats).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any, Protocol

import msgspec

from awaken_runtime.engine.sse import SseDecoder, SseEvent

__all__ = [
    "SseFrame",
    "StreamingResponse",
    "collect_sse",
    "iter_sse",
    "iter_sse_lines",
    "parse_sse_text",
]


class StreamingResponse(Protocol):
    """What the parser reads: anything with ``aiter_lines()`` (an ``httpx.Response``)."""

    def aiter_lines(self) -> AsyncIterator[str]:
        """The body's lines without line endings."""
        ...


class SseFrame(msgspec.Struct):
    """One SSE frame: ``id`` (an int when numeric), ``event``, ``data`` (JSON-decoded, the raw
    text when it is not JSON, ``None`` for a comment-only frame) and ``comment``."""

    id: int | str | None = None
    event: str = "message"
    data: Any = None
    comment: str | None = None


def _decode(data: str) -> Any:
    try:
        return msgspec.json.decode(data)
    except msgspec.DecodeError:
        return data


def _frame(event: SseEvent) -> SseFrame:
    frame_id: int | str | None = event.id
    if event.id is not None and event.id.isdigit():
        frame_id = int(event.id)
    data = _decode(event.data) if event.data else None
    return SseFrame(frame_id, event.event, data, event.comment)


async def iter_sse_lines(lines: AsyncIterable[str]) -> AsyncIterator[SseFrame]:
    """Parse SSE ``lines`` frame by frame (a blank line ends a frame)."""
    decoder = SseDecoder("sse", keep_comments=True)
    async for line in lines:
        event = decoder.feed(line)
        if event is not None:
            yield _frame(event)
    event = decoder.finish()
    if event is not None:
        yield _frame(event)


def parse_sse_text(text: str) -> list[SseFrame]:
    """Every frame of a complete SSE body (e.g. ``response.text``)."""
    decoder = SseDecoder("sse", keep_comments=True)
    events = [decoder.feed(line) for line in text.splitlines()]
    events.append(decoder.finish())
    return [_frame(event) for event in events if event is not None]


def iter_sse(response: StreamingResponse) -> AsyncIterator[SseFrame]:
    """Parse a streaming response frame by frame."""
    return iter_sse_lines(response.aiter_lines())


async def collect_sse(response: StreamingResponse) -> list[SseFrame]:
    """Every frame of the response."""
    return [frame async for frame in iter_sse(response)]
