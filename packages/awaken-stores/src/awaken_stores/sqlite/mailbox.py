"""Mailbox jobs in the ``awaken_mailbox_jobs`` table, each transaction under SQLite's write lock."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from awaken_contract.contract.mailbox import MailboxJob, MailboxJobList, MailboxJobStatus

from awaken_stores._codec import decode, encode_str
from awaken_stores._mailbox_queries import TERMINAL_STATUSES
from awaken_stores.mailbox_engine import MailboxEngine, MailboxTxn
from awaken_stores.sqlite.connection import _one, _SqliteBacked

T = TypeVar("T")

_TERMINAL = TERMINAL_STATUSES


def _job_row(job: MailboxJob) -> tuple[Any, ...]:
    return (
        job.job_id,
        job.mailbox_id,
        job.status.value,
        job.priority,
        job.created_at,
        job.updated_at,
        job.lease_until,
        encode_str(job),
    )


_UPSERT_JOB = (
    "INSERT INTO awaken_mailbox_jobs VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (job_id) DO UPDATE"
    " SET status = excluded.status, priority = excluded.priority,"
    " updated_at = excluded.updated_at, lease_until = excluded.lease_until, data = excluded.data"
)


_LOAD = (
    "SELECT (SELECT generation FROM awaken_mailbox_generations WHERE mailbox_id = ?1),"
    " (SELECT '[' || group_concat(data, ',') || ']' FROM awaken_mailbox_jobs"
    " WHERE mailbox_id = ?1 AND (status NOT IN"
    f" ({', '.join(f'?{i + 3}' for i in range(len(_TERMINAL)))}) OR job_id = ?2))"
)
"""A mailbox's generation and its live jobs (plus job ``?2``) as one JSON array: one
statement, one SQLite step, one decode."""


def _load(c: sqlite3.Connection, mailbox_id: str, job_id: str | None) -> MailboxTxn:
    """The mailbox's generation, live jobs and job ``job_id`` (inside a write transaction)."""
    generation, jobs = c.execute(_LOAD, (mailbox_id, job_id, *_TERMINAL)).fetchone()
    return MailboxTxn(
        mailbox_id, int(generation or 0), [] if jobs is None else decode(jobs, list[MailboxJob])
    )


def mailbox_change(
    c: sqlite3.Connection, mailbox_id: str, job_id: str | None, change: Callable[[MailboxTxn], T]
) -> tuple[T, MailboxJobList]:
    """Load, change and save the mailbox inside the caller's write transaction; the change's
    result and the jobs it wrote."""
    txn = _load(c, mailbox_id, job_id)
    result = change(txn)
    changed = txn.changed_jobs()
    if txn.generation != txn.initial_generation:
        c.execute(
            "INSERT INTO awaken_mailbox_generations VALUES (?, ?) ON CONFLICT"
            " (mailbox_id) DO UPDATE SET generation = excluded.generation",
            (mailbox_id, txn.generation),
        )
    c.executemany(_UPSERT_JOB, [_job_row(j) for j in changed])
    return result, changed


_KNOWN_MAILBOXES = 4096
"""Job → mailbox ids remembered per store (a job never changes mailbox)."""


