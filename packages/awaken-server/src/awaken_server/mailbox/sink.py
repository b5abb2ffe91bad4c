"""ReconnectableEventSink: a sink whose destination can be swapped while the run is alive.

A suspended run keeps waiting for decisions after its first HTTP stream ended with
``run_finish(suspended)``; a new request calls ``reconnect(new_sink)`` before delivering the
decision so that the resumed events reach the new stream (book: "SSE reconnection").
"""

from __future__ import annotations

import logging

from awaken_contract.contract.event import AgentEvent
from awaken_contract.contract.event_sink import EventSink, NullEventSink

__all__ = ["FanoutEventSink", "ReconnectableEventSink"]

_log = logging.getLogger(__name__)

_NOWHERE = NullEventSink()
"""The target of a sink nobody listens to (its events are not even awaited)."""


class ReconnectableEventSink(EventSink):
    """Forwards events to the current target; a failing (closed) target is ignored."""

    __slots__ = ("_target", "connected")

    def __init__(self, target: EventSink | None = None) -> None:
        self._target: EventSink = target or _NOWHERE
        self.connected = self._target is not _NOWHERE
        """Whether events go anywhere (a sink without a target drops them unawaited)."""

    @property
    def target(self) -> EventSink:
        """Where events currently go."""
        return self._target

    def reconnect(self, target: EventSink) -> None:
        """Send every later event to ``target``; the old target receives nothing more."""
        self._target = target
        self.connected = target is not _NOWHERE

    async def emit(self, event: AgentEvent) -> None:
        """Deliver to the current target (awaiting its backpressure)."""
        target = self._target
        if target is _NOWHERE:
            return
        try:
            await target.emit(event)
        except Exception:  # a gone client must never break the run
            _log.debug("event sink target failed; event dropped", exc_info=True)

    async def close(self) -> None:
        """No-op: the run outlives any single connection."""


class FanoutEventSink(EventSink):
    """Emits every event to several sinks in order."""

    __slots__ = ("sinks",)

    def __init__(self, *sinks: EventSink) -> None:
        self.sinks = list(sinks)

    async def emit(self, event: AgentEvent) -> None:
        """Deliver to each sink."""
        for sink in self.sinks:
            await sink.emit(event)
