"""Point reads on the event loop's own thread: a read-only connection that never waits.

A point read (one row by key: a thread, a run, a journal's last seq, a job's mailbox) costs a
few microseconds of SQLite; a hop to a worker thread and back costs tens (a queue put, a thread
wake-up, a self-pipe write and an event-loop wake-up). So these reads run right on the calling
thread, on a connection of their own: ``query_only``, in WAL mode (readers never wait for the
writer), with **no** busy timeout — when SQLite cannot start a read at once (``SQLITE_BUSY``,
e.g. while another process recovers the WAL) the read is handed to the reader's worker thread,
which waits as usual; the event loop never blocks on a lock. The connection belongs to the
thread that opened it: calls from any other thread take the worker-thread path too.

Only bounded reads belong here; message histories, journal pages and lists stay on the reader
thread.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_WAIT_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


class WouldWait(Exception):
    """The read could not start without waiting (run it on a worker thread instead)."""


class LoopReader:
    """A read-only connection to ``path`` used only on the thread that opened it."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._conn: sqlite3.Connection | None = None
        self._owner = 0

    def usable(self) -> bool:
        """True when called on the thread that owns the connection (or none is open yet)."""
        return self._conn is None or self._owner == threading.get_ident()

    def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn(connection)`` right here; :class:`WouldWait` when SQLite would have to wait,
        other database errors as raised."""
        conn = self._conn
        if conn is None:
            conn = self._open()
        try:
            return fn(conn)
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", None) in _WAIT_CODES:
                raise WouldWait(str(exc)) from exc
            raise

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self._path, timeout=0, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA query_only = 1")
        except BaseException:
            conn.close()
            raise
        self._conn, self._owner = conn, threading.get_ident()
        return conn

    def close(self) -> None:
        """Close the connection (a later read opens a new one, on its own thread)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
