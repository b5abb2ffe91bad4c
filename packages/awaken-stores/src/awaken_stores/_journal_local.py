"""Journal helpers shared by the stores: numbering appended entries (every store), and for the
memory, file and SQLite stores in-process notifications and the ``read`` selection over entries
held in memory.

A ``LocalJournalHub`` is shared by every store object on the same data (one per in-memory store;
one per SQLite file or file-store directory, looked up by its resolved path), so a subscriber is
woken by appends through any store instance of the process. Other processes are noticed by an
:class:`~awaken_stores._journal_watch.ExternalChangeWatcher` (SQLite) or the subscriber's poll
fallback (``RunJournal.follow`` re-reads every few seconds).
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Collection, Sequence
from types import TracebackType

from awaken_contract.contract.journal import (
    JournalEntry,
    JournalKind,
    JournalRecord,
    JournalSubscription,
)
from awaken_contract.errors import VersionConflict
from awaken_contract.ids import now_ms

__all__ = ["LocalJournalHub", "entries_after", "hub_for", "select_entries"]


def entries_after(
    run_id: str,
    records: Sequence[JournalRecord],
    last_seq: int,
    *,
    expected_last_seq: int | None = None,
    now: int | None = None,
) -> list[JournalEntry]:
    """The entries appending ``records`` after ``last_seq`` (stamped ``now``, default the current
    time); ``VersionConflict`` when a fenced append expected another last seq."""
    if expected_last_seq is not None and expected_last_seq != last_seq:
        raise VersionConflict(expected_last_seq, last_seq)
    stamp = now_ms() if now is None else now
    return [
        JournalEntry(run_id, seq, stamp, record) for seq, record in enumerate(records, last_seq + 1)
    ]


def select_entries(
    entries: list[JournalEntry],
    after_seq: int,
    kinds: Collection[JournalKind] | None,
    limit: int | None,
) -> list[JournalEntry]:
    """The ``read`` selection over one run's entries held in seq order (seq i at index i-1)."""
    found = entries[max(after_seq, 0) :]
    if kinds is not None:
        wanted = set(kinds)
        found = [e for e in found if e.kind in wanted]
    return found if limit is None else found[: max(limit, 0)]


class _LocalSubscription(JournalSubscription):
    def __init__(self, hub: LocalJournalHub, run_id: str) -> None:
        self._hub, self._run_id = hub, run_id
        self._event = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    def notify(self) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._event.set()
        else:
            loop.call_soon_threadsafe(self._event.set)

    async def __aenter__(self) -> _LocalSubscription:
        self._loop = asyncio.get_running_loop()
        self._hub.add(self._run_id, self)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._hub.remove(self._run_id, self)

    async def wait(self, wait_seconds: float | None = None) -> bool:
        try:
            await asyncio.wait_for(self._event.wait(), wait_seconds)
        except TimeoutError:
            return False
        self._event.clear()
        return True


class LocalJournalHub:
    """Subscribers per run id; ``notify(run_id)`` wakes them (thread-safe)."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[_LocalSubscription]] = {}
        self._lock = threading.Lock()

    def subscribe(self, run_id: str) -> JournalSubscription:
        """A subscription to ``run_id``, attached on ``async with``."""
        return _LocalSubscription(self, run_id)

    def add(self, run_id: str, subscription: _LocalSubscription) -> None:
        with self._lock:
            self._subscribers.setdefault(run_id, set()).add(subscription)

    def remove(self, run_id: str, subscription: _LocalSubscription) -> None:
        with self._lock:
            subscribers = self._subscribers.get(run_id)
            if subscribers is not None:
                subscribers.discard(subscription)
                if not subscribers:
                    del self._subscribers[run_id]

    def notify(self, run_id: str) -> None:
        """Wake every subscriber of ``run_id`` (call after the append committed)."""
        if run_id not in self._subscribers:
            # (read without the lock: a subscriber added meanwhile reads after subscribing,
            # so it sees the committed append anyway)
            return
        with self._lock:
            subscribers = list(self._subscribers.get(run_id, ()))
        for subscription in subscribers:
            subscription.notify()

    def notify_all(self) -> None:
        """Wake every subscriber (something changed, maybe their run: re-read)."""
        with self._lock:
            subscribers = [s for group in self._subscribers.values() for s in group]
        for subscription in subscribers:
            subscription.notify()


_HUBS: weakref.WeakValueDictionary[str, LocalJournalHub] = weakref.WeakValueDictionary()
_HUBS_LOCK = threading.Lock()


def hub_for(key: str) -> LocalJournalHub:
    """The hub shared by every store of this process on data ``key`` (a resolved path)."""
    with _HUBS_LOCK:
        hub = _HUBS.get(key)
        if hub is None:
            hub = LocalJournalHub()
            _HUBS[key] = hub
        return hub
