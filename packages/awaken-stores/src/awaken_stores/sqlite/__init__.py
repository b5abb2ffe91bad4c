"""SQLite stores on aiosqlite: WAL journal, busy timeout, versioned migrations.

The sub-stores of a ``SqliteStore`` share one writer connection (group commit: writes waiting
together run as one ``BEGIN IMMEDIATE`` transaction on its worker thread), one reader
connection for histories and lists (its own thread) and, for point reads, a read-only
connection used on the event loop's thread itself (``loop_reader``). Writers take SQLite's
write lock up front, so several processes can share one database file; the busy timeout makes
them wait instead of failing.

Modules by record family: ``connection``, ``loop_reader``, ``schema`` (migrations),
``threads_runs`` (``SqliteStore``), ``journal``, ``profile``, ``config``, ``mailbox``.
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
