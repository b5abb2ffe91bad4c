"""The SQLite connections shared by a store and its sub-stores: WAL, busy timeout, a writer
and a reader connection (each one worker thread), and group commit.

Group commit: operations that arrive while the connection is busy are run together on the
worker thread — one hop, one transaction (``BEGIN IMMEDIATE`` when any of them writes) and so
one fsync for all of them; a write that fails rolls back alone and raises to its caller (see
``_run_group``). Every caller gets its result only after the shared ``COMMIT``: durable exactly
as before, and a read never returns data that was not committed.

Point reads skip the worker threads: they run on the event loop's thread (``loop_reader``).
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import aiosqlite
from awaken_contract.errors import StorageIoError

from awaken_stores._journal_local import LocalJournalHub, hub_for
from awaken_stores._journal_watch import ExternalChangeWatcher
from awaken_stores.sqlite.loop_reader import LoopReader, WouldWait
from awaken_stores.sqlite.schema import _migrate

T = TypeVar("T")


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


class _Lane:
    """One aiosqlite connection (its own worker thread) and the operations queued for it, run
    a group at a time (see the module docstring)."""

    def __init__(self, open_connection: Callable[[], Awaitable[aiosqlite.Connection]]) -> None:
        self._open = open_connection
        self.lock = asyncio.Lock()
        self.conn: aiosqlite.Connection | None = None
        self._pending: list[_Op] = []
        self._runner: asyncio.Task[None] | None = None

    async def connection(self) -> aiosqlite.Connection:
        if self.conn is None:
            self.conn = await self._open()
        return self.conn

    async def queue(self, fn: Callable[[sqlite3.Connection], T], writes: bool) -> T:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._pending.append(_Op(fn, writes, future))
        if self._runner is None:
            self._runner = asyncio.create_task(self._run_pending())
        return await future

    async def run_now(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` on the worker thread right away (the caller holds :attr:`lock`)."""
        conn = await self.connection()
        try:
            result = await _in_thread(conn, fn)
        except sqlite3.Error as exc:
            raise StorageIoError(str(exc)) from exc
        return result

    async def _run_pending(self) -> None:
        """Run the queued operations, a group (one hop, one transaction) at a time."""
        try:
            while self._pending:
                async with self.lock:
                    group, self._pending = self._pending, []
                    try:
                        outcomes = await self.run_now(functools.partial(_run_group, group))
                    except Exception as exc:
                        for op in group:
                            if not op.future.done():
                                op.future.set_exception(_storage_error(exc))
                        continue
                    except BaseException:
                        for op in group:
                            op.future.cancel()
                        raise
                for op, (ok, value) in zip(group, outcomes, strict=True):
                    if op.future.done():
                        continue
                    if ok:
                        op.future.set_result(value)
                    else:
                        op.future.set_exception(_storage_error(value))
        finally:
            self._runner = None
            if self._pending:  # only when cancelled (shutdown): nobody will run them
                for op in self._pending:
                    op.future.cancel()
                self._pending = []

    async def close(self) -> None:
        async with self.lock:
            if self.conn is not None:
                await self.conn.close()
                self.conn = None


