"""A run's control channel: decisions and messages sent to the live run, read by the loop
(``ControlChannel[ControlMessage]``).

Most runs never receive one, so the queue behind it (three deques and an event, about 3 KB) is
made on first use rather than for every run.
"""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

import msgspec

__all__ = ["ControlChannel"]

M = TypeVar("M")


class ControlChannel(msgspec.Struct, Generic[M], eq=False):
    """FIFO of control messages (the subset of ``asyncio.Queue`` the loop uses).

    A msgspec struct: untracked by the garbage collector until its queue is made (msgspec
    tracks a struct again once a field is set to a container)."""

    _queue: asyncio.Queue[M] | None = None

    def _ready(self) -> asyncio.Queue[M]:
        if self._queue is None:
            self._queue = asyncio.Queue()
        return self._queue

    def put_nowait(self, message: M) -> None:
        """Queue ``message``."""
        self._ready().put_nowait(message)

    def empty(self) -> bool:
        """True when nothing is queued."""
        return self._queue is None or self._queue.empty()

    def get_nowait(self) -> M:
        """The oldest message; ``asyncio.QueueEmpty`` when there is none."""
        if self._queue is None:
            raise asyncio.QueueEmpty
        return self._queue.get_nowait()

    async def get(self) -> M:
        """Wait for the next message."""
        return await self._ready().get()
