"""Run journals in PostgreSQL: seqs from ``<prefix>_journal_heads``, appends announced with
``NOTIFY <prefix>_journal`` and one LISTEN connection per store."""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Sequence
from types import TracebackType

import asyncpg
from awaken_contract.contract.journal import (
    JournalEntry,
    JournalKind,
    JournalRecord,
    JournalSubscription,
    kind_of,
)
from awaken_contract.errors import VersionConflict
from awaken_contract.ids import now_ms

from awaken_stores._codec import decode, encode_str
from awaken_stores._journal_local import LocalJournalHub, entries_after
from awaken_stores.postgres.db import _io, _PgBacked, _PgDb


def _journal_lock_cte(p: str) -> str:
    """``jk``: the run's journal head row, locked ($1 = run id)."""
    return f"jk AS (SELECT last_seq FROM {p}_journal_heads WHERE run_id = $1 FOR UPDATE)"


def _journal_write_ctes(p: str, kinds: str, datas: str, exp: str, now: str) -> str:
    """``jh``/``j``: bump the run's head by the number of records (serializing appenders on its
    row, refusing when fenced on another seq) and insert the records after it; gated on ``t``."""
    count = f"cardinality({kinds}::text[])"
    return (
        f"jh AS (INSERT INTO {p}_journal_heads AS x (run_id, last_seq)"
        f" SELECT $1, {count} WHERE {count} > 0 AND EXISTS (SELECT 1 FROM t)"
        " ON CONFLICT (run_id) DO UPDATE SET last_seq = x.last_seq + excluded.last_seq"
        f" WHERE {exp}::bigint IS NULL OR x.last_seq = {exp}::bigint RETURNING last_seq),"
        f" j AS (INSERT INTO {p}_journal (run_id, seq, kind, created_at, data)"
        f" SELECT $1, (SELECT last_seq FROM jh) - {count} + e.ord, e.kind, {now}, e.data::jsonb"
        f" FROM unnest({kinds}::text[], {datas}::text[]) WITH ORDINALITY AS e(kind, data, ord)"
        " WHERE EXISTS (SELECT 1 FROM jh))"
    )


def _journal_result(p: str) -> str:
    """The new last seq (NULL when nothing was appended), the locked last seq before, and the
    notification (sent at commit)."""
    return (
        "(SELECT last_seq FROM jh), COALESCE((SELECT last_seq FROM jk), 0),"
        f" (SELECT pg_notify('{p}_journal', $1) WHERE EXISTS (SELECT 1 FROM jh))"
    )


def _journal_rows(records: Sequence[JournalRecord]) -> tuple[list[str], list[str]]:
    """The ``kind`` and JSON columns of the records (encoded before any I/O)."""
    return [kind_of(r).value for r in records], [encode_str(r) for r in records]


def _entries(
    run_id: str, records: Sequence[JournalRecord], last_seq: int, now: int
) -> list[JournalEntry]:
    """The entries of an append that moved the run's last seq to ``last_seq``."""
    return entries_after(run_id, records, last_seq - len(records), now=now)


