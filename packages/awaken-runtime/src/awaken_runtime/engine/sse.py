"""A strict Server-Sent Events reader: provider streams, and (keeping ids and comments) the
test client of Awaken's own SSE endpoints (:mod:`awaken_runtime.testing.sse`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgspec
from awaken_contract.errors import ProviderError

__all__ = ["SseDecoder", "SseEvent", "iter_sse"]

_FIELDS = ("data", "event", "id", "retry")
_MAX_LINE_IN_ERROR = 500


class SseEvent(msgspec.Struct, frozen=True):
    """One dispatched SSE event: its ``event`` name (``"message"`` by default), data, last
    ``id`` field and (when comments are kept) the text of its comment lines."""

    data: str
    event: str = "message"
    id: str | None = None
    comment: str | None = None

    def json(self, provider: str) -> object:
        """The data decoded as JSON (``ProviderError`` naming the line when malformed)."""
        try:
            return msgspec.json.decode(self.data)
        except msgspec.DecodeError:
            raise ProviderError(
                f"malformed stream line from {provider}: {_clip(self.data)}"
            ) from None


def _clip(line: str) -> str:
    return line if len(line) <= _MAX_LINE_IN_ERROR else line[:_MAX_LINE_IN_ERROR] + "…"


class SseDecoder:
    """Incremental SSE decoder: :meth:`feed` one line at a time, :meth:`finish` at the end.

    Comment lines (``:``) are skipped, or with ``keep_comments`` kept on the event (a frame of
    comments alone is then dispatched too). A line that is not an SSE field raises
    ``ProviderError`` quoting the line, so a JSON error page or a truncated body is reported
    instead of ignored.
    """

    def __init__(self, provider: str, *, keep_comments: bool = False) -> None:
        self._provider = provider
        self._keep_comments = keep_comments
        self._reset()

    def _reset(self) -> None:
        self._data: list[str] = []
        self._event = "message"
        self._id: str | None = None
        self._comment: str | None = None

    def feed(self, raw: str) -> SseEvent | None:
        """Take one line (line ending optional); the event a blank line completes, if any."""
        line = raw.rstrip("\r\n")
        if not line:
            return self.finish()
        if line.startswith(":"):
            if self._keep_comments:
                self._comment = line[1:].strip()
            return None
        name, sep, value = line.partition(":")
        if not sep or name not in _FIELDS:
            raise ProviderError(f"malformed stream line from {self._provider}: {_clip(line)}")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value or "message"
        elif name == "id":
            self._id = value
        return None

    def finish(self) -> SseEvent | None:
        """The pending event (at a blank line or the end of the stream), if any."""
        event = None
        if self._data or self._comment is not None:
            event = SseEvent("\n".join(self._data), self._event, self._id, self._comment)
        self._reset()
        return event


async def iter_sse(
    lines: AsyncIterator[str], provider: str, *, keep_comments: bool = False
) -> AsyncIterator[SseEvent]:
    """Group ``lines`` (without line endings) into SSE events (see :class:`SseDecoder`)."""
    decoder = SseDecoder(provider, keep_comments=keep_comments)
    async for raw in lines:
        event = decoder.feed(raw)
        if event is not None:
            yield event
    event = decoder.finish()
    if event is not None:
        yield event
