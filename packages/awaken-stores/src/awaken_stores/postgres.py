"""PostgreSQL stores on asyncpg: connection pool, table prefix, versioned migrations.

Tables (default prefix ``awaken``): ``awaken_threads``, ``awaken_messages`` (one row per message),
``awaken_message_heads``, ``awaken_runs``, ``awaken_journal``, ``awaken_journal_heads``,
``awaken_profiles``, ``awaken_configs``, ``awaken_mailbox_jobs``, ``awaken_mailbox_generations``
and ``awaken_schema_migrations``. The schema is created on first access (``ensure_schema``).

* ``checkpoint_step`` is a single SQL statement (thread, new messages, message head, run and
  journal writes in data-modifying CTEs), so it is atomic and costs one round trip. The thread
  row is written with an optimistic check against the version this store last saw and the
  message head is checked (and locked) against the one it last saw; on a mismatch it re-reads
  and retries. A fenced step (``expected_last_seq``) runs in an explicit transaction.
* Journal seqs come from the run's ``<prefix>_journal_heads`` row, incremented in the writing
  statement: concurrent appenders serialize on that row, so seqs have no gaps or duplicates.
  Each append notifies ``<prefix>_journal`` (payload: run id) in the same transaction.
* Mailbox transactions lock the mailbox's generation row (``FOR UPDATE``); worker claims use
  ``FOR UPDATE SKIP LOCKED`` so concurrent claimers never queue up behind each other, and
  LISTEN/NOTIFY wakes waiting workers when a job becomes claimable.
* Config changes are announced with ``pg_notify`` in the writing transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import TracebackType
from typing import Any, Generic, TypeVar

import asyncpg
import msgspec
from awaken_contract.contract.journal import (
    JournaledThreadRunStore,
    JournalEntry,
    JournalKind,
    JournalRecord,
    JournalSubscription,
    kind_of,
)
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.mailbox import MailboxJob, MailboxJobList, MailboxJobStatus
from awaken_contract.contract.message import Message
from awaken_contract.contract.retention import (
    PruneReport,
    RetentionPolicy,
    RunSummary,
    select_prunable,
)
from awaken_contract.contract.storage import (
    ConfigChangeEvent,
    ConfigChangeKind,
    ConfigChangeNotifier,
    ConfigStore,
    ProfileEntry,
    ProfileOwner,
    ProfileStore,
    RunPage,
    RunQuery,
    RunRecord,
    Thread,
    ThreadMetadata,
    checkpoint_thread,
    require_thread,
)
from awaken_contract.errors import AlreadyExists, StorageError, StorageIoError, VersionConflict
from awaken_contract.ids import now_ms
from awaken_contract.ids import now_secs as _now_secs

from awaken_stores._codec import decode, encode_str
from awaken_stores._journal_local import LocalJournalHub
from awaken_stores._message_log import KnownLogs, MessageHead
from awaken_stores.mailbox_engine import MailboxEngine, MailboxTxn

__all__ = [
    "ConfigSubscription",
    "PostgresConfigStore",
    "PostgresJournalSubscription",
    "PostgresMailboxStore",
    "PostgresProfileStore",
    "PostgresStore",
]

_PREFIX = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,40}$")
_TERMINAL = [s.value for s in MailboxJobStatus if s.is_terminal]
_MAX_LIMIT = 2**63 - 1

# Run columns other than the JSONB ones; JSONB columns map to RunRecord fields below.
_RUN_JSON_COLUMNS = {
    "request": "request",
    "run_input": "input",
    "run_output": "output",
    "termination_reason": "termination_reason",
    "error_payload": "error_payload",
    "waiting": "waiting",
    "outcome": "outcome",
    "state": "state",
}
_RUN_PLAIN_COLUMNS = [
    "run_id",
    "thread_id",
    "agent_id",
    "parent_run_id",
    "status",
    "final_output",
    "dispatch_id",
    "session_id",
    "transport_request_id",
    "created_at",
    "started_at",
    "finished_at",
    "updated_at",
    "steps",
    "input_tokens",
    "output_tokens",
    "cost",
]
_RUN_COLUMNS = _RUN_PLAIN_COLUMNS + list(_RUN_JSON_COLUMNS)
_RUN_STATUSES = {s.value for s in RunStatus}
_RUN_FIELD_TYPES = {f.name: f.type for f in msgspec.structs.fields(RunRecord)}
_RUN_IMMUTABLE = {"run_id", "thread_id", "agent_id", "parent_run_id", "created_at"}


def _migrations(p: str) -> list[tuple[int, list[str]]]:
    return [
        (
            1,
            [
                f"CREATE TABLE IF NOT EXISTS {p}_threads (id TEXT PRIMARY KEY, data JSONB NOT NULL,"
                " activity_ms BIGINT NOT NULL DEFAULT 0,"
                " updated_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                f"CREATE INDEX IF NOT EXISTS idx_{p}_threads_activity ON {p}_threads"
                " (activity_ms DESC, id)",
                f"CREATE TABLE IF NOT EXISTS {p}_messages (thread_id TEXT PRIMARY KEY,"
                " data JSONB NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                f"CREATE TABLE IF NOT EXISTS {p}_runs (run_id TEXT PRIMARY KEY,"
                " thread_id TEXT NOT NULL, agent_id TEXT NOT NULL DEFAULT '',"
                " parent_run_id TEXT, request JSONB, run_input JSONB, run_output JSONB,"
                " status TEXT NOT NULL, termination_reason JSONB, final_output TEXT,"
                " error_payload JSONB, dispatch_id TEXT, session_id TEXT,"
                " transport_request_id TEXT, waiting JSONB, outcome JSONB,"
                " created_at BIGINT NOT NULL, started_at BIGINT, finished_at BIGINT,"
                " updated_at BIGINT NOT NULL, steps INTEGER NOT NULL DEFAULT 0,"
                " input_tokens BIGINT NOT NULL DEFAULT 0, output_tokens BIGINT NOT NULL DEFAULT 0,"
                " state JSONB)",
                f"CREATE INDEX IF NOT EXISTS idx_{p}_runs_thread_created ON {p}_runs"
                " (thread_id, created_at DESC)",
                f"CREATE INDEX IF NOT EXISTS idx_{p}_runs_thread_updated ON {p}_runs"
                " (thread_id, updated_at DESC)",
                f"CREATE TABLE IF NOT EXISTS {p}_profiles (owner TEXT NOT NULL, key TEXT NOT NULL,"
                " data JSONB NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (owner, key))",
                f"CREATE TABLE IF NOT EXISTS {p}_configs (namespace TEXT NOT NULL,"
                " id TEXT NOT NULL, data JSONB NOT NULL,"
                " updated_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (namespace, id))",
                f"CREATE TABLE IF NOT EXISTS {p}_mailbox_jobs (job_id TEXT PRIMARY KEY,"
                " mailbox_id TEXT NOT NULL, status TEXT NOT NULL, priority INTEGER NOT NULL,"
                " created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, lease_until BIGINT,"
                " data JSONB NOT NULL)",
                f"CREATE INDEX IF NOT EXISTS idx_{p}_mailbox_jobs_mailbox ON {p}_mailbox_jobs"
                " (mailbox_id, status)",
                f"CREATE INDEX IF NOT EXISTS idx_{p}_mailbox_jobs_status ON {p}_mailbox_jobs"
                " (status, lease_until)",
                f"CREATE TABLE IF NOT EXISTS {p}_mailbox_generations (mailbox_id TEXT PRIMARY KEY,"
                " generation BIGINT NOT NULL DEFAULT 0)",
            ],
        ),
        # 2: cumulative inference cost of a run (ModelSpec pricing).
        (2, [f"ALTER TABLE {p}_runs ADD COLUMN IF NOT EXISTS cost DOUBLE PRECISION"]),
        # 3: one row per message (append-only checkpoints) with a head per thread (count + write
        # token); run journals. Existing message lists are split into rows.
        (
            3,
            [
                f"CREATE TABLE {p}_messages_v3 (thread_id TEXT NOT NULL, seq INTEGER NOT NULL,"
                " data JSONB NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),"
                f" CONSTRAINT {p}_messages_v3_pkey PRIMARY KEY (thread_id, seq))",
                f"INSERT INTO {p}_messages_v3 (thread_id, seq, data) SELECT m.thread_id, e.ord,"
                f" e.value FROM {p}_messages m, jsonb_array_elements(m.data) WITH ORDINALITY"
                " AS e(value, ord) WHERE jsonb_typeof(m.data) = 'array'",
                f"CREATE TABLE {p}_message_heads (thread_id TEXT PRIMARY KEY,"
                " count INTEGER NOT NULL, token TEXT NOT NULL)",
                f"INSERT INTO {p}_message_heads SELECT thread_id, jsonb_array_length(data), ''"
                f" FROM {p}_messages WHERE jsonb_typeof(data) = 'array'",
                f"DROP TABLE {p}_messages",
                f"ALTER TABLE {p}_messages_v3 RENAME TO {p}_messages",
                f"CREATE TABLE {p}_journal (run_id TEXT NOT NULL, seq BIGINT NOT NULL,"
                " kind TEXT NOT NULL, created_at BIGINT NOT NULL, data JSONB NOT NULL,"
                " PRIMARY KEY (run_id, seq))",
                f"CREATE TABLE {p}_journal_heads (run_id TEXT PRIMARY KEY,"
                " last_seq BIGINT NOT NULL)",
            ],
        ),
    ]


async def _keep_session(_conn: asyncpg.Connection) -> None:
    """Pool reset hook: skip asyncpg's default ``RESET ALL``/``UNLISTEN *`` round trip on every
    release. The stores leave no session state behind (listeners are removed, locks are
    transaction scoped), so a released connection is already clean."""


class _Connections:
    """The pool seen by the stores: connections are kept in a small idle list between
    operations instead of going through ``Pool.acquire``/``release`` each time (which costs
    more than a small statement on a fast server)."""

    def __init__(self, pool: asyncpg.Pool, keep: int) -> None:
        self.raw = pool
        self._idle: list[asyncpg.Connection] = []
        self._keep = keep

    @asynccontextmanager
    async def acquire(self) -> AsyncIterator[asyncpg.Connection]:
        conn = self._idle.pop() if self._idle else await self.raw.acquire()
        try:
            yield conn
        except BaseException:
            await self.raw.release(conn)
            raise
        if len(self._idle) < self._keep and not conn.is_closed() and not conn.is_in_transaction():
            self._idle.append(conn)
        else:
            await self.raw.release(conn)

    async def fetchval(self, sql: str, *args: Any) -> Any:
        async with self.acquire() as conn:
            return await conn.fetchval(sql, *args)

    async def fetchrow(self, sql: str, *args: Any) -> asyncpg.Record | None:
        async with self.acquire() as conn:
            row: asyncpg.Record | None = await conn.fetchrow(sql, *args)
            return row

    async def fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        async with self.acquire() as conn:
            rows: list[asyncpg.Record] = await conn.fetch(sql, *args)
            return rows

    async def execute(self, sql: str, *args: Any) -> str:
        async with self.acquire() as conn:
            status: str = await conn.execute(sql, *args)
            return status

    async def release_idle(self) -> None:
        while self._idle:
            await self.raw.release(self._idle.pop())


class _PgDb:
    """Pool, prefix and schema state shared by a store and its sub-stores."""

    def __init__(
        self, dsn_or_pool: str | asyncpg.Pool, prefix: str, min_size: int, max_size: int
    ) -> None:
        if not _PREFIX.match(prefix):
            raise ValueError(f"invalid table prefix: {prefix!r}")
        self.prefix = prefix
        self._dsn = dsn_or_pool if isinstance(dsn_or_pool, str) else None
        self._pool: asyncpg.Pool | None = None if isinstance(dsn_or_pool, str) else dsn_or_pool
        self._owns_pool = isinstance(dsn_or_pool, str)
        self._min_size, self._max_size = min_size, max_size
        self._lock = asyncio.Lock()
        self._ready = False
        self._conns: _Connections | None = None
        self.before_close: list[Callable[[], Awaitable[None]]] = []
        """Hooks run before the pool closes (listeners release their connections)."""

    async def pool(self) -> _Connections:
        """The pool, created and migrated on first use."""
        if self._ready and self._conns is not None:
            return self._conns
        async with self._lock:
            try:
                if self._pool is None:
                    self._pool = await asyncpg.create_pool(
                        self._dsn,
                        min_size=self._min_size,
                        max_size=self._max_size,
                        reset=_keep_session,
                    )
                if not self._ready:
                    await self._migrate(self._pool)
                    self._ready = True
                if self._conns is None:
                    self._conns = _Connections(self._pool, keep=max(self._max_size // 2, 1))
            except (OSError, asyncpg.PostgresError) as exc:
                raise StorageIoError(str(exc)) from exc
        return self._conns

    async def _migrate(self, pool: asyncpg.Pool) -> None:
        p = self.prefix
        async with pool.acquire() as conn, conn.transaction():
            # Serialize concurrent migrators (several processes starting at once).
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext($1))", f"{p}_migrations")
            await conn.execute(
                f"CREATE TABLE IF NOT EXISTS {p}_schema_migrations"
                " (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)"
            )
            current = await conn.fetchval(f"SELECT MAX(version) FROM {p}_schema_migrations")
            for version, statements in _migrations(p):
                if version > (current or 0):
                    for statement in statements:
                        await conn.execute(statement)
                    await conn.execute(
                        f"INSERT INTO {p}_schema_migrations VALUES ($1, $2)", version, now_ms()
                    )

    async def close(self) -> None:
        hooks, self.before_close = self.before_close, []
        for hook in hooks:
            await hook()
        async with self._lock:
            if self._conns is not None:
                await self._conns.release_idle()
                self._conns = None
            if self._pool is not None and self._owns_pool:
                await self._pool.close()
                self._pool = None
                self._ready = False


@asynccontextmanager
async def _io() -> AsyncIterator[None]:
    """Turn driver errors into ``StorageIoError``."""
    try:
        yield
    except StorageError:
        raise
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise StorageIoError(str(exc)) from exc


class _PgBacked:
    def __init__(
        self,
        dsn_or_pool: str | asyncpg.Pool | _PgDb,
        prefix: str = "awaken",
        *,
        min_size: int = 1,
        max_size: int = 10,
    ) -> None:
        self._db = (
            dsn_or_pool
            if isinstance(dsn_or_pool, _PgDb)
            else _PgDb(dsn_or_pool, prefix, min_size, max_size)
        )
        self._p = self._db.prefix

    async def ensure_schema(self) -> None:
        """Create or migrate the tables (also done lazily before the first operation)."""
        await self._db.pool()

    async def close(self) -> None:
        """Close the pool if this store created it."""
        await self._db.close()


# --------------------------------------------------------------------------- runs: row mapping


def _run_values(run: RunRecord) -> list[Any]:
    raw = msgspec.to_builtins(run)
    values: list[Any] = [raw.get(c) for c in _RUN_PLAIN_COLUMNS]
    for field in _RUN_JSON_COLUMNS.values():
        value = raw.get(field)
        values.append(None if value is None else encode_str(value))
    return values


def _run_from_row(row: asyncpg.Record) -> RunRecord:
    """Rebuild a RunRecord from its row. Like the original store, an unknown status reads back
    as ``running`` and a JSON column that no longer decodes reads back as absent."""
    raw: dict[str, Any] = {c: row[c] for c in _RUN_PLAIN_COLUMNS if row[c] is not None}
    raw["parent_run_id"] = row["parent_run_id"]
    if raw.get("status") not in _RUN_STATUSES:
        raw["status"] = RunStatus.RUNNING.value
    for column, field in _RUN_JSON_COLUMNS.items():
        if row[column] is None:
            continue
        try:
            raw[field] = msgspec.convert(decode(row[column], Any), _RUN_FIELD_TYPES[field])
        except (StorageError, msgspec.ValidationError, ValueError):
            continue
    try:
        return msgspec.convert(raw, RunRecord)
    except (msgspec.ValidationError, ValueError) as exc:
        raise StorageIoError(f"invalid run row {row['run_id']}: {exc}") from exc


K = TypeVar("K")
V = TypeVar("V")


class _Lru(Generic[K, V]):
    """A bounded most-recently-used map (what this store last wrote or read per key)."""

    def __init__(self, size: int) -> None:
        self._items: OrderedDict[K, V] = OrderedDict()
        self._size = size

    def get(self, key: K) -> V | None:
        return self._items.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def remember(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self._size:
            self._items.popitem(last=False)

    def forget(self, key: K) -> None:
        self._items.pop(key, None)

    def clear(self) -> None:
        self._items.clear()


_HEAD_KEY = "count || ':' || token"


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
    first = last_seq - len(records) + 1
    return [JournalEntry(run_id, first + i, now, r) for i, r in enumerate(records)]


class PostgresStore(_PgBacked, JournaledThreadRunStore):
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
        self._journal_hub = LocalJournalHub()
        self._listener: _JournalListener | None = None
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
        # $1 run id, $2 journal kinds, $3 journal jsons, $4 expected last seq, $5 created_at.
        self._append_sql = (
            f"WITH {_journal_lock_cte(p)},"
            " t AS (SELECT 1 WHERE $4::bigint IS NULL"
            " OR COALESCE((SELECT last_seq FROM jk), 0) = $4::bigint),"
            f" {_journal_write_ctes(p, '$2', '$3', '$4', '$5')}"
            f" SELECT (SELECT count(*) FROM t), NULL, {_journal_result(p)}"
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

    async def _stop_listener(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            await listener.stop()

    @property
    def journal_channel(self) -> str:
        """The LISTEN/NOTIFY channel announcing journal appends (payload: run id)."""
        return f"{self._p}_journal"

    async def schema_version(self) -> int:
        """The highest applied migration version."""
        pool = await self._db.pool()
        async with _io():
            value = await pool.fetchval(f"SELECT MAX(version) FROM {self._p}_schema_migrations")
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
        pool = await self._db.pool()
        async with _io():
            data = await pool.fetchval(
                f"SELECT data FROM {self._p}_threads WHERE id = $1", thread_id
            )
        return None if data is None else decode(data, Thread)

    async def save_thread(self, thread: Thread) -> None:
        data = encode_str(thread)
        pool = await self._db.pool()
        async with _io():
            await pool.execute(
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
        pool = await self._db.pool()
        async with _io():
            rows = await pool.fetch(
                f"SELECT id FROM {self._p}_threads ORDER BY activity_ms DESC, id ASC"
                " LIMIT $1 OFFSET $2",
                min(max(limit, 0), _MAX_LIMIT),
                max(offset, 0),
            )
        return [r["id"] for r in rows]

    async def load_messages(self, thread_id: str) -> list[Message] | None:
        pool = await self._db.pool()
        async with _io():
            rows = await pool.fetch(
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
        pool = await self._db.pool()
        async with _io():
            row = await pool.fetchrow(f"SELECT * FROM {self._p}_runs WHERE run_id = $1", run_id)
        return None if row is None else _run_from_row(row)

    async def latest_run(self, thread_id: str) -> RunRecord | None:
        pool = await self._db.pool()
        async with _io():
            row = await pool.fetchrow(
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
        run_values = _run_values(run)
        kinds, datas = _journal_rows(records)
        now = now_ms()
        pool = await self._db.pool()
        # Optimistic: assume thread and message head are as this store last saw them (absent
        # when unseen); the statement reports a mismatch and we re-read.
        expected = self._thread_cache.get(thread_id)
        head = self._known.expected(thread_id)
        async with _io():
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
                async with pool.acquire() as conn:
                    if expected_last_seq is None:
                        row = await conn.fetchrow(self._checkpoint_sql, *args)
                    else:
                        async with conn.transaction():
                            row = await conn.fetchrow(self._checkpoint_sql, *args)
                            if row is not None and row[0]:
                                _check_fence(row, records, expected_last_seq)
                assert row is not None
                if row[0]:
                    self._remember(thread_id, thread_json)
                    self._known.settle(thread_id, messages, plan.head, run.status is RunStatus.DONE)
                    if records:
                        self._journal_hub.notify(run.run_id)
                    return _entries(run.run_id, records, row[2] or 0, now)
                _check_fence(row, (), expected_last_seq)
                # Another writer changed the thread or its messages: re-read and retry.
                expected, head = await self._current(pool, thread_id)
        raise StorageIoError(f"checkpoint of thread {thread_id} kept conflicting")

    async def _current(
        self, pool: _Connections, thread_id: str
    ) -> tuple[str | None, MessageHead | None]:
        """The stored thread json and message head."""
        row = await pool.fetchrow(
            f"SELECT (SELECT data FROM {self._p}_threads WHERE id = $1),"
            f" (SELECT {_HEAD_KEY} FROM {self._p}_message_heads WHERE thread_id = $1)",
            thread_id,
        )
        assert row is not None
        return row[0], MessageHead.from_key(row[1])

    # ------------------------------------------------------------------ journal
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
        pool = await self._db.pool()
        async with _io():
            row = await pool.fetchrow(
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
        pool = await self._db.pool()
        async with _io():
            rows = await pool.fetch(
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
        pool = await self._db.pool()
        async with _io():
            value = await pool.fetchval(
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

    def __init__(self, store: PostgresStore, run_id: str) -> None:
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


# --------------------------------------------------------------------------- profiles and config


class PostgresProfileStore(_PgBacked, ProfileStore):
    """Profile entries in ``<prefix>_profiles``."""

    async def get(self, owner: ProfileOwner, key: str) -> ProfileEntry | None:
        pool = await self._db.pool()
        async with _io():
            row = await pool.fetchrow(
                f"SELECT data, updated_at FROM {self._p}_profiles WHERE owner = $1 AND key = $2",
                str(owner),
                key,
            )
        if row is None:
            return None
        return ProfileEntry(key=key, value=decode(row["data"], Any), updated_at=row["updated_at"])

    async def set(self, owner: ProfileOwner, key: str, value: Any) -> None:
        pool = await self._db.pool()
        async with _io():
            await pool.execute(
                f"INSERT INTO {self._p}_profiles VALUES ($1, $2, $3::jsonb, $4)"
                " ON CONFLICT (owner, key) DO UPDATE SET data = excluded.data,"
                " updated_at = excluded.updated_at",
                str(owner),
                key,
                encode_str(value),
                now_ms(),
            )

    async def delete(self, owner: ProfileOwner, key: str) -> None:
        pool = await self._db.pool()
        async with _io():
            await pool.execute(
                f"DELETE FROM {self._p}_profiles WHERE owner = $1 AND key = $2", str(owner), key
            )

    async def list(self, owner: ProfileOwner) -> list[ProfileEntry]:
        pool = await self._db.pool()
        async with _io():
            rows = await pool.fetch(
                f"SELECT key, data, updated_at FROM {self._p}_profiles WHERE owner = $1"
                ' ORDER BY key COLLATE "C"',
                str(owner),
            )
        return [
            ProfileEntry(key=r["key"], value=decode(r["data"], Any), updated_at=r["updated_at"])
            for r in rows
        ]

    async def clear_owner(self, owner: ProfileOwner) -> None:
        pool = await self._db.pool()
        async with _io():
            await pool.execute(f"DELETE FROM {self._p}_profiles WHERE owner = $1", str(owner))


class PostgresConfigStore(_PgBacked, ConfigStore, ConfigChangeNotifier):
    """Config documents in ``<prefix>_configs``; changes are announced on the
    ``<prefix>_config_changes`` channel."""

    @property
    def channel(self) -> str:
        """The LISTEN/NOTIFY channel of config changes."""
        return f"{self._p}_config_changes"

    async def get(self, namespace: str, id: str) -> Any | None:
        pool = await self._db.pool()
        async with _io():
            data = await pool.fetchval(
                f"SELECT data FROM {self._p}_configs WHERE namespace = $1 AND id = $2",
                namespace,
                id,
            )
        return None if data is None else decode(data, Any)

    async def list(self, namespace: str, offset: int, limit: int) -> list[tuple[str, Any]]:
        pool = await self._db.pool()
        async with _io():
            rows = await pool.fetch(
                f"SELECT id, data FROM {self._p}_configs WHERE namespace = $1"
                ' ORDER BY id COLLATE "C" LIMIT $2 OFFSET $3',
                namespace,
                min(max(limit, 0), _MAX_LIMIT),
                max(offset, 0),
            )
        return [(r["id"], decode(r["data"], Any)) for r in rows]

    async def put(self, namespace: str, id: str, value: Any) -> None:
        event = encode_str(ConfigChangeEvent(namespace, id, ConfigChangeKind.PUT))
        pool = await self._db.pool()
        async with _io(), pool.acquire() as conn, conn.transaction():
            await conn.execute(
                f"INSERT INTO {self._p}_configs (namespace, id, data) VALUES ($1, $2, $3::jsonb)"
                " ON CONFLICT (namespace, id) DO UPDATE SET data = excluded.data,"
                " updated_at = now()",
                namespace,
                id,
                encode_str(value),
            )
            await conn.execute("SELECT pg_notify($1, $2)", self.channel, event)

    async def delete(self, namespace: str, id: str) -> None:
        event = encode_str(ConfigChangeEvent(namespace, id, ConfigChangeKind.DELETE))
        pool = await self._db.pool()
        async with _io(), pool.acquire() as conn, conn.transaction():
            status = await conn.execute(
                f"DELETE FROM {self._p}_configs WHERE namespace = $1 AND id = $2", namespace, id
            )
            if status != "DELETE 0":
                await conn.execute("SELECT pg_notify($1, $2)", self.channel, event)

    def subscribe(self) -> ConfigSubscription:
        """Change events from now on. Use ``async with store.config.subscribe() as events`` to
        be sure the listener is attached before your next write."""
        return ConfigSubscription(self._db, self.channel)


class ConfigSubscription:
    """An async iterator of ``ConfigChangeEvent`` over a dedicated LISTEN connection.

    When that connection is lost the iterator raises :class:`StorageError` (subscribe again:
    notifications sent meanwhile are lost, so re-read what you cache).
    """

    def __init__(self, db: _PgDb, channel: str) -> None:
        self._db, self._channel = db, channel
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._conn: asyncpg.Connection | None = None
        self._pool: asyncpg.Pool | None = None

    def _on_notify(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        self._queue.put_nowait(payload)

    def _on_terminate(self, _conn: object) -> None:
        self._queue.put_nowait(None)

    async def start(self) -> None:
        """Attach the listener (idempotent)."""
        if self._conn is None:
            pool = await self._db.pool()
            async with _io():
                conn = await pool.raw.acquire()
                await conn.add_listener(self._channel, self._on_notify)
                conn.add_termination_listener(self._on_terminate)
            self._conn, self._pool = conn, pool.raw

    async def aclose(self) -> None:
        """Detach the listener and return its connection to the pool."""
        conn, pool = self._conn, self._pool
        self._conn = None
        if conn is None or pool is None:
            return
        conn.remove_termination_listener(self._on_terminate)
        if conn.is_closed():
            with contextlib.suppress(Exception):
                await pool.release(conn)
            return
        with contextlib.suppress(Exception):
            await conn.remove_listener(self._channel, self._on_notify)
        await pool.release(conn)

    async def __aenter__(self) -> ConfigSubscription:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __aiter__(self) -> ConfigSubscription:
        return self

    async def __anext__(self) -> ConfigChangeEvent:
        await self.start()
        payload = await self._queue.get()
        if payload is None:
            raise StorageError("config change listener connection lost")
        event: ConfigChangeEvent = decode(payload, ConfigChangeEvent)
        return event


# --------------------------------------------------------------------------- mailbox


class PostgresMailboxStore(_PgBacked, MailboxEngine):
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
                yield MailboxTxn.busy_marker(mailbox_id)
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
            yield txn
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
        pool = await self._db.pool()
        async with _io():
            value = await pool.fetchval(
                f"SELECT mailbox_id FROM {self._p}_mailbox_jobs WHERE job_id = $1", job_id
            )
        return None if value is None else str(value)

    async def _expired_candidates(self, now: int, limit: int) -> list[tuple[str, str]]:
        pool = await self._db.pool()
        async with _io():
            rows = await pool.fetch(
                f"SELECT job_id, mailbox_id FROM {self._p}_mailbox_jobs WHERE status = 'Claimed'"
                " AND lease_until < $1 ORDER BY lease_until, job_id LIMIT $2"
                " FOR UPDATE SKIP LOCKED",
                now,
                max(limit, 0),
            )
        return [(r[0], r[1]) for r in rows]

    async def _work_available(self, mailbox_id: str) -> None:
        pool = await self._db.pool()
        async with _io():
            await pool.execute("SELECT pg_notify($1, $2)", self.channel, mailbox_id)

    async def _listen(self) -> None:
        if self._listener is not None:
            return
        pool = await self._db.pool()
        conn = await pool.raw.acquire()
        await conn.add_listener(self.channel, self._on_notify)
        self._listener, self._listener_pool = conn, pool.raw

    def _on_notify(self, _conn: object, _pid: int, _channel: str, _payload: str) -> None:
        self._wakeup.set()

    async def wait_for_work(self, wait_seconds: float) -> None:
        async with _io():
            await self._listen()
        try:
            await asyncio.wait_for(self._wakeup.wait(), wait_seconds)
        except TimeoutError:
            return
        finally:
            self._wakeup.clear()

    async def close(self) -> None:
        if self._listener is not None and self._listener_pool is not None:
            await self._listener.remove_listener(self.channel, self._on_notify)
            await self._listener_pool.release(self._listener)
            self._listener = None
        await super().close()

    async def current_generation(self, mailbox_id: str) -> int:
        pool = await self._db.pool()
        async with _io():
            value = await pool.fetchval(
                f"SELECT generation FROM {self._p}_mailbox_generations WHERE mailbox_id = $1",
                mailbox_id,
            )
        return int(value or 0)

    async def purge_terminal(self, older_than: int) -> int:
        pool = await self._db.pool()
        async with _io():
            status = await pool.execute(
                f"DELETE FROM {self._p}_mailbox_jobs WHERE updated_at < $1"
                " AND status = ANY($2::text[])",
                older_than,
                _TERMINAL,
            )
        return int(status.split()[-1])

    async def queued_mailbox_ids(self) -> list[str]:
        pool = await self._db.pool()
        async with _io():
            rows = await pool.fetch(
                f'SELECT DISTINCT mailbox_id COLLATE "C" FROM {self._p}_mailbox_jobs'
                " WHERE status = 'Queued' ORDER BY 1"
            )
        return [r[0] for r in rows]

    async def load(self, job_id: str) -> MailboxJob | None:
        pool = await self._db.pool()
        async with _io():
            data = await pool.fetchval(
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
        pool = await self._db.pool()
        async with _io():
            rows = await pool.fetch(
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
        pool = await self._db.pool()
        async with _io():
            rows = await pool.fetch(
                f"SELECT data FROM {self._p}_mailbox_jobs WHERE status = ANY($1::text[])"
                " ORDER BY updated_at, created_at, job_id LIMIT $2 OFFSET $3",
                _TERMINAL,
                max(limit, 0),
                max(offset, 0),
            )
        return [decode(r[0], MailboxJob) for r in rows]

    async def count_by_status(self, status: MailboxJobStatus) -> int:
        pool = await self._db.pool()
        async with _io():
            value = await pool.fetchval(
                f"SELECT COUNT(*) FROM {self._p}_mailbox_jobs WHERE status = $1", status.value
            )
        return int(value or 0)
