"""The SQLite connection shared by a store and its sub-stores: WAL, busy timeout, one
operation (one worker-thread hop) at a time."""

from __future__ import annotations

import asyncio
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