class PgJournal(_PgBacked):
    """The journal half of ``PostgresStore`` (append, read, last seq, subscriptions)."""

    _journal_hub: LocalJournalHub
    _listener: _JournalListener | None
    _append_sql: str

    def _init_journal(self) -> None:
        self._journal_hub = LocalJournalHub()
        self._listener = None
        p = self._p
        # $1 run id, $2 journal kinds, $3 journal jsons, $4 expected last seq, $5 created_at.
        self._append_sql = (
            f"WITH {_journal_lock_cte(p)},"
            " t AS (SELECT 1 WHERE $4::bigint IS NULL"
            " OR COALESCE((SELECT last_seq FROM jk), 0) = $4::bigint),"
            f" {_journal_write_ctes(p, '$2', '$3', '$4', '$5')}"
            f" SELECT (SELECT count(*) FROM t), NULL, {_journal_result(p)}"
        )

    @property
    def journal_channel(self) -> str:
        """The LISTEN/NOTIFY channel announcing journal appends (payload: run id)."""
        return f"{self._p}_journal"

    async def _stop_listener(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            await listener.stop()

    async def append(
        self,
        run_id: str,
        records: Sequence[JournalRecord],
        *,
        expected_last_seq: int | None = None,
    ) -> list[JournalEntry]:
        records = list(records)
        kinds, datas = _journal_rows(records)
        now = now_ms()
        row = await self._db.fetchrow(
            self._append_sql, run_id, kinds, datas, expected_last_seq, now
        )
        assert row is not None
        _check_fence(row, records, expected_last_seq)
        if records:
            self._journal_hub.notify(run_id)
        return _entries(run_id, records, row[2] or 0, now)

    async def read(
        self,
        run_id: str,
        *,
        after_seq: int = 0,
        kinds: Collection[JournalKind] | None = None,
        limit: int | None = None,
    ) -> list[JournalEntry]:
        wanted = None if kinds is None else sorted({JournalKind(k).value for k in kinds})
        rows = await self._db.fetch(
            f"SELECT seq, created_at, data FROM {self._p}_journal WHERE run_id = $1"
            " AND seq > $2 AND ($3::text[] IS NULL OR kind = ANY($3::text[]))"
            " ORDER BY seq LIMIT $4",
            run_id,
            after_seq,
            wanted,
            None if limit is None else max(limit, 0),
        )
        return [JournalEntry(run_id, r[0], r[1], decode(r[2], JournalRecord)) for r in rows]

    async def last_seq(self, run_id: str) -> int:
        value = await self._db.fetchval(
            f"SELECT last_seq FROM {self._p}_journal_heads WHERE run_id = $1", run_id
        )
        return int(value or 0)

    def subscribe(self, run_id: str) -> JournalSubscription:
        """Appends from any store instance on this database (LISTEN/NOTIFY on
        :attr:`journal_channel`, one listener connection per store)."""
        return PostgresJournalSubscription(self, run_id)

    async def _ensure_listener(self) -> LocalJournalHub:
        if self._listener is None:
            listener = _JournalListener(self._db, self.journal_channel, self._journal_hub)
            await listener.start()
            if self._listener is None:
                self._listener = listener
                self._db.before_close.append(self._stop_listener)
            else:
                await listener.stop()
        return self._journal_hub


def _check_fence(
    row: asyncpg.Record, records: Sequence[JournalRecord], expected_last_seq: int | None
) -> None:
    """Raise ``VersionConflict`` when a fenced write found another last seq (or, with records,
    appended nothing because the head moved meanwhile)."""
    if expected_last_seq is None:
        return
    before = int(row[3])
    if before != expected_last_seq or (records and row[2] is None):
        raise VersionConflict(expected_last_seq, before)


class _JournalListener:
    """One LISTEN connection per store, fanning notifications out to its local hub."""

    def __init__(self, db: _PgDb, channel: str, hub: LocalJournalHub) -> None:
        self._db, self._channel, self._hub = db, channel, hub
        self._conn: asyncpg.Connection | None = None
        self._pool: asyncpg.Pool | None = None

    def _on_notify(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        self._hub.notify(payload)

    async def start(self) -> None:
        pool = await self._db.pool()
        async with _io():
            conn = await pool.raw.acquire()
            try:
                await conn.add_listener(self._channel, self._on_notify)
            except BaseException:
                await pool.raw.release(conn)
                raise
        self._conn, self._pool = conn, pool.raw

    async def stop(self) -> None:
        if self._conn is not None and self._pool is not None:
            with contextlib.suppress(asyncpg.InterfaceError, OSError):
                await self._conn.remove_listener(self._channel, self._on_notify)
            await self._pool.release(self._conn)
            self._conn = None


class PostgresJournalSubscription(JournalSubscription):
    """A journal subscription of a ``PostgresStore``: woken by ``NOTIFY`` from any instance."""

    def __init__(self, store: PgJournal, run_id: str) -> None:
        self._store, self._run_id = store, run_id
        self._inner: JournalSubscription | None = None

    async def __aenter__(self) -> PostgresJournalSubscription:
        hub = await self._store._ensure_listener()
        self._inner = await hub.subscribe(self._run_id).__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._inner is not None:
            await self._inner.__aexit__(exc_type, exc, tb)
            self._inner = None

    async def wait(self, wait_seconds: float | None = None) -> bool:
        if self._inner is None:
            raise RuntimeError("use the subscription as 'async with store.subscribe(run_id)'")
        return await self._inner.wait(wait_seconds)
