"""Mailbox jobs in ``<prefix>_mailbox_jobs``, locked per mailbox, woken by LISTEN/NOTIFY."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import asyncpg
from awaken_contract.contract.mailbox import MailboxJob, MailboxJobList, MailboxJobStatus

from awaken_stores._codec import decode, encode_str
from awaken_stores._mailbox_queries import TERMINAL_STATUSES
from awaken_stores.mailbox_engine import (
    MailboxEngine,
    MailboxTxn,
    TransactionApply,
    wait_for_wakeup,
)
from awaken_stores.postgres.db import _io, _PgBacked, _PgDb

_TERMINAL = list(TERMINAL_STATUSES)


class PostgresMailboxStore(_PgBacked, TransactionApply, MailboxEngine):
    """Mailbox jobs in ``<prefix>_mailbox_jobs``; every transaction locks the mailbox's row in
    ``<prefix>_mailbox_generations``, so claims are atomic across processes and hosts."""

    def __init__(
        self,
        dsn_or_pool: str | asyncpg.Pool | _PgDb,
        prefix: str = "awaken",
        *,
        min_size: int = 1,
        max_size: int = 10,
    ) -> None:
        super().__init__(dsn_or_pool, prefix, min_size=min_size, max_size=max_size)
        self._wakeup = asyncio.Event()
        self._listener: asyncpg.Connection | None = None
        self._listener_pool: asyncpg.Pool | None = None

    @property
    def channel(self) -> str:
        """The LISTEN/NOTIFY channel announcing claimable jobs (payload: mailbox id)."""
        return f"{self._p}_mailbox"

    @asynccontextmanager
    async def _transaction(
        self, mailbox_id: str, job_id: str | None = None, *, skip_locked: bool = False
    ) -> AsyncIterator[MailboxTxn]:
        async with self._locked(mailbox_id, job_id, skip_locked=skip_locked) as (_, txn):
            yield txn

    @asynccontextmanager
    async def _locked(
        self, mailbox_id: str, job_id: str | None = None, *, skip_locked: bool = False
    ) -> AsyncIterator[tuple[asyncpg.Connection, MailboxTxn]]:
        """The mailbox transaction and its connection (more may be written in the same
        transaction: a checkpoint riding it, see ``job_checkpoints``)."""
        p = self._p
        pool = await self._db.pool()
        async with _io(), pool.acquire() as conn, conn.transaction():
            await conn.execute(
                f"INSERT INTO {p}_mailbox_generations (mailbox_id) VALUES ($1)"
                " ON CONFLICT (mailbox_id) DO NOTHING",
                mailbox_id,
            )
            locked = await conn.fetchrow(
                f"SELECT generation FROM {p}_mailbox_generations WHERE mailbox_id = $1"
                + (" FOR UPDATE SKIP LOCKED" if skip_locked else " FOR UPDATE"),
                mailbox_id,
            )
            if locked is None:
                yield conn, MailboxTxn.busy_marker(mailbox_id)
                return
            generation = locked[0]
            rows = await conn.fetch(
                f"SELECT data FROM {p}_mailbox_jobs WHERE mailbox_id = $1"
                " AND (status <> ALL($2::text[]) OR job_id = $3)",
                mailbox_id,
                _TERMINAL,
                job_id,
            )
            txn = MailboxTxn(mailbox_id, int(generation), [decode(r[0], MailboxJob) for r in rows])
            yield conn, txn
            if txn.generation != txn.initial_generation:
                await conn.execute(
                    f"UPDATE {p}_mailbox_generations SET generation = $2 WHERE mailbox_id = $1",
                    mailbox_id,
                    txn.generation,
                )
            changed = txn.changed_jobs()
            if changed:
                await conn.executemany(
                    f"INSERT INTO {p}_mailbox_jobs VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)"
                    " ON CONFLICT (job_id) DO UPDATE SET status = excluded.status,"
                    " priority = excluded.priority, updated_at = excluded.updated_at,"
                    " lease_until = excluded.lease_until, data = excluded.data",
                    [
                        (
                            j.job_id,
                            j.mailbox_id,
                            j.status.value,
                            j.priority,
                            j.created_at,
                            j.updated_at,
                            j.lease_until,
                            encode_str(j),
                        )
                        for j in changed
                    ],
                )

    def _claim_transaction(self, mailbox_id: str) -> AbstractAsyncContextManager[MailboxTxn]:
        # A worker polling a mailbox that another transaction holds skips it (SKIP LOCKED)
        # instead of queueing behind the row lock; the holder's claim wins or leaves no work.
        return self._transaction(mailbox_id, skip_locked=True)

    async def _mailbox_of(self, job_id: str) -> str | None:
        value = await self._db.fetchval(
            f"SELECT mailbox_id FROM {self._p}_mailbox_jobs WHERE job_id = $1", job_id
        )
        return None if value is None else str(value)

    async def _expired_candidates(self, now: int, limit: int) -> list[tuple[str, str]]:
        rows = await self._db.fetch(
            f"SELECT job_id, mailbox_id FROM {self._p}_mailbox_jobs WHERE status = 'Claimed'"
            " AND lease_until < $1 ORDER BY lease_until, job_id LIMIT $2"
            " FOR UPDATE SKIP LOCKED",
            now,
            max(limit, 0),
        )
        return [(r[0], r[1]) for r in rows]

    async def _work_available(self, mailbox_id: str) -> None:
        await self._db.execute("SELECT pg_notify($1, $2)", self.channel, mailbox_id)

    async def _listen(self) -> None:
        if self._listener is not None:
            return
        pool = await self._db.pool()
        conn = await pool.raw.acquire()
        await conn.add_listener(self.channel, self._on_notify)
        self._listener, self._listener_pool = conn, pool.raw
        # a store closed with its mailbox listening (a server's) must give the connection back
        # before the pool closes, or closing the pool waits for it for ever
        self._db.before_close.append(self._stop_listening)

    def _on_notify(self, _conn: object, _pid: int, _channel: str, _payload: str) -> None:
        self._wakeup.set()

    async def wait_for_work(self, wait_seconds: float) -> None:
        async with _io():
            await self._listen()
        await wait_for_wakeup(self._wakeup, wait_seconds)

    async def _stop_listening(self) -> None:
        listener, pool, self._listener = self._listener, self._listener_pool, None
        if listener is not None and pool is not None:
            await listener.remove_listener(self.channel, self._on_notify)
            await pool.release(listener)

    async def close(self) -> None:
        await self._stop_listening()
        await super().close()

    async def current_generation(self, mailbox_id: str) -> int:
        value = await self._db.fetchval(
            f"SELECT generation FROM {self._p}_mailbox_generations WHERE mailbox_id = $1",
            mailbox_id,
        )
        return int(value or 0)

    async def purge_terminal(self, older_than: int) -> int:
        status = await self._db.execute(
            f"DELETE FROM {self._p}_mailbox_jobs WHERE updated_at < $1"
            " AND status = ANY($2::text[])",
            older_than,
            _TERMINAL,
        )
        return int(status.split()[-1])

    async def queued_mailbox_ids(self) -> list[str]:
        rows = await self._db.fetch(
            f'SELECT DISTINCT mailbox_id COLLATE "C" FROM {self._p}_mailbox_jobs'
            " WHERE status = 'Queued' ORDER BY 1"
        )
        return [r[0] for r in rows]

    async def load(self, job_id: str) -> MailboxJob | None:
        data = await self._db.fetchval(
            f"SELECT data FROM {self._p}_mailbox_jobs WHERE job_id = $1", job_id
        )
        return None if data is None else decode(data, MailboxJob)

    async def list(
        self,
        mailbox_id: str,
        statuses: list[MailboxJobStatus] | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> MailboxJobList:
        rows = await self._db.fetch(
            f"SELECT data FROM {self._p}_mailbox_jobs WHERE mailbox_id = $1"
            " AND ($2::text[] IS NULL OR status = ANY($2::text[]))"
            " ORDER BY priority, created_at, job_id LIMIT $3 OFFSET $4",
            mailbox_id,
            None if statuses is None else [s.value for s in statuses],
            max(limit, 0),
            max(offset, 0),
        )
        return [decode(r[0], MailboxJob) for r in rows]

    async def list_terminal(self, limit: int, offset: int) -> MailboxJobList:
        rows = await self._db.fetch(
            f"SELECT data FROM {self._p}_mailbox_jobs WHERE status = ANY($1::text[])"
            " ORDER BY updated_at, created_at, job_id LIMIT $2 OFFSET $3",
            _TERMINAL,
            max(limit, 0),
            max(offset, 0),
        )
        return [decode(r[0], MailboxJob) for r in rows]

    async def count_by_status(self, status: MailboxJobStatus) -> int:
        value = await self._db.fetchval(
            f"SELECT COUNT(*) FROM {self._p}_mailbox_jobs WHERE status = $1", status.value
        )
        return int(value or 0)
