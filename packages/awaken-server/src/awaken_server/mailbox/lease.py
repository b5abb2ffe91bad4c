"""Lease renewal of running jobs: every interval, on one timer for all of a runner's jobs.

Most runs end long before their first renewal is due, so a job's renewal costs an entry in an
ordered dict until then (no timer of its own): :class:`LeaseRenewals` keeps the jobs in the
order they are due (one interval for all, so starting order is due order) and one timer for
the first of them; a task exists only while a renewal is in flight.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

__all__ = ["LeaseRenewal", "LeaseRenewals"]


class LeaseRenewal:
    """One job's renewal: ``renew`` is called ``interval`` seconds after start and after each
    renewal that returned true; ``cancel`` stops it (cancelling a renewal in flight)."""

    __slots__ = ("_renew", "_renewals", "_task")

    def __init__(self, renewals: LeaseRenewals, renew: Callable[[], Awaitable[bool]]) -> None:
        self._renewals = renewals
        self._renew = renew
        self._task: asyncio.Task[None] | None = None

    async def _renew_once(self) -> None:
        try:
            if await self._renew():
                self._renewals._schedule(self)
        finally:
            self._task = None

    def cancel(self) -> None:
        """Stop renewing."""
        self._renewals._due.pop(self, None)
        if self._task is not None:
            self._task.cancel()
            self._task = None


class LeaseRenewals:
    """The renewals of one runner (one event loop), every ``interval`` seconds."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._due: dict[LeaseRenewal, float] = {}
        """Renewals by due time (loop clock), in due order."""
        self._timer: asyncio.TimerHandle | None = None

    def start(self, renew: Callable[[], Awaitable[bool]]) -> LeaseRenewal:
        """Renew with ``renew`` from ``interval`` seconds on."""
        renewal = LeaseRenewal(self, renew)
        self._schedule(renewal)
        return renewal

    def __len__(self) -> int:
        """Renewals waiting for their turn (not those in flight)."""
        return len(self._due)

    def _schedule(self, renewal: LeaseRenewal) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + self.interval
        self._due[renewal] = due
        if self._timer is None:
            self._timer = loop.call_at(due, self._fire)

    def _fire(self) -> None:
        self._timer = None
        loop = asyncio.get_running_loop()
        now = loop.time()
        due = self._due
        while due:
            renewal, at = next(iter(due.items()))
            if at > now:
                self._timer = loop.call_at(at, self._fire)
                return
            del due[renewal]
            renewal._task = loop.create_task(renewal._renew_once())
