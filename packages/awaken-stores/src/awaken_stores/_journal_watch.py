"""Noticing journal appends made by other processes on the same database file or directory.

The in-process :class:`~awaken_stores._journal_local.LocalJournalHub` wakes subscribers when a
store of *this* process appends. A :class:`ExternalChangeWatcher` adds writers in other
processes: while anyone is subscribed it runs a cheap probe every ``interval`` seconds (SQLite:
``PRAGMA data_version``, which changes only when *another* connection committed; file store:
the base directory's mtime, which every commit moves) and, when the
value moved, wakes every subscriber of the hub. A wake-up is a hint to re-read (``follow`` reads
the run's entries after its cursor), so waking subscribers of other runs is harmless.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from types import TracebackType

from awaken_contract.contract.journal import JournalSubscription

from awaken_stores._journal_local import LocalJournalHub

__all__ = ["DEFAULT_WATCH_INTERVAL_SECONDS", "ExternalChangeWatcher"]

_log = logging.getLogger(__name__)

DEFAULT_WATCH_INTERVAL_SECONDS = 0.1
"""How often a subscribed store checks for commits by other processes."""


class ExternalChangeWatcher:
    """Wakes ``hub``'s subscribers when ``probe()`` (a change counter) moves."""

    def __init__(
        self,
        hub: LocalJournalHub,
        probe: Callable[[], Awaitable[int]],
        interval: float = DEFAULT_WATCH_INTERVAL_SECONDS,
    ) -> None:
        self._hub = hub
        self._probe = probe
        self._interval = interval
        self._subscribers = 0
        self._last: int | None = None
        self._task: asyncio.Task[None] | None = None

    def subscribe(self, run_id: str) -> JournalSubscription:
        """A subscription to ``run_id`` woken by local appends and by other processes."""
        return _WatchedSubscription(self, self._hub.subscribe(run_id))

    async def _attach(self) -> None:
        self._subscribers += 1
        if self._task is None or self._task.done():
            # The baseline is taken before the subscriber's first read, so a commit made
            # between that read and the first probe is not missed.
            self._last = await self._safe_probe()
            if self._task is None or self._task.done():
                self._task = asyncio.get_running_loop().create_task(
                    self._watch(), name="awaken-journal-watch"
                )

    def _detach(self) -> None:
        self._subscribers -= 1
        if self._subscribers <= 0:
            self.stop()

    def stop(self) -> None:
        """Stop probing (it restarts with the next subscriber)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()

    async def _safe_probe(self) -> int | None:
        try:
            return await self._probe()
        except Exception:  # the store is closing or unreachable: try again later
            _log.debug("journal change probe failed", exc_info=True)
            return None

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self._interval)
            value = await self._safe_probe()
            if value is None:
                continue
            if self._last is not None and value != self._last:
                self._hub.notify_all()
            self._last = value


class _WatchedSubscription(JournalSubscription):
    def __init__(self, watcher: ExternalChangeWatcher, inner: JournalSubscription) -> None:
        self._watcher = watcher
        self._inner = inner

    async def __aenter__(self) -> _WatchedSubscription:
        await self._inner.__aenter__()
        await self._watcher._attach()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._watcher._detach()
        await self._inner.__aexit__(exc_type, exc, tb)

    async def wait(self, wait_seconds: float | None = None) -> bool:
        return await self._inner.wait(wait_seconds)
