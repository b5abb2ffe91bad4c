"""Background summaries, at most one in flight per thread (single flight).

A run never waits for a summary: the hook starts one and the next inference that finds it
finished uses it. Only a request that would overflow the window waits (:meth:`SummaryJobs.wait`).
:meth:`SummaryJobs.close` cancels the summaries in flight and waits for them to end, so none
outlives the store or the event loop it runs on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from awaken_ext_compact.state import CompactSummary

__all__ = ["SummaryJobs"]

_log = logging.getLogger("awaken.ext.compact")


class SummaryJobs:
    """In-flight summary tasks and the latest finished summary, by thread id (``started``:
    jobs started so far; ``waiting``: runs waiting for a summary now)."""

    def __init__(self) -> None:
        self._running: dict[str, asyncio.Task[CompactSummary]] = {}
        self._done: dict[str, CompactSummary] = {}
        self.started = 0
        self.waiting = 0
        self.closed = False

    def running(self, thread_id: str) -> bool:
        """Whether a summary of ``thread_id`` is being written."""
        return thread_id in self._running

    def latest(self, thread_id: str) -> CompactSummary | None:
        """The newest finished summary of ``thread_id`` (``None``: none yet)."""
        return self._done.get(thread_id)

    def start(self, thread_id: str, job: Callable[[], Awaitable[CompactSummary]]) -> bool:
        """Start ``job`` unless one is in flight for ``thread_id`` (or the jobs are closed);
        ``True`` when started."""
        if self.closed or thread_id in self._running:
            return False

        async def run() -> CompactSummary:
            return await job()

        task = asyncio.get_running_loop().create_task(run(), name=f"compact:{thread_id}")
        self._running[thread_id] = task
        self.started += 1
        task.add_done_callback(lambda done: self._finished(thread_id, done))
        return True

    async def wait(self, thread_id: str) -> CompactSummary | None:
        """Wait for the in-flight summary of ``thread_id``; the newest summary afterwards."""
        task = self._running.get(thread_id)
        if task is not None:
            self.waiting += 1
            try:
                await asyncio.wait([task])
            finally:
                self.waiting -= 1
        return self.latest(thread_id)

    def in_flight(self) -> int:
        """How many summaries are being written."""
        return len(self._running)

    async def close(self) -> None:
        """Cancel every summary in flight and wait until each has ended; start no more."""
        self.closed = True
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    def _finished(self, thread_id: str, task: asyncio.Task[CompactSummary]) -> None:
        if self._running.get(thread_id) is task:
            del self._running[thread_id]
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            _log.warning("compaction of thread %s failed: %s", thread_id, error)
            return
        summary = task.result()
        previous = self._done.get(thread_id)
        if previous is None or summary.covered > previous.covered:
            self._done[thread_id] = summary
