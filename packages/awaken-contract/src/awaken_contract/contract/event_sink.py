"""Event sinks: where a run sends its events."""

from __future__ import annotations

import abc
import asyncio
from collections.abc import AsyncIterator

from awaken_contract.contract.event import AgentEvent


class EventSink(abc.ABC):
    """Receives every event of a run, in order."""

    wants_state_snapshots: bool = True
    """False when the sink ignores ``state_snapshot`` events: the runtime then does not build
    them (they export the whole persisted state)."""

    wants_events: bool = True
    """False when the sink drops every event (:class:`NullEventSink`): the runtime then need
    not build the events of the loop (a run journal records them through its own sink)."""

    @abc.abstractmethod
    async def emit(self, event: AgentEvent) -> None:
        """Deliver one event."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Called once when the producer is done."""

    def skip_seq(self, count: int = 1) -> None:  # noqa: B027 - optional hook
        """``count`` run-journal entries that are not events took the next seqs (a sink that
        numbers its frames by journal seq advances its counter)."""


class NullEventSink(EventSink):
    """Discards events."""

    wants_state_snapshots = False
    wants_events = False

    async def emit(self, event: AgentEvent) -> None:
        """Drop the event."""


class VecEventSink(EventSink):
    """Collects events in memory (tests, one-shot CLIs)."""

    __slots__ = ("events",)

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    async def emit(self, event: AgentEvent) -> None:
        """Append the event."""
        self.events.append(event)

    def take(self) -> list[AgentEvent]:
        """Return the collected events and clear the buffer."""
        events, self.events = self.events, []
        return events

    def snapshot(self) -> list[AgentEvent]:
        """A copy of the collected events (buffer kept)."""
        return list(self.events)

    def __len__(self) -> int:
        return len(self.events)


_CLOSED = object()


class ChannelEventSink(EventSink):
    """A queue-backed sink that a consumer iterates with ``async for``.

    ``maxsize`` bounds the queue (0 = unbounded); a full queue makes the producer wait.
    """

    def __init__(self, maxsize: int = 0) -> None:
        self._queue: asyncio.Queue[object] = asyncio.Queue(maxsize)
        self._closed = False

    async def emit(self, event: AgentEvent) -> None:
        """Enqueue the event (ignored after close)."""
        if not self._closed:
            await self._queue.put(event)

    async def close(self) -> None:
        """Signal the end of the stream to the consumer."""
        if not self._closed:
            self._closed = True
            await self._queue.put(_CLOSED)

    async def __aiter__(self) -> AsyncIterator[AgentEvent]:
        while True:
            item = await self._queue.get()
            if item is _CLOSED:
                return
            assert isinstance(item, AgentEvent)
            yield item
