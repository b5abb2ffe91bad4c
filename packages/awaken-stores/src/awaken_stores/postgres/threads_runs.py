"""``PostgresStore``: threads, messages, runs and the step checkpoint (journal: see ``journal``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import asyncpg
from awaken_contract.contract.checkpoint_writer import StepCheckpoint
from awaken_contract.contract.journal import (
    JournaledThreadRunStore,
    JournalEntry,
    JournalRecord,
)
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.message import Message
from awaken_contract.contract.retention import (
    PruneReport,
    RetentionPolicy,
    RunSummary,
    select_prunable,
)
from awaken_contract.contract.storage import (
    RunPage,
    RunQuery,
    RunRecord,
    Thread,
    ThreadMetadata,
    checkpoint_thread,
    require_thread,
)
from awaken_contract.errors import AlreadyExists, StorageIoError
from awaken_contract.ids import now_ms
from awaken_contract.ids import now_secs as _now_secs

from awaken_stores._codec import decode, encode_str
from awaken_stores._lru import _Lru
from awaken_stores._message_log import KnownLogs, MessageHead
from awaken_stores._paging import sql_limit
from awaken_stores.postgres.config import PostgresConfigStore
from awaken_stores.postgres.db import _io
from awaken_stores.postgres.job_checkpoints import PgJobCheckpoints
from awaken_stores.postgres.journal import (
    PgJournal,
    _check_fence,
    _entries,
    _journal_lock_cte,
    _journal_result,
    _journal_rows,
    _journal_write_ctes,
)
from awaken_stores.postgres.mailbox import PostgresMailboxStore
from awaken_stores.postgres.profile import PostgresProfileStore
from awaken_stores.postgres.run_rows import (
    _RUN_COLUMNS,
    _RUN_IMMUTABLE,
    _RUN_JSON_COLUMNS,
    _run_from_row,
    _run_values,
)

_HEAD_KEY = "count || ':' || token"


class PostgresStore(PgJournal, PgJobCheckpoints, JournaledThreadRunStore):
    """Threads, messages, runs and run journals in PostgreSQL (``awaken-stores[postgres]``).

    ``PostgresStore(dsn_or_pool, prefix="awaken")``; sub-stores sharing the pool: ``profiles``,
    ``config`` (a ``ConfigChangeNotifier`` too) and ``mailbox``. Journal subscriptions share one
    LISTEN connection per store, opened on the first ``subscribe``.
    """

    _THREAD_CACHE_SIZE = 4096
    _MAX_ATTEMPTS = 20

    def __init__(
        self,
        dsn_or_pool: str | asyncpg.Pool,
        prefix: str = "awaken",
        *,
        min_size: int = 1,
        max_size: int = 10,
    ) -> None:
        super().__init__(dsn_or_pool, prefix, min_size=min_size, max_size=max_size)
        self.profiles = PostgresProfileStore(self._db)
        self.config = PostgresConfigStore(self._db)
        self.mailbox = PostgresMailboxStore(self._db)
        self._thread_cache: _Lru[str, str] = _Lru(self._THREAD_CACHE_SIZE)
        self._known = KnownLogs()
        self._init_journal()
        p = self._p
        cols = ", ".join(_RUN_COLUMNS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in _RUN_COLUMNS if c not in _RUN_IMMUTABLE)
        n = len(_RUN_COLUMNS)
        run_params = ", ".join(
            f"${i + 1}::jsonb" if c in _RUN_JSON_COLUMNS else f"${i + 1}"
            for i, c in enumerate(_RUN_COLUMNS)
        )
        # $1..$n run columns, then (a = n + 1 …): thread id, thread json, activity, expected old
        # thread json (NULL = none), whether to check the message head, its expected key (NULL =
        # none), first message seq - 1, message jsons, message count, new head token, whether
        # the head changes, journal kinds, journal jsons, expected last seq (NULL = unfenced),
        # created_at.
        a = n + 1
        tid, tjson, act, told, check, hkey, start, msgs, total, token, hchg, kinds, datas = (
            f"${a + i}" for i in range(13)
        )
        exp, now = f"${a + 13}", f"${a + 14}"
        self._checkpoint_sql = (
            f"WITH hk AS (SELECT {_HEAD_KEY} AS key"
            f" FROM {p}_message_heads WHERE thread_id = {tid} FOR UPDATE),"
            f" {_journal_lock_cte(p)},"
            f" ok AS (SELECT 1 WHERE ({check}::bool IS NOT TRUE"
            f" OR (SELECT key FROM hk) IS NOT DISTINCT FROM {hkey}::text)"
            f" AND ({exp}::bigint IS NULL OR COALESCE((SELECT last_seq FROM jk), 0) = {exp})),"
            f" t AS (INSERT INTO {p}_threads AS th (id, data, activity_ms, updated_at)"
            f" SELECT {tid}, {tjson}::jsonb, {act}, now() WHERE EXISTS (SELECT 1 FROM ok)"
            " ON CONFLICT (id) DO UPDATE"
            " SET data = excluded.data, activity_ms = excluded.activity_ms, updated_at = now()"
            f" WHERE th.data = {told}::jsonb RETURNING 1),"
            f" m AS (INSERT INTO {p}_messages (thread_id, seq, data)"
            f" SELECT {tid}, {start} + e.ord, e.data::jsonb"
            f" FROM unnest({msgs}::text[]) WITH ORDINALITY AS e(data, ord)"
            " WHERE EXISTS (SELECT 1 FROM t)"
            " ON CONFLICT (thread_id, seq) DO UPDATE SET data = excluded.data, updated_at = now()),"
            f" d AS (DELETE FROM {p}_messages WHERE thread_id = {tid} AND seq > {total}"
            f" AND {hchg}::bool AND EXISTS (SELECT 1 FROM t)),"
            f" h AS (INSERT INTO {p}_message_heads (thread_id, count, token)"
            f" SELECT {tid}, {total}, {token} WHERE {hchg}::bool AND EXISTS (SELECT 1 FROM t)"
            " ON CONFLICT (thread_id) DO UPDATE SET count = excluded.count,"
            " token = excluded.token),"
            f" r AS (INSERT INTO {p}_runs ({cols}) SELECT {run_params}"
            " WHERE EXISTS (SELECT 1 FROM t)"
            f" ON CONFLICT (run_id) DO UPDATE SET {updates}),"
            f" {_journal_write_ctes(p, kinds, datas, exp, now)}"
            f" SELECT (SELECT count(*) FROM t), (SELECT key FROM hk), {_journal_result(p)}"
        )
        self._insert_run = (
            f"INSERT INTO {p}_runs ({cols}) VALUES ("
            + ", ".join(
                f"${i + 1}::jsonb" if c in _RUN_JSON_COLUMNS else f"${i + 1}"
                for i, c in enumerate(_RUN_COLUMNS)
            )
            + ")"
        )

    @classmethod
    def with_prefix(cls, dsn_or_pool: str | asyncpg.Pool, prefix: str) -> PostgresStore:
        """A store whose tables are named ``<prefix>_threads`` …"""
        return cls(dsn_or_pool, prefix)

    async def __aenter__(self) -> PostgresStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def schema_version(self) -> int:
        """The highest applied migration version."""
        value = await self._db.fetchval(f"SELECT MAX(version) FROM {self._p}_schema_migrations")
        return int(value or 0)

    async def drop_schema(self) -> None:
        """Drop every table of this prefix (tests, uninstall)."""
        pool = await self._db.pool()
        names = [
            "threads", "messages", "message_heads", "runs", "journal", "journal_heads",
            "profiles", "configs", "mailbox_jobs", "mailbox_generations", "schema_migrations",
        ]  # fmt: skip
        async with _io():
            await pool.execute("DROP TABLE IF EXISTS " + ", ".join(f"{self._p}_{n}" for n in names))
        self._db._ready = False
        self._thread_cache.clear()
        self._known.clear()

    def _remember(self, thread_id: str, data: str | None) -> None:
        if data is None:
            self._thread_cache.forget(thread_id)
        else:
            self._thread_cache.remember(thread_id, data)

    # ------------------------------------------------------------------ threads
    async def load_thread(self, thread_id: str) -> Thread | None:
        data = await self._db.fetchval(
            f"SELECT data FROM {self._p}_threads WHERE id = $1", thread_id
        )
        return None if data is None else decode(data, Thread)

    async def save_thread(self, thread: Thread) -> None:
        data = encode_str(thread)
        await self._db.execute(
            f"INSERT INTO {self._p}_threads (id, data, activity_ms) VALUES ($1, $2::jsonb, $3)"
            " ON CONFLICT (id) DO UPDATE SET data = excluded.data,"
            " activity_ms = excluded.activity_ms, updated_at = now()",
            thread.id,
            data,
            thread.activity_ms(),
        )
        self._remember(thread.id, data)

    async def delete_thread(self, thread_id: str) -> None:
        pool = await self._db.pool()
        async with _io(), pool.acquire() as conn, conn.transaction():
            await self._delete_messages(conn, thread_id)
            await conn.execute(f"DELETE FROM {self._p}_threads WHERE id = $1", thread_id)
        self._remember(thread_id, None)

    async def list_threads(self, offset: int, limit: int) -> list[str]:
        rows = await self._db.fetch(
            f"SELECT id FROM {self._p}_threads ORDER BY activity_ms DESC, id ASC"
            " LIMIT $1 OFFSET $2",
            sql_limit(limit),
            max(offset, 0),
        )
        return [r["id"] for r in rows]

    async def load_messages(self, thread_id: str) -> list[Message] | None:
        rows = await self._db.fetch(
            f"SELECT m.data, h.{_HEAD_KEY} FROM {self._p}_message_heads h"
            f" LEFT JOIN {self._p}_messages m ON m.thread_id = h.thread_id"
            " WHERE h.thread_id = $1 ORDER BY m.seq",
            thread_id,
        )
        if not rows:
            return None
        parts = [r[0] for r in rows if r[0] is not None]
        messages: list[Message] = decode(f"[{','.join(parts)}]", list[Message])
        head = MessageHead.from_key(rows[0][1])
        assert head is not None
        self._known.remember_loaded(thread_id, messages, head)
        return messages

    async def _delete_messages(self, conn: asyncpg.Connection, thread_id: str) -> None:
        await conn.execute(f"DELETE FROM {self._p}_messages WHERE thread_id = $1", thread_id)
        await conn.execute(f"DELETE FROM {self._p}_message_heads WHERE thread_id = $1", thread_id)
        self._known.forget(thread_id)

    async def save_messages(self, thread_id: str, messages: list[Message]) -> None:
        rows = [encode_str(m) for m in messages]
        head = MessageHead.new(len(messages))
        pool = await self._db.pool()
        async with _io(), pool.acquire() as conn, conn.transaction():
            await self._delete_messages(conn, thread_id)
            await conn.execute(
                f"INSERT INTO {self._p}_messages (thread_id, seq, data) SELECT $1, e.ord,"
                " e.data::jsonb FROM unnest($2::text[]) WITH ORDINALITY AS e(data, ord)",
                thread_id,
                rows,
            )
            await conn.execute(
                f"INSERT INTO {self._p}_message_heads VALUES ($1, $2, $3)",
                thread_id,
                head.count,
                head.token,
            )
        self._known.remember(thread_id, messages, head)

    async def delete_messages(self, thread_id: str) -> None:
        pool = await self._db.pool()
        async with _io(), pool.acquire() as conn, conn.transaction():
            exists = await conn.fetchval(
                f"SELECT 1 FROM {self._p}_threads WHERE id = $1", thread_id
            )
            require_thread(Thread(id=thread_id) if exists else None, thread_id)
            await self._delete_messages(conn, thread_id)

    async def update_thread_metadata(self, thread_id: str, metadata: ThreadMetadata) -> None:
        pool = await self._db.pool()
        async with _io(), pool.acquire() as conn, conn.transaction():
            data = await conn.fetchval(
                f"SELECT data FROM {self._p}_threads WHERE id = $1 FOR UPDATE", thread_id
            )
            thread = require_thread(None if data is None else decode(data, Thread), thread_id)
            thread.metadata = metadata
            await conn.execute(
                f"UPDATE {self._p}_threads SET data = $2::jsonb, activity_ms = $3,"
                " updated_at = now() WHERE id = $1",
                thread_id,
                encode_str(thread),
                thread.activity_ms(),
            )
        self._remember(thread_id, None)

    # ------------------------------------------------------------------ runs
    async def create_run(self, record: RunRecord) -> None:
        values = _run_values(record)
        pool = await self._db.pool()
        try:
            async with _io():
                await pool.execute(self._insert_run, *values)
        except StorageIoError as exc:
            if isinstance(exc.__cause__, asyncpg.UniqueViolationError):
                raise AlreadyExists(record.run_id) from None
            raise

    async def load_run(self, run_id: str) -> RunRecord | None:
        row = await self._db.fetchrow(f"SELECT * FROM {self._p}_runs WHERE run_id = $1", run_id)
        return None if row is None else _run_from_row(row)

    async def latest_run(self, thread_id: str) -> RunRecord | None:
        row = await self._db.fetchrow(
            f"SELECT * FROM {self._p}_runs WHERE thread_id = $1"
            " ORDER BY updated_at DESC, run_id DESC LIMIT 1",
            thread_id,
        )
        return None if row is None else _run_from_row(row)

    async def list_runs(self, query: RunQuery) -> RunPage:
        where: list[str] = []
        params: list[Any] = []
        if query.thread_id is not None:
            params.append(query.thread_id)
            where.append(f"thread_id = ${len(params)}")
        if query.status is not None:
            params.append(query.status.value)
            where.append(f"status = ${len(params)}")
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        pool = await self._db.pool()
        async with _io(), pool.acquire() as conn, conn.transaction(isolation="repeatable_read"):
            total = int(
                await conn.fetchval(f"SELECT COUNT(*) FROM {self._p}_runs{clause}", *params)
            )
            start = min(max(query.offset, 0), total)
            rows = await conn.fetch(
                f"SELECT * FROM {self._p}_runs{clause} ORDER BY created_at ASC, run_id ASC"
                f" LIMIT ${len(params) + 1} OFFSET ${len(params) + 2}",
                *params,
                query.effective_limit(),
                start,
            )
        items = [_run_from_row(r) for r in rows]
        return RunPage(items=items, total=total, has_more=start + len(items) < total)

    # ------------------------------------------------------------------ checkpoint
    async def checkpoint_step(
        self,
        thread_id: str,
        messages: list[Message],
        run: RunRecord,
        records: Sequence[JournalRecord] = (),
        *,
        expected_last_seq: int | None = None,
    ) -> list[JournalEntry]:
        step = StepCheckpoint(thread_id, messages, run, list(records), expected_last_seq)
        pool = await self._db.pool()
        async with _io(), pool.acquire() as conn:
            entries, settle = await self._checkpoint_on(conn, step)
        settle()
        return entries

    async def _checkpoint_on(
        self, conn: asyncpg.Connection, step: StepCheckpoint
    ) -> tuple[list[JournalEntry], Callable[[], None]]:
        """Write ``step`` on ``conn`` (inside the caller's transaction when it has one); its
        entries and what to do once that commits (remember the thread and log head, wake
        journal followers)."""
        thread_id, messages, run, records = step.thread_id, step.messages, step.run, step.records
        expected_last_seq = step.expected_last_seq
        run_values = _run_values(run)
        kinds, datas = _journal_rows(records)
        now = now_ms()
        # Optimistic: assume thread and message head are as this store last saw them (absent
        # when unseen); the statement reports a mismatch and we re-read.
        expected = self._thread_cache.get(thread_id)
        head = self._known.expected(thread_id)
        for _ in range(self._MAX_ATTEMPTS):
            existing = None if expected is None else decode(expected, Thread)
            thread = checkpoint_thread(existing, thread_id, run)
            thread_json = encode_str(thread)
            plan = self._known.plan(thread_id, head, messages)
            args = [
                *run_values,
                thread_id,
                thread_json,
                thread.activity_ms(),
                expected,
                not plan.replaces,
                None if head is None else head.key,
                plan.start,
                [encode_str(m) for m in messages[plan.start :]],
                len(messages),
                plan.head.token,
                plan.head_changed,
                kinds,
                datas,
                expected_last_seq,
                now,
            ]
            if expected_last_seq is None:
                row = await conn.fetchrow(self._checkpoint_sql, *args)
            else:
                async with conn.transaction():
                    row = await conn.fetchrow(self._checkpoint_sql, *args)
                    if row is not None and row[0]:
                        _check_fence(row, records, expected_last_seq)
            assert row is not None
            if row[0]:

                def settle(thread_json: str = thread_json, head: MessageHead = plan.head) -> None:
                    self._remember(thread_id, thread_json)
                    self._known.settle(thread_id, messages, head, run.status is RunStatus.DONE)
                    if records:
                        self._journal_hub.notify(run.run_id)

                return _entries(run.run_id, records, row[2] or 0, now), settle
            _check_fence(row, (), expected_last_seq)
            # Another writer changed the thread or its messages: re-read and retry.
            expected, head = await self._current(conn, thread_id)
        raise StorageIoError(f"checkpoint of thread {thread_id} kept conflicting")

    async def _current(
        self, conn: asyncpg.Connection, thread_id: str
    ) -> tuple[str | None, MessageHead | None]:
        """The stored thread json and message head."""
        row = await conn.fetchrow(
            f"SELECT (SELECT data FROM {self._p}_threads WHERE id = $1),"
            f" (SELECT {_HEAD_KEY} FROM {self._p}_message_heads WHERE thread_id = $1)",
            thread_id,
        )
        assert row is not None
        return row[0], MessageHead.from_key(row[1])

    # ------------------------------------------------------------------ retention
    async def prune(self, policy: RetentionPolicy, *, now_secs: int | None = None) -> PruneReport:
        now = _now_secs() if now_secs is None else now_secs
        p = self._p
        pool = await self._db.pool()
        async with _io(), pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(
                f"SELECT run_id, thread_id, updated_at FROM {p}_runs WHERE status = $1",
                RunStatus.DONE.value,
            )
            summaries = [RunSummary(r[0], r[1], RunStatus.DONE, r[2]) for r in rows]
            doomed = select_prunable(summaries, policy, now)
            if not doomed:
                return PruneReport()
            entries = await conn.execute(
                f"DELETE FROM {p}_journal WHERE run_id = ANY($1::text[])", doomed
            )
            await conn.execute(
                f"DELETE FROM {p}_journal_heads WHERE run_id = ANY($1::text[])", doomed
            )
            runs = await conn.execute(
                f"DELETE FROM {p}_runs WHERE run_id = ANY($1::text[]) AND status = $2",
                doomed,
                RunStatus.DONE.value,
            )
        return PruneReport(
            runs_deleted=int(runs.split()[-1]), journal_entries_deleted=int(entries.split()[-1])
        )
