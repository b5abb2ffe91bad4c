"""``InMemoryMailboxStore``: mailbox jobs in dicts, one asyncio lock per store.

Each mailbox keeps the ids of its live (non-terminal) jobs apart from its finished ones, so a
transaction loads only the live jobs however long the thread's history is, and a ``claim`` of a
mailbox with nothing queued — what the dispatcher does after every run — answers at once
without a transaction (it would have nothing to claim or supersede).
"""

from __future__ import annotations

import asyncio
from types import TracebackType

from awaken_contract.contract.mailbox import MailboxJob, MailboxJobStatus

from awaken_stores._mailbox_queries import LocalMailboxQueries
from awaken_stores.mailbox_engine import (
    MailboxEngine,
    MailboxTxn,
    TransactionApply,
    wait_for_wakeup,
)

__all__ = ["InMemoryMailboxStore"]

_QUEUED = MailboxJobStatus.QUEUED


class InMemoryMailboxStore(LocalMailboxQueries, TransactionApply, MailboxEngine):
    """Mailbox jobs in memory; one asyncio lock serializes every transaction."""

    def __init__(self) -> None:
        self._jobs: dict[str, MailboxJob] = {}
        self._by_mailbox: dict[str, set[str]] = {}
        self._live: dict[str, dict[str, None]] = {}
        """The non-terminal job ids of each mailbox (insertion ordered)."""
        self._generations: dict[str, int] = {}
        self._lock = asyncio.Lock()
        self._wakeup = asyncio.Event()

    def _transaction(self, mailbox_id: str, job_id: str | None = None) -> _Transaction:
        return _Transaction(self, mailbox_id, job_id)

    def _load(self, mailbox_id: str, job_id: str | None) -> MailboxTxn:
        """The transaction view of ``mailbox_id``: its live jobs and job ``job_id``."""
        jobs = self._jobs
        loaded = [jobs[i] for i in self._live.get(mailbox_id, ())]
        extra = jobs.get(job_id) if job_id is not None else None
        if extra is not None and extra.mailbox_id == mailbox_id and extra.status.is_terminal:
            loaded.append(extra)
        return MailboxTxn(mailbox_id, self._generations.get(mailbox_id, 0), loaded)

    def _save(self, txn: MailboxTxn) -> None:
        """Write back what ``txn`` changed."""
        mailbox_id = txn.mailbox_id
        if txn.generation != txn.initial_generation:
            self._generations[mailbox_id] = txn.generation
        changed = txn.changed_jobs()
        if not changed:
            return
        ids = self._by_mailbox.setdefault(mailbox_id, set())
        live = self._live.setdefault(mailbox_id, {})
        for job in changed:
            self._jobs[job.job_id] = job
            ids.add(job.job_id)
            if job.status.is_terminal:
                live.pop(job.job_id, None)
            else:
                live[job.job_id] = None
        if not live:
            del self._live[mailbox_id]

    async def _may_have_queued(self, mailbox_id: str) -> bool:
        jobs = self._jobs
        return any(jobs[i].status is _QUEUED for i in self._live.get(mailbox_id, ()))

    async def _mailbox_of(self, job_id: str) -> str | None:
        job = self._jobs.get(job_id)
        return None if job is None else job.mailbox_id

    async def _all_jobs(self) -> dict[str, MailboxJob]:
        return self._jobs

    async def _mailbox_jobs(self, mailbox_id: str) -> list[MailboxJob]:
        return [self._jobs[i] for i in self._by_mailbox.get(mailbox_id, set())]

    async def _work_available(self, mailbox_id: str) -> None:
        self._wakeup.set()

    async def wait_for_work(self, wait_seconds: float) -> None:
        await wait_for_wakeup(self._wakeup, wait_seconds)

    async def current_generation(self, mailbox_id: str) -> int:
        return self._generations.get(mailbox_id, 0)

    async def purge_terminal(self, older_than: int) -> int:
        async with self._lock:
            doomed = [j for j in self._jobs.values() if j.is_terminal and j.updated_at < older_than]
            for job in doomed:
                del self._jobs[job.job_id]
                self._by_mailbox[job.mailbox_id].discard(job.job_id)
            return len(doomed)


class _Transaction:
    """One mailbox transaction of an :class:`InMemoryMailboxStore` (under its lock; saved on
    normal exit, nothing saved when the body raises)."""

    __slots__ = ("job_id", "mailbox_id", "store", "txn")

    def __init__(self, store: InMemoryMailboxStore, mailbox_id: str, job_id: str | None) -> None:
        self.store = store
        self.mailbox_id = mailbox_id
        self.job_id = job_id

    async def __aenter__(self) -> MailboxTxn:
        store = self.store
        await store._lock.acquire()
        try:
            self.txn = store._load(self.mailbox_id, self.job_id)
        except BaseException:
            store._lock.release()
            raise
        return self.txn

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if exc_type is None:
                self.store._save(self.txn)
        finally:
            self.store._lock.release()
