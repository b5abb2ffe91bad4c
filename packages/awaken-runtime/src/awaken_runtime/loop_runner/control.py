"""A run's control channel: decisions and messages sent to the live run, read by the loop.

Most runs never receive one, so the queue behind it (three deques and an event, about 3 KB) is
made on first use rather than for every run.
"""

from __future__ import annotations

import asyncio

from awaken_runtime.loop_runner.params import ControlMessage

__all__ = ["ControlChannel"]


class ControlChannel:
    """FIFO of :data:`ControlMessage` (the subset of ``asyncio.Queue`` the loop uses)."""

    __slots__ = ("_queue",)

    def __init__(self) -> None:
        self._queue: asyncio.Queue[ControlMessage] | None = None

    def _ready(self) -> asyncio.Queue[ControlMessage]:
        if self._queue is None:
            self._queue = asyncio.Queue()
        return self._queue

    def put_nowait(self, message: ControlMessage) -> None:
        """Queue ``message``."""
        self._ready().put_nowait(message)

    def empty(self) -> bool:
        """True when nothing is queued."""
        return self._queue is None or self._queue.empty()

    def get_nowait(self) -> ControlMessage:
        """The oldest message; ``asyncio.QueueEmpty`` when there is none."""
        if self._queue is None:
            raise asyncio.QueueEmpty
        return self._queue.get_nowait()

    async def get(self) -> ControlMessage:
        """Wait for the next message."""
        return await self._ready().get()
