"""``InferenceDeadline``: the total-time and idle-progress limits of one inference.

httpx's timeouts are per read, so a provider that keeps sending keep-alive bytes (SSE
comments, pings) but never finishes would hold a run for ever. The deadline bounds every wait
of the stream instead: by the time left of the whole inference (``total_timeout_secs``) and by
the time since the last *event* the parser produced (``idle_timeout_secs``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from awaken_contract.errors import InferenceTimeout

__all__ = ["InferenceDeadline"]

T = TypeVar("T")


class InferenceDeadline:
    """Bounds each wait of one inference; :meth:`progress` restarts the idle clock."""

    def __init__(
        self,
        provider: str,
        total_secs: float | None,
        idle_secs: float | None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._provider = provider
        self._total = total_secs
        self._idle = idle_secs
        self._clock = clock
        now = clock()
        self._total_at = None if total_secs is None else now + total_secs
        self._idle_at = None if idle_secs is None else now + idle_secs

    def progress(self) -> None:
        """The provider produced an event: the idle limit starts again."""
        if self._idle is not None:
            self._idle_at = self._clock() + self._idle

    def remaining(self) -> float | None:
        """Seconds until the nearer limit (``None`` when neither is set)."""
        limits = [at for at in (self._total_at, self._idle_at) if at is not None]
        if not limits:
            return None
        return max(min(limits) - self._clock(), 0.0)

    async def wait(self, awaitable: Awaitable[T]) -> T:
        """``await awaitable`` within the time left; ``InferenceTimeout`` when it runs out."""
        budget = self.remaining()
        if budget is None:
            return await awaitable
        try:
            async with asyncio.timeout(budget):
                return await awaitable
        except TimeoutError:
            raise self._expired() from None

    async def next(self, events: AsyncIterator[T]) -> T:
        """The next item of ``events`` within the time left (``StopAsyncIteration`` at end)."""
        return await self.wait(anext(events))

    def _expired(self) -> InferenceTimeout:
        now = self._clock()
        if self._total_at is not None and now >= self._total_at:
            return InferenceTimeout(
                f"{self._provider} did not finish the inference within {self._total:g}s"
            )
        return InferenceTimeout(f"{self._provider} sent no stream event for {self._idle:g}s")
