"""A strict Server-Sent Events reader for provider streams."""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgspec
from awaken_contract.errors import ProviderError

__all__ = ["SseEvent", "iter_sse"]

_FIELDS = ("data", "event", "id", "retry")
_MAX_LINE_IN_ERROR = 500


class SseEvent(msgspec.Struct, frozen=True, gc=False):
    """One dispatched SSE event: its ``event`` name (``"message"`` by default) and data."""

    data: str
    event: str = "message"

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


async def iter_sse(lines: AsyncIterator[str], provider: str) -> AsyncIterator[SseEvent]:
    """Group ``lines`` (without line endings) into SSE events.

    Comment lines (``:``) are skipped. A line that is not an SSE field raises ``ProviderError``
    quoting the line, so a JSON error page or a truncated body is reported instead of ignored.
    """
    data: list[str] = []
    event = "message"
    async for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield SseEvent("\n".join(data), event)
            data, event = [], "message"
            continue
        if line.startswith(":"):
            continue
        name, sep, value = line.partition(":")
        if not sep or name not in _FIELDS:
            raise ProviderError(f"malformed stream line from {provider}: {_clip(line)}")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value or "message"
    if data:
        yield SseEvent("\n".join(data), event)