class SqliteMailboxStore(_SqliteBacked, MailboxEngine):
    """Mailbox jobs in the ``awaken_mailbox_jobs`` table; each transaction holds SQLite's write
    lock, so claims are atomic across tasks and processes.

    The mailbox of a job this store wrote or looked up is remembered, which saves a worker-thread
    hop per job update (a remembered job that was purged meanwhile is simply missing from the
    transaction, as an unknown one is)."""

    _known: dict[str, str] | None = None

    @property
    def _mailboxes(self) -> dict[str, str]:
        if self._known is None:
            self._known = {}
        return self._known

    def _remember(self, job_id: str, mailbox_id: str) -> None:
        known = self._mailboxes
        if job_id not in known and len(known) >= _KNOWN_MAILBOXES:
            del known[next(iter(known))]
        known[job_id] = mailbox_id

    async def _apply(
        self,
        mailbox_id: str,
        job_id: str | None,
        change: Callable[[MailboxTxn], T],
        *,
        claiming: bool = False,
    ) -> T:
        """Load, change and save the mailbox in one write transaction on the worker thread
        (one hop; committed with whatever other writes are waiting, see ``connection``)."""

        result, changed = await self._db.write(
            lambda c: mailbox_change(c, mailbox_id, job_id, change)
        )
        self.remember_all(changed)
        return result

    def remember_all(self, jobs: MailboxJobList) -> None:
        """Remember the mailbox of jobs a transaction wrote."""
        for job in jobs:
            self._remember(job.job_id, job.mailbox_id)

    async def _mailbox_of(self, job_id: str) -> str | None:
        known = self._mailboxes.get(job_id)
        if known is not None:
            return known
        value = await self._db.peek(
            lambda c: _one(
                c, "SELECT mailbox_id FROM awaken_mailbox_jobs WHERE job_id = ?", (job_id,)
            )
        )
        if value is None:
            return None
        self._remember(job_id, str(value))
        return str(value)

    async def _may_have_queued(self, mailbox_id: str) -> bool:
        """A point read (see ``loop_reader``), no write transaction."""
        queued = await self._db.peek(
            lambda c: _one(
                c,
                "SELECT 1 FROM awaken_mailbox_jobs WHERE mailbox_id = ? AND status = ? LIMIT 1",
                (mailbox_id, MailboxJobStatus.QUEUED.value),
            )
        )
        return queued is not None

    async def _expired_candidates(self, now: int, limit: int) -> list[tuple[str, str]]:
        rows = await self._db.run(
            lambda c: c.execute(
                "SELECT job_id, mailbox_id FROM awaken_mailbox_jobs WHERE status = ?"
                " AND lease_until < ? ORDER BY lease_until, job_id LIMIT ?",
                (MailboxJobStatus.CLAIMED.value, now, max(limit, 0)),
            ).fetchall()
        )
        return [(r[0], r[1]) for r in rows]

    async def current_generation(self, mailbox_id: str) -> int:
        value = await self._db.peek(
            lambda c: _one(
                c,
                "SELECT generation FROM awaken_mailbox_generations WHERE mailbox_id = ?",
                (mailbox_id,),
            )
        )
        return int(value or 0)

    async def purge_terminal(self, older_than: int) -> int:
        def purge(c: sqlite3.Connection) -> int:
            cursor = c.execute(
                "DELETE FROM awaken_mailbox_jobs WHERE updated_at < ?"
                f" AND status IN ({','.join('?' * len(_TERMINAL))})",
                (older_than, *_TERMINAL),
            )
            return int(cursor.rowcount)

        purged = await self._db.write(purge)
        self._mailboxes.clear()  # purged jobs may be enqueued again under their old ids
        return purged

    async def queued_mailbox_ids(self) -> list[str]:
        rows = await self._db.run(
            lambda c: c.execute(
                "SELECT DISTINCT mailbox_id FROM awaken_mailbox_jobs WHERE status = ?"
                " ORDER BY mailbox_id",
                (MailboxJobStatus.QUEUED.value,),
            ).fetchall()
        )
        return [r[0] for r in rows]

    async def load(self, job_id: str) -> MailboxJob | None:
        data = await self._db.peek(
            lambda c: _one(c, "SELECT data FROM awaken_mailbox_jobs WHERE job_id = ?", (job_id,))
        )
        return None if data is None else decode(data, MailboxJob)

    async def list(
        self,
        mailbox_id: str,
        statuses: list[MailboxJobStatus] | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> MailboxJobList:
        params: list[Any] = [mailbox_id]
        clause = ""
        if statuses is not None:
            clause = f" AND status IN ({','.join('?' * len(statuses))})"
            params.extend(s.value for s in statuses)
        rows = await self._db.run(
            lambda c: c.execute(
                f"SELECT data FROM awaken_mailbox_jobs WHERE mailbox_id = ?{clause}"
                " ORDER BY priority, created_at, job_id LIMIT ? OFFSET ?",
                (*params, max(limit, 0), max(offset, 0)),
            ).fetchall()
        )
        return [decode(r[0], MailboxJob) for r in rows]

    async def list_terminal(self, limit: int, offset: int) -> MailboxJobList:
        rows = await self._db.run(
            lambda c: c.execute(
                "SELECT data FROM awaken_mailbox_jobs"
                f" WHERE status IN ({','.join('?' * len(_TERMINAL))})"
                " ORDER BY updated_at, created_at, job_id LIMIT ? OFFSET ?",
                (*_TERMINAL, max(limit, 0), max(offset, 0)),
            ).fetchall()
        )
        return [decode(r[0], MailboxJob) for r in rows]

    async def count_by_status(self, status: MailboxJobStatus) -> int:
        value = await self._db.run(
            lambda c: _one(
                c, "SELECT COUNT(*) FROM awaken_mailbox_jobs WHERE status = ?", (status.value,)
            )
        )
        return int(value or 0)
