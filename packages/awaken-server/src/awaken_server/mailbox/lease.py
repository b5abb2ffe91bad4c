"""LeaseRenewal: renew a running job's lease every interval, on a timer rather than a task.

Most runs end long before their first renewal is due, so the renewal costs one timer until
then: a task exists only while a renewal is in flight.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

__all__ = ["LeaseRenewal"]


class LeaseRenewal:
    """Calls ``renew`` ``interval`` seconds after start and after each renewal that returned
    true; ``cancel`` stops it (cancelling a renewal in flight)."""

    __slots__ = ("_handle", "_interval", "_loop", "_renew", "_task")

    def __init__(self, interval: float, renew: Callable[[], Awaitable[bool]]) -> None:
        self._loop = asyncio.get_running_loop()
        self._interval = interval
        self._renew = renew
        self._task: asyncio.Task[None] | None = None
        self._handle: asyncio.TimerHandle | None = self._loop.call_later(interval, self._due)

    def _due(self) -> None:
        self._handle = None
        self._task = self._loop.create_task(self._renew_once())

    async def _renew_once(self) -> None:
        if await self._renew():
            self._handle = self._loop.call_later(self._interval, self._due)
        self._task = None

    def cancel(self) -> None:
        """Stop renewing."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._task is not None:
            self._task.cancel()
            self._task = None
