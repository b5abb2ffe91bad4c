"""SQLite stores on aiosqlite: WAL journal, busy timeout, versioned migrations.

One connection per ``SqliteStore``; every operation is one transaction executed as a single
function on the connection's worker thread (one thread hop per operation), serialized in-process
by an asyncio lock. Writers take SQLite's write lock up front (``BEGIN IMMEDIATE``) so several
processes can share one database file; the busy timeout makes them wait instead of failing.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite
from awaken_contract.contract.journal import (
    JournaledThreadRunStore,
    JournalEntry,
    JournalKind,
    JournalRecord,
    JournalSubscription,
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
from awaken_contract.errors import AlreadyExists, StorageIoError, VersionConflict
from awaken_contract.ids import now_ms
from awaken_contract.ids import now_secs as _now_secs

from awaken_stores._codec import decode, encode_str
from awaken_stores._ids import validate_id
from awaken_stores._journal_local import LocalJournalHub, hub_for
from awaken_stores._journal_watch import ExternalChangeWatcher
from awaken_stores._message_log import KnownLogs, LogWrite, MessageHead
from awaken_stores.mailbox_engine import MailboxEngine, MailboxTxn

__all__ = [
    "SCHEMA_VERSION",
    "SqliteConfigStore",
    "SqliteMailboxStore",
    "SqliteProfileStore",
    "SqliteStore",
]

T = TypeVar("T")

# Each migration is applied once, in order, inside one transaction; the applied versions are
# recorded in ``awaken_schema_migrations``.
MIGRATIONS: list[tuple[int, list[str]]] = [
    (
        1,
        [
            "CREATE TABLE awaken_threads (id TEXT PRIMARY KEY, data TEXT NOT NULL,"
            " activity_ms INTEGER NOT NULL)",
            "CREATE INDEX idx_awaken_threads_activity ON awaken_threads (activity_ms DESC, id)",
            "CREATE TABLE awaken_messages (thread_id TEXT PRIMARY KEY, data TEXT NOT NULL)",
            "CREATE TABLE awaken_runs (run_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL,"
            " status TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,"
            " data TEXT NOT NULL)",
            "CREATE INDEX idx_awaken_runs_thread_updated ON awaken_runs (thread_id, updated_at)",
            "CREATE INDEX idx_awaken_runs_created ON awaken_runs (created_at)",
            "CREATE TABLE awaken_profiles (owner TEXT NOT NULL, key TEXT NOT NULL,"
            " data TEXT NOT NULL, PRIMARY KEY (owner, key))",
            "CREATE TABLE awaken_configs (namespace TEXT NOT NULL, id TEXT NOT NULL,"
            " data TEXT NOT NULL, PRIMARY KEY (namespace, id))",
            "CREATE TABLE awaken_mailbox_jobs (job_id TEXT PRIMARY KEY,"
            " mailbox_id TEXT NOT NULL, status TEXT NOT NULL, priority INTEGER NOT NULL,"
            " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, lease_until INTEGER,"
            " data TEXT NOT NULL)",
            "CREATE INDEX idx_awaken_mailbox_jobs_mailbox ON awaken_mailbox_jobs"
            " (mailbox_id, status)",
            "CREATE INDEX idx_awaken_mailbox_jobs_status ON awaken_mailbox_jobs"
            " (status, updated_at)",
            "CREATE TABLE awaken_mailbox_generations (mailbox_id TEXT PRIMARY KEY,"
            " generation INTEGER NOT NULL)",
        ],
    ),
    # 2: the message log becomes one row per message (append-only checkpoints) with a head per
    # thread (count + write token); run journals. Existing message lists are split into rows.
    (
        2,
        [
            "CREATE TABLE awaken_messages_v2 (thread_id TEXT NOT NULL, seq INTEGER NOT NULL,"
            " data TEXT NOT NULL, PRIMARY KEY (thread_id, seq)) WITHOUT ROWID",
            "INSERT INTO awaken_messages_v2 (thread_id, seq, data)"
            " SELECT m.thread_id, j.key + 1, j.value FROM awaken_messages m, json_each(m.data) j",
            "CREATE TABLE awaken_message_heads (thread_id TEXT PRIMARY KEY,"
            " count INTEGER NOT NULL, token TEXT NOT NULL) WITHOUT ROWID",
            "INSERT INTO awaken_message_heads SELECT thread_id, json_array_length(data), ''"
            " FROM awaken_messages",
            "DROP TABLE awaken_messages",
            "ALTER TABLE awaken_messages_v2 RENAME TO awaken_messages",
            "CREATE TABLE awaken_journal (run_id TEXT NOT NULL, seq INTEGER NOT NULL,"
            " kind TEXT NOT NULL, created_at INTEGER NOT NULL, data TEXT NOT NULL,"
            " PRIMARY KEY (run_id, seq)) WITHOUT ROWID",
        ],
    ),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]

_TERMINAL = tuple(s.value for s in MailboxJobStatus if s.is_terminal)


async def _use_wal(conn: aiosqlite.Connection, busy_timeout_ms: int) -> None:
    """Switch the file to WAL unless it already is. Changing the journal mode needs a moment
    of exclusive access and SQLite answers "database is locked" without waiting for the busy
    timeout when another connection is writing, so that case is retried within the timeout."""
    async with conn.execute("PRAGMA journal_mode") as cursor:
        row = await cursor.fetchone()
    if row is not None and str(row[0]).lower() == "wal":
        return
    deadline = time.monotonic() + busy_timeout_ms / 1000
    while True:
        try:
            await conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            await asyncio.sleep(0.02)


class _SqliteDb:
    """The shared connection: lazily opened, migrated once, one operation at a time."""

    def __init__(self, path: str | Path, busy_timeout_ms: int, synchronous: str) -> None:
        self.path = str(path)
        self.busy_timeout_ms = busy_timeout_ms
        self.synchronous = synchronous
        self.lock = asyncio.Lock()
        self._conn: aiosqlite.Connection | None = None
        in_memory = self.path == ":memory:"
        self.journal_hub = LocalJournalHub() if in_memory else hub_for(str(Path(path).resolve()))
        self.journal_watch = ExternalChangeWatcher(self.journal_hub, self._data_version)

    async def _data_version(self) -> int:
        """Changes whenever another connection (another process) committed to the file."""
        return int(await self.run(lambda c: c.execute("PRAGMA data_version").fetchone()[0]))

    async def _connection(self) -> aiosqlite.Connection:
        if self._conn is None:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            pending = aiosqlite.connect(self.path, isolation_level=None)
            # A store that is never closed (or reopened by late background work after close)
            # must not keep the process alive: aiosqlite's worker thread is non-daemon and
            # waits for work for ever, which blocks interpreter exit.
            pending._thread.daemon = True
            conn = await pending
            try:
                await conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
                await _use_wal(conn, self.busy_timeout_ms)
                await conn.execute(f"PRAGMA synchronous = {self.synchronous}")
                await _in_thread(conn, _migrate)
            except BaseException:
                await conn.close()
                raise
            self._conn = conn
        return self._conn

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` on the worker thread (one hop); database errors become StorageIoError."""
        async with self.lock:
            return await self.run_locked(fn)

    async def run_locked(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Like :meth:`run` for callers already holding :attr:`lock`."""
        conn = await self._connection()
        try:
            result = await _in_thread(conn, fn)
        except sqlite3.Error as exc:
            raise StorageIoError(str(exc)) from exc
        return result

    async def close(self) -> None:
        self.journal_watch.stop()
        async with self.lock:
            if self._conn is not None:
                await self._conn.close()
                self._conn = None


async def _in_thread(conn: aiosqlite.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``fn(sqlite3_connection)`` on aiosqlite's worker thread as one queued call.

    aiosqlite offers one await per statement; running a whole transaction as a single call
    saves a thread hop per statement (its ``_execute`` is the primitive every public method
    uses)."""
    result: T = await conn._execute(fn, conn._conn)  # type: ignore[no-untyped-call]
    return result


def _migrate(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS awaken_schema_migrations"
            " (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)"
        )
        row = conn.execute("SELECT MAX(version) FROM awaken_schema_migrations").fetchone()
        current = row[0] or 0
        for version, statements in MIGRATIONS:
            if version > current:
                for statement in statements:
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO awaken_schema_migrations VALUES (?, ?)", (version, now_ms())
                )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _write(fn: Callable[[sqlite3.Connection], T]) -> Callable[[sqlite3.Connection], T]:
    """Wrap ``fn`` in ``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on any error)."""

    def transaction(conn: sqlite3.Connection) -> T:
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = fn(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return result

    return transaction


def _rollback_if_open(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def _one(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> Any | None:
    row = conn.execute(sql, params).fetchone()
    return None if row is None else row[0]


class _SqliteBacked:
    def __init__(
        self,
        path: str | Path | _SqliteDb,
        *,
        busy_timeout_ms: int = 5_000,
        synchronous: str = "FULL",
    ) -> None:
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"invalid synchronous mode: {synchronous}")
        self._db = (
            path
            if isinstance(path, _SqliteDb)
            else _SqliteDb(path, busy_timeout_ms, synchronous.upper())
        )

    async def close(self) -> None:
        """Close the connection (it reopens on the next operation)."""
        await self._db.close()


# --------------------------------------------------------------------------- threads and runs


def _thread_row(thread: Thread) -> tuple[str, str, int]:
    return (thread.id, encode_str(thread), thread.activity_ms())


_UPSERT_THREAD = (
    "INSERT INTO awaken_threads (id, data, activity_ms) VALUES (?, ?, ?)"
    " ON CONFLICT (id) DO UPDATE SET data = excluded.data, activity_ms = excluded.activity_ms"
)
_UPSERT_HEAD = (
    "INSERT INTO awaken_message_heads VALUES (?, ?, ?) ON CONFLICT (thread_id) DO UPDATE"
    " SET count = excluded.count, token = excluded.token"
)
_UPSERT_MESSAGE = (
    "INSERT INTO awaken_messages (thread_id, seq, data) VALUES (?, ?, ?)"
    " ON CONFLICT (thread_id, seq) DO UPDATE SET data = excluded.data"
)
_UPSERT_RUN = (
    "INSERT INTO awaken_runs (run_id, thread_id, status, created_at, updated_at, data)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET thread_id = excluded.thread_id,"
    " status = excluded.status, created_at = excluded.created_at,"
    " updated_at = excluded.updated_at, data = excluded.data"
)


def _run_row(run: RunRecord) -> tuple[str, str, str, int, int, str]:
    return (
        run.run_id,
        run.thread_id,
        run.status.value,
        run.created_at,
        run.updated_at,
        encode_str(run),
    )


def _load_head(c: sqlite3.Connection, thread_id: str) -> MessageHead | None:
    row = c.execute(
        "SELECT count, token FROM awaken_message_heads WHERE thread_id = ?", (thread_id,)
    ).fetchone()
    return None if row is None else MessageHead(int(row[0]), row[1])


def _write_messages(
    c: sqlite3.Connection, known: KnownLogs, thread_id: str, messages: list[Message]
) -> LogWrite:
    """Store ``messages`` as the thread's log, writing only what changed (see _message_log)."""
    plan = known.plan(thread_id, _load_head(c, thread_id), messages)
    start = plan.start
    if start < len(messages):
        c.executemany(
            _UPSERT_MESSAGE,
            [(thread_id, start + i + 1, encode_str(m)) for i, m in enumerate(messages[start:])],
        )
    if plan.head_changed:
        c.execute(
            "DELETE FROM awaken_messages WHERE thread_id = ? AND seq > ?",
            (thread_id, len(messages)),
        )
        c.execute(_UPSERT_HEAD, (thread_id, plan.head.count, plan.head.token))
    return plan


def _delete_messages(c: sqlite3.Connection, thread_id: str) -> None:
    c.execute("DELETE FROM awaken_messages WHERE thread_id = ?", (thread_id,))
    c.execute("DELETE FROM awaken_message_heads WHERE thread_id = ?", (thread_id,))


def _append_journal(
    c: sqlite3.Connection,
    run_id: str,
    records: Sequence[JournalRecord],
    expected_last_seq: int | None,
) -> list[JournalEntry]:
    if not records and expected_last_seq is None:
        return []
    last = int(_one(c, "SELECT MAX(seq) FROM awaken_journal WHERE run_id = ?", (run_id,)) or 0)
    if expected_last_seq is not None and expected_last_seq != last:
        raise VersionConflict(expected_last_seq, last)
    now = now_ms()
    entries = [
        JournalEntry(run_id=run_id, seq=last + i + 1, created_at=now, record=record)
        for i, record in enumerate(records)
    ]
    c.executemany(
        "INSERT INTO awaken_journal VALUES (?, ?, ?, ?, ?)",
        [(run_id, e.seq, e.kind.value, now, encode_str(e.record)) for e in entries],
    )
    return entries


class SqliteStore(_SqliteBacked, JournaledThreadRunStore):
    """Threads, messages and runs in one SQLite file (``awaken-stores[sqlite]``).

    Sub-stores sharing the connection: ``profiles``, ``config`` and ``mailbox``. Use
    ``await store.close()`` (or ``async with``) when done.
    """

    def __init__(
        self, path: str | Path, *, busy_timeout_ms: int = 5_000, synchronous: str = "FULL"
    ) -> None:
        super().__init__(path, busy_timeout_ms=busy_timeout_ms, synchronous=synchronous)
        self.profiles = SqliteProfileStore(self._db)
        self.config = SqliteConfigStore(self._db)
        self.mailbox = SqliteMailboxStore(self._db)
        self._known = KnownLogs()

    async def __aenter__(self) -> SqliteStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def schema_version(self) -> int:
        """The highest applied migration version."""
        version = await self._db.run(
            lambda c: _one(c, "SELECT MAX(version) FROM awaken_schema_migrations", ())
        )
        return int(version or 0)

    # ------------------------------------------------------------------ threads
    async def load_thread(self, thread_id: str) -> Thread | None:
        data = await self._db.run(
            lambda c: _one(c, "SELECT data FROM awaken_threads WHERE id = ?", (thread_id,))
        )
        return None if data is None else decode(data, Thread)

    async def save_thread(self, thread: Thread) -> None:
        validate_id("thread id", thread.id)
        row = _thread_row(thread)
        await self._db.run(_write(lambda c: c.execute(_UPSERT_THREAD, row)))

    async def delete_thread(self, thread_id: str) -> None:
        def delete(c: sqlite3.Connection) -> None:
            _delete_messages(c, thread_id)
            c.execute("DELETE FROM awaken_threads WHERE id = ?", (thread_id,))

        self._known.forget(thread_id)
        await self._db.run(_write(delete))

    async def list_threads(self, offset: int, limit: int) -> list[str]:
        rows = await self._db.run(
            lambda c: c.execute(
                "SELECT id FROM awaken_threads ORDER BY activity_ms DESC, id ASC LIMIT ? OFFSET ?",
                (max(limit, 0), max(offset, 0)),
            ).fetchall()
        )
        return [r[0] for r in rows]

    async def load_messages(self, thread_id: str) -> list[Message] | None:
        def select(c: sqlite3.Connection) -> tuple[MessageHead, list[Any]] | None:
            head = _load_head(c, thread_id)
            if head is None:
                return None
            rows = c.execute(
                "SELECT data FROM awaken_messages WHERE thread_id = ? ORDER BY seq", (thread_id,)
            ).fetchall()
            return head, rows

        found = await self._db.run(select)
        if found is None:
            return None
        head, rows = found
        messages: list[Message] = decode(f"[{','.join(r[0] for r in rows)}]", list[Message])
        self._known.remember_loaded(thread_id, messages, head)
        return messages

    async def save_messages(self, thread_id: str, messages: list[Message]) -> None:
        validate_id("thread id", thread_id)
        self._known.forget(thread_id)

        def save(c: sqlite3.Connection) -> LogWrite:
            _delete_messages(c, thread_id)
            return _write_messages(c, self._known, thread_id, messages)

        plan = await self._db.run(_write(save))
        self._known.remember(thread_id, messages, plan.head)

    async def delete_messages(self, thread_id: str) -> None:
        def delete(c: sqlite3.Connection) -> None:
            exists = _one(c, "SELECT 1 FROM awaken_threads WHERE id = ?", (thread_id,))
            require_thread(Thread(id=thread_id) if exists else None, thread_id)
            _delete_messages(c, thread_id)

        self._known.forget(thread_id)
        await self._db.run(_write(delete))

    async def update_thread_metadata(self, thread_id: str, metadata: ThreadMetadata) -> None:
        def update(c: sqlite3.Connection) -> None:
            data = _one(c, "SELECT data FROM awaken_threads WHERE id = ?", (thread_id,))
            thread = require_thread(None if data is None else decode(data, Thread), thread_id)
            thread.metadata = metadata
            c.execute(_UPSERT_THREAD, _thread_row(thread))

        await self._db.run(_write(update))

    # ------------------------------------------------------------------ runs
    async def create_run(self, record: RunRecord) -> None:
        validate_id("run id", record.run_id)
        row = _run_row(record)

        def insert(c: sqlite3.Connection) -> None:
            try:
                c.execute("INSERT INTO awaken_runs VALUES (?, ?, ?, ?, ?, ?)", row)
            except sqlite3.IntegrityError:
                raise AlreadyExists(record.run_id) from None

        await self._db.run(_write(insert))

    async def load_run(self, run_id: str) -> RunRecord | None:
        data = await self._db.run(
            lambda c: _one(c, "SELECT data FROM awaken_runs WHERE run_id = ?", (run_id,))
        )
        return None if data is None else decode(data, RunRecord)

    async def latest_run(self, thread_id: str) -> RunRecord | None:
        data = await self._db.run(
            lambda c: _one(
                c,
                "SELECT data FROM awaken_runs WHERE thread_id = ?"
                " ORDER BY updated_at DESC, run_id DESC LIMIT 1",
                (thread_id,),
            )
        )
        return None if data is None else decode(data, RunRecord)

    async def list_runs(self, query: RunQuery) -> RunPage:
        where: list[str] = []
        params: list[Any] = []
        if query.thread_id is not None:
            where.append("thread_id = ?")
            params.append(query.thread_id)
        if query.status is not None:
            where.append("status = ?")
            params.append(query.status.value)
        clause = f" WHERE {' AND '.join(where)}" if where else ""

        def select(c: sqlite3.Connection) -> tuple[int, list[Any]]:
            total = int(_one(c, f"SELECT COUNT(*) FROM awaken_runs{clause}", tuple(params)) or 0)
            start = min(max(query.offset, 0), total)
            rows = c.execute(
                f"SELECT data FROM awaken_runs{clause} ORDER BY created_at ASC, run_id ASC"
                " LIMIT ? OFFSET ?",
                (*params, query.effective_limit(), start),
            ).fetchall()
            return total, rows

        total, rows = await self._db.run(select)
        items: list[RunRecord] = [decode(r[0], RunRecord) for r in rows]
        start = min(max(query.offset, 0), total)
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
        validate_id("thread id", thread_id)
        validate_id("run id", run.run_id)
        run_row = _run_row(run)

        def write(c: sqlite3.Connection) -> tuple[LogWrite, list[JournalEntry]]:
            data = _one(c, "SELECT data FROM awaken_threads WHERE id = ?", (thread_id,))
            existing = None if data is None else decode(data, Thread)
            c.execute(_UPSERT_THREAD, _thread_row(checkpoint_thread(existing, thread_id, run)))
            plan = _write_messages(c, self._known, thread_id, messages)
            c.execute(_UPSERT_RUN, run_row)
            return plan, _append_journal(c, run.run_id, records, expected_last_seq)

        plan, entries = await self._db.run(_write(write))
        self._known.settle(thread_id, messages, plan.head, run.status is RunStatus.DONE)
        if entries:
            self._db.journal_hub.notify(run.run_id)
        return entries

    # ------------------------------------------------------------------ journal
    async def append(
        self,
        run_id: str,
        records: Sequence[JournalRecord],
        *,
        expected_last_seq: int | None = None,
    ) -> list[JournalEntry]:
        records = list(records)
        entries = await self._db.run(
            _write(lambda c: _append_journal(c, run_id, records, expected_last_seq))
        )
        if entries:
            self._db.journal_hub.notify(run_id)
        return entries

    async def read(
        self,
        run_id: str,
        *,
        after_seq: int = 0,
        kinds: Collection[JournalKind] | None = None,
        limit: int | None = None,
    ) -> list[JournalEntry]:
        params: list[Any] = [run_id, after_seq]
        clause = ""
        if kinds is not None:
            wanted = sorted({JournalKind(k).value for k in kinds})
            clause = f" AND kind IN ({','.join('?' * len(wanted))})"
            params += wanted
        params.append(-1 if limit is None else max(limit, 0))
        rows = await self._db.run(
            lambda c: c.execute(
                "SELECT seq, created_at, data FROM awaken_journal WHERE run_id = ? AND seq > ?"
                f"{clause} ORDER BY seq LIMIT ?",
                tuple(params),
            ).fetchall()
        )
        return [
            JournalEntry(run_id, int(r[0]), int(r[1]), decode(r[2], JournalRecord)) for r in rows
        ]

    async def last_seq(self, run_id: str) -> int:
        value = await self._db.run(
            lambda c: _one(c, "SELECT MAX(seq) FROM awaken_journal WHERE run_id = ?", (run_id,))
        )
        return int(value or 0)

    def subscribe(self, run_id: str) -> JournalSubscription:
        """Appends through any ``SqliteStore`` of this process on the same file wake the
        subscriber at once; commits by other processes within ~0.1 s (``PRAGMA data_version``
        is checked while anyone is subscribed)."""
        return self._db.journal_watch.subscribe(run_id)

    # ------------------------------------------------------------------ retention
    async def prune(self, policy: RetentionPolicy, *, now_secs: int | None = None) -> PruneReport:
        now = _now_secs() if now_secs is None else now_secs

        def prune(c: sqlite3.Connection) -> PruneReport:
            rows = c.execute(
                "SELECT run_id, thread_id, updated_at FROM awaken_runs WHERE status = ?",
                (RunStatus.DONE.value,),
            ).fetchall()
            summaries = [RunSummary(r[0], r[1], RunStatus.DONE, int(r[2])) for r in rows]
            report = PruneReport()
            for run_id in select_prunable(summaries, policy, now):
                report.journal_entries_deleted += c.execute(
                    "DELETE FROM awaken_journal WHERE run_id = ?", (run_id,)
                ).rowcount
                report.runs_deleted += c.execute(
                    "DELETE FROM awaken_runs WHERE run_id = ? AND status = ?",
                    (run_id, RunStatus.DONE.value),
                ).rowcount
            return report

        return await self._db.run(_write(prune))


# --------------------------------------------------------------------------- profiles and config


class SqliteProfileStore(_SqliteBacked, ProfileStore):
    """Profile entries in the ``awaken_profiles`` table."""

    async def get(self, owner: ProfileOwner, key: str) -> ProfileEntry | None:
        data = await self._db.run(
            lambda c: _one(
                c,
                "SELECT data FROM awaken_profiles WHERE owner = ? AND key = ?",
                (str(owner), key),
            )
        )
        return None if data is None else decode(data, ProfileEntry)

    async def set(self, owner: ProfileOwner, key: str, value: Any) -> None:
        data = encode_str(ProfileEntry(key=key, value=value, updated_at=now_ms()))
        await self._db.run(
            _write(
                lambda c: c.execute(
                    "INSERT INTO awaken_profiles VALUES (?, ?, ?)"
                    " ON CONFLICT (owner, key) DO UPDATE SET data = excluded.data",
                    (str(owner), key, data),
                )
            )
        )

    async def delete(self, owner: ProfileOwner, key: str) -> None:
        await self._db.run(
            _write(
                lambda c: c.execute(
                    "DELETE FROM awaken_profiles WHERE owner = ? AND key = ?", (str(owner), key)
                )
            )
        )

    async def list(self, owner: ProfileOwner) -> list[ProfileEntry]:
        rows = await self._db.run(
            lambda c: c.execute(
                "SELECT data FROM awaken_profiles WHERE owner = ? ORDER BY key", (str(owner),)
            ).fetchall()
        )
        return [decode(r[0], ProfileEntry) for r in rows]

    async def clear_owner(self, owner: ProfileOwner) -> None:
        await self._db.run(
            _write(
                lambda c: c.execute("DELETE FROM awaken_profiles WHERE owner = ?", (str(owner),))
            )
        )


class SqliteConfigStore(_SqliteBacked, ConfigStore):
    """Config documents in the ``awaken_configs`` table."""

    async def get(self, namespace: str, id: str) -> Any | None:
        data = await self._db.run(
            lambda c: _one(
                c, "SELECT data FROM awaken_configs WHERE namespace = ? AND id = ?", (namespace, id)
            )
        )
        return None if data is None else decode(data, Any)

    async def list(self, namespace: str, offset: int, limit: int) -> list[tuple[str, Any]]:
        limit = min(max(limit, 0), 2**63 - 1)
        rows = await self._db.run(
            lambda c: c.execute(
                "SELECT id, data FROM awaken_configs WHERE namespace = ? ORDER BY id"
                " LIMIT ? OFFSET ?",
                (namespace, limit, max(offset, 0)),
            ).fetchall()
        )
        return [(r[0], decode(r[1], Any)) for r in rows]

    async def put(self, namespace: str, id: str, value: Any) -> None:
        validate_id("config namespace", namespace)
        validate_id("config id", id)
        data = encode_str(value)
        await self._db.run(
            _write(
                lambda c: c.execute(
                    "INSERT INTO awaken_configs VALUES (?, ?, ?)"
                    " ON CONFLICT (namespace, id) DO UPDATE SET data = excluded.data",
                    (namespace, id, data),
                )
            )
        )

    async def delete(self, namespace: str, id: str) -> None:
        await self._db.run(
            _write(
                lambda c: c.execute(
                    "DELETE FROM awaken_configs WHERE namespace = ? AND id = ?", (namespace, id)
                )
            )
        )


# --------------------------------------------------------------------------- mailbox


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

    @asynccontextmanager
    async def _transaction(
        self, mailbox_id: str, job_id: str | None = None
    ) -> AsyncIterator[MailboxTxn]:
        def load(c: sqlite3.Connection) -> tuple[int, list[Any]]:
            c.execute("BEGIN IMMEDIATE")
            try:
                generation = _one(
                    c,
                    "SELECT generation FROM awaken_mailbox_generations WHERE mailbox_id = ?",
                    (mailbox_id,),
                )
                rows = c.execute(
                    "SELECT data FROM awaken_mailbox_jobs WHERE mailbox_id = ?"
                    f" AND (status NOT IN ({','.join('?' * len(_TERMINAL))}) OR job_id = ?)",
                    (mailbox_id, *_TERMINAL, job_id),
                ).fetchall()
            except BaseException:
                c.execute("ROLLBACK")
                raise
            return int(generation or 0), rows

        async with self._db.lock:
            try:
                generation, rows = await self._db.run_locked(load)
            except BaseException:
                # Cancelled while ``load`` was queued or running on the connection's thread: it
                # still runs to the end and would leave its transaction open (every later
                # ``BEGIN`` on this connection would fail). The rollback is queued behind it
                # before the lock is released, even if this task is cancelled again.
                await self._db.run_locked(_rollback_if_open)
                raise
            try:
                txn = MailboxTxn(mailbox_id, generation, [decode(r[0], MailboxJob) for r in rows])
                yield txn
                changed = [_job_row(j) for j in txn.changed_jobs()]
            except BaseException:
                await self._db.run_locked(lambda c: c.execute("ROLLBACK"))
                raise

            def save(c: sqlite3.Connection) -> None:
                try:
                    if txn.generation != txn.initial_generation:
                        c.execute(
                            "INSERT INTO awaken_mailbox_generations VALUES (?, ?) ON CONFLICT"
                            " (mailbox_id) DO UPDATE SET generation = excluded.generation",
                            (mailbox_id, txn.generation),
                        )
                    c.executemany(_UPSERT_JOB, changed)
                except BaseException:
                    c.execute("ROLLBACK")
                    raise
                c.execute("COMMIT")

            await self._db.run_locked(save)
            for job in txn.changed_jobs():
                self._remember(job.job_id, job.mailbox_id)

    async def _mailbox_of(self, job_id: str) -> str | None:
        known = self._mailboxes.get(job_id)
        if known is not None:
            return known
        value = await self._db.run(
            lambda c: _one(
                c, "SELECT mailbox_id FROM awaken_mailbox_jobs WHERE job_id = ?", (job_id,)
            )
        )
        if value is None:
            return None
        self._remember(job_id, str(value))
        return str(value)

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
        value = await self._db.run(
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

        purged = await self._db.run(_write(purge))
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
        data = await self._db.run(
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
