"""SQLite stores on aiosqlite: WAL journal, busy timeout, versioned migrations.

One connection per ``SqliteStore``; every operation is one transaction executed as a single
function on the connection's worker thread (one thread hop per operation), serialized in-process
by an asyncio lock. Writers take SQLite's write lock up front (``BEGIN IMMEDIATE``) so several
processes can share one database file; the busy timeout makes them wait instead of failing.

Modules by record family: ``connection``, ``schema`` (migrations), ``threads_runs``
(``SqliteStore``), ``journal``, ``profile``, ``config``, ``mailbox``.
"""

from __future__ import annotations

from awaken_stores.sqlite.config import SqliteConfigStore
from awaken_stores.sqlite.connection import _in_thread as _in_thread
from awaken_stores.sqlite.mailbox import SqliteMailboxStore
from awaken_stores.sqlite.profile import SqliteProfileStore
from awaken_stores.sqlite.schema import MIGRATIONS as MIGRATIONS
from awaken_stores.sqlite.schema import SCHEMA_VERSION
from awaken_stores.sqlite.threads_runs import SqliteStore

__all__ = [
    "SCHEMA_VERSION",
    "SqliteConfigStore",
    "SqliteMailboxStore",
    "SqliteProfileStore",
    "SqliteStore",
]
