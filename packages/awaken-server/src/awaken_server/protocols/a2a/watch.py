"""Waiting for a task to change: its run journal's commits, with a slow fallback.

A task's stream (``message:stream``, ``SubscribeToTask``, push delivery) re-reads the task's
snapshot when something may have changed. With a journaled store that is every commit to the
run's journal — on any instance (PostgreSQL ``LISTEN/NOTIFY``, SQLite across processes) —
plus a re-read every ``FALLBACK_SECS`` for changes the journal does not see (a job claimed,
cancelled or dead-lettered). Without a journal the snapshot is polled.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

from awaken_contract.contract.journal import JournaledThreadRunStore
from awaken_contract.contract.storage import ThreadRunStore

__all__ = ["FALLBACK_SECS", "POLL_INTERVAL_SECS", "task_changes"]

POLL_INTERVAL_SECS = 0.1
"""How often a task is polled where no journal notifies (a store without a journal, blocking
sends and cancels waiting for a state)."""
FALLBACK_SECS = 1.0
"""Longest a journaled task's stream waits before re-reading anyway."""


@contextlib.asynccontextmanager
async def task_changes(
    store: ThreadRunStore, task_id: str
) -> AsyncIterator[Callable[[], Awaitable[object]]]:
    """``await changed()`` returns when task ``task_id`` may have changed."""
    if not isinstance(store, JournaledThreadRunStore):
        yield lambda: asyncio.sleep(POLL_INTERVAL_SECS)
        return
    async with store.subscribe(task_id) as subscription:
        yield lambda: subscription.wait(FALLBACK_SECS)