class _SqliteDb:
    """The shared database: a writer connection (lazily opened, migrated once) and, for a
    file, a read-only connection beside it, so reads do not wait for a commit's fsync (WAL
    readers see every committed transaction)."""

    def __init__(self, path: str | Path, busy_timeout_ms: int, synchronous: str) -> None:
        self.path = str(path)
        self.busy_timeout_ms = busy_timeout_ms
        self.synchronous = synchronous
        in_memory = self.path == ":memory:"
        self._writer = _Lane(self._open_writer)
        self._reader = self._writer if in_memory else _Lane(self._open_reader)
        self._loop_reader = None if in_memory else LoopReader(self.path)
        self.journal_hub = LocalJournalHub() if in_memory else hub_for(str(Path(path).resolve()))
        self.journal_watch = ExternalChangeWatcher(self.journal_hub, self._data_version)

    async def _data_version(self) -> int:
        """Changes whenever another connection (another process) committed to the file (read
        on the writer connection: the reader would also see this process's own commits)."""
        return int(
            await self._writer.queue(
                lambda c: c.execute("PRAGMA data_version").fetchone()[0], False
            )
        )

    async def _connect(self) -> aiosqlite.Connection:
        pending = aiosqlite.connect(self.path, isolation_level=None)
        # A store that is never closed (or reopened by late background work after close)
        # must not keep the process alive: aiosqlite's worker thread is non-daemon and
        # waits for work for ever, which blocks interpreter exit.
        pending._thread.daemon = True
        conn = await pending
        try:
            await conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
        except BaseException:
            await conn.close()
            raise
        return conn

    async def _open_writer(self) -> aiosqlite.Connection:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        conn = await self._connect()
        try:
            await _use_wal(conn, self.busy_timeout_ms)
            await conn.execute(f"PRAGMA synchronous = {self.synchronous}")
            await _in_thread(conn, _migrate)
        except BaseException:
            await conn.close()
            raise
        return conn

    async def _open_reader(self) -> aiosqlite.Connection:
        await self._writer.connection()  # the file exists, in WAL mode, migrated
        conn = await self._connect()
        try:
            await conn.execute("PRAGMA query_only = 1")
        except BaseException:
            await conn.close()
            raise
        return conn

    async def _connection(self) -> aiosqlite.Connection:
        """The writer connection (opened and migrated on first use)."""
        return await self._writer.connection()

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run the read ``fn`` (grouped with other reads waiting, on the read connection);
        database errors become StorageIoError."""
        return await self._reader.queue(fn, False)

    async def peek(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run the point read ``fn`` (a bounded read, see ``loop_reader``) on this thread, or
        on the reader's worker thread when it would have to wait; database errors become
        StorageIoError."""
        reader = self._loop_reader
        if reader is None or self._writer.conn is None or not reader.usable():
            return await self.run(fn)  # (the writer opens, migrates the file first)
        try:
            return reader.read(fn)
        except WouldWait:
            return await self.run(fn)
        except sqlite3.Error as exc:
            raise StorageIoError(str(exc)) from exc

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` in a write transaction (group commit, see the module docstring); database
        errors become StorageIoError. Returns once the transaction is committed."""
        return await self._writer.queue(fn, True)

    async def close(self) -> None:
        self.journal_watch.stop()
        if self._loop_reader is not None:
            self._loop_reader.close()
        await self._writer.close()
        if self._reader is not self._writer:
            await self._reader.close()


async def _in_thread(conn: aiosqlite.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``fn(sqlite3_connection)`` on aiosqlite's worker thread as one queued call.

    aiosqlite offers one await per statement; running a whole transaction as a single call
    saves a thread hop per statement (its ``_execute`` is the primitive every public method
    uses)."""
    result: T = await conn._execute(fn, conn._conn)  # type: ignore[no-untyped-call]
    return result


class _Op(NamedTuple):
    """A queued operation: ``fn`` (a write when ``writes``) and who waits for its result."""

    fn: Callable[[sqlite3.Connection], Any]
    writes: bool
    future: asyncio.Future[Any]


def _run_group(group: list[_Op], conn: sqlite3.Connection) -> list[tuple[bool, Any]]:
    """Run the group in one transaction (``BEGIN IMMEDIATE`` when it writes); ``(ok, result
    or error)`` per operation, in order.

    The writes run back to back first. When one of them raises, the transaction is rolled back
    and the group runs again with every write in its own savepoint, so only the failing one
    fails (a savepoint costs two statements per write, and every statement releases and
    retakes the GIL: paid only when something failed). Operations are functions of the
    database alone, so running them again gives them the same input."""
    writes = any(op.writes for op in group)
    begin = "BEGIN IMMEDIATE" if writes else "BEGIN"
    conn.execute(begin)
    try:
        if writes:
            try:
                outcomes: list[tuple[bool, Any]] = [(True, op.fn(conn)) for op in group]
            except Exception as exc:
                _rollback(conn)
                if len(group) == 1:
                    return [(False, exc)]
                conn.execute(begin)
                outcomes = [_isolated(op, conn) for op in group]
        else:
            outcomes = [_attempt(op, conn) for op in group]
    except BaseException:
        _rollback(conn)
        raise
    conn.execute("COMMIT")
    return outcomes


def _attempt(op: _Op, conn: sqlite3.Connection) -> tuple[bool, Any]:
    try:
        return True, op.fn(conn)
    except Exception as exc:
        return False, exc


def _isolated(op: _Op, conn: sqlite3.Connection) -> tuple[bool, Any]:
    """``op`` in a savepoint of its own when it writes (rolled back alone when it fails)."""
    if not op.writes:
        return _attempt(op, conn)
    conn.execute("SAVEPOINT awaken_write")
    outcome = _attempt(op, conn)
    if not outcome[0]:
        conn.execute("ROLLBACK TO awaken_write")
    conn.execute("RELEASE awaken_write")
    return outcome


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:  # (SQLite may have rolled back by itself, e.g. on a full disk)
        conn.execute("ROLLBACK")


_ROWS_PER_INSERT = 64
"""Rows per multi-row INSERT (5 values a row stays under the oldest limit of 999 parameters)."""


@functools.lru_cache(maxsize=256)
def _insert_sql(into: str, width: int, rows: int, tail: str) -> str:
    row = "(" + ", ".join("?" * width) + ")"
    return f"{into} VALUES {', '.join([row] * rows)}{tail}"


def insert_rows(
    c: sqlite3.Connection, into: str, rows: Sequence[tuple[Any, ...]], tail: str = ""
) -> None:
    """``{into} VALUES (…), (…){tail}`` for ``rows``: one statement (one SQLite step) per
    64 rows, where ``executemany`` steps once per row and releases the GIL each time."""
    if not rows:
        return
    width = len(rows[0])
    for start in range(0, len(rows), _ROWS_PER_INSERT):
        chunk = rows[start : start + _ROWS_PER_INSERT]
        c.execute(_insert_sql(into, width, len(chunk), tail), [v for row in chunk for v in row])


def _storage_error(exc: BaseException) -> BaseException:
    """A database error as the store's ``StorageIoError``; anything else unchanged."""
    if isinstance(exc, sqlite3.Error):
        error = StorageIoError(str(exc))
        error.__cause__ = exc
        return error
    return exc


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
