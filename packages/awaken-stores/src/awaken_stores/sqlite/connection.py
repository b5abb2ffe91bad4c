"""The SQLite connection shared by a store and its sub-stores: WAL, busy timeout, one
operation (one worker-thread hop) at a time, and group commit.

Group commit: write transactions that arrive while the connection is busy are run together on
the worker thread — one hop, one ``BEGIN IMMEDIATE`` … ``COMMIT`` and so one fsync for all of
them, each inside its own savepoint (a failing one rolls back alone and raises to its caller).
Every caller returns only after the shared ``COMMIT``: durable exactly as before.
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite
from awaken_contract.errors import StorageIoError

from awaken_stores._journal_local import LocalJournalHub, hub_for
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


class _SqliteDb:
    """The shared connection: lazily opened, migrated once, one operation at a time."""

    def __init__(self, path: str | Path, busy_timeout_ms: int, synchronous: str) -> None:
        self.path = str(path)
        self.busy_timeout_ms = busy_timeout_ms
        self.synchronous = synchronous
        self.lock = asyncio.Lock()
        self._conn: aiosqlite.Connection | None = None
        self._writes: list[tuple[Callable[[sqlite3.Connection], Any], asyncio.Future[Any]]] = []
        self._committer: asyncio.Task[None] | None = None
        in_memory = self.path == ":memory:"
        self.journal_hub = LocalJournalHub() if in_memory else hub_for(str(Path(path).resolve()))

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

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` in a write transaction (group commit, see the module docstring); database
        errors become StorageIoError. Returns once the transaction is committed."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._writes.append((fn, future))
        if self._committer is None:
            self._committer = asyncio.create_task(self._commit_writes())
        return await future

    async def _commit_writes(self) -> None:
        """Commit the queued writes, a group at a time, until none is left."""
        try:
            while self._writes:
                async with self.lock:
                    group, self._writes = self._writes, []
                    try:
                        outcomes = await self.run_locked(
                            functools.partial(_run_group, [fn for fn, _ in group])
                        )
                    except Exception as exc:
                        for _, future in group:
                            if not future.done():
                                future.set_exception(_storage_error(exc))
                        continue
                    except BaseException:
                        for _, future in group:
                            future.cancel()
                        raise
                for (_, future), (ok, value) in zip(group, outcomes, strict=True):
                    if future.done():
                        continue
                    if ok:
                        future.set_result(value)
                    else:
                        future.set_exception(_storage_error(value))
        finally:
            self._committer = None
            if self._writes:  # only when cancelled (shutdown): nobody will commit them
                for _, future in self._writes:
                    future.cancel()
                self._writes = []

    async def close(self) -> None:
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


def _run_group(
    fns: list[Callable[[sqlite3.Connection], Any]], conn: sqlite3.Connection
) -> list[tuple[bool, Any]]:
    """Run every ``fn`` in its own savepoint of one transaction; ``(ok, result or error)``."""
    conn.execute("BEGIN IMMEDIATE")
    outcomes: list[tuple[bool, Any]] = []
    try:
        for fn in fns:
            conn.execute("SAVEPOINT awaken_write")
            try:
                outcomes.append((True, fn(conn)))
            except Exception as exc:
                conn.execute("ROLLBACK TO awaken_write")
                outcomes.append((False, exc))
            conn.execute("RELEASE awaken_write")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return outcomes


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
