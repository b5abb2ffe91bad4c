"""Store implementations for Awaken: in-memory, file, SQLite and PostgreSQL.

Every backend implements ``ThreadRunStore`` directly and exposes its other interfaces as
sub-stores: ``store.profiles`` (ProfileStore), ``store.config`` (ConfigStore) and, for the
durable backends, ``store.mailbox`` (MailboxStore). ``SqliteStore`` needs the ``[sqlite]`` extra
(aiosqlite) and ``PostgresStore`` the ``[postgres]`` extra (asyncpg); they are imported lazily.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from awaken_stores.memory import (
    InMemoryConfigStore,
    InMemoryMailboxStore,
    InMemoryProfileStore,
    InMemoryStore,
)

if TYPE_CHECKING:
    from awaken_stores.file import FileConfigStore, FileMailboxStore, FileProfileStore, FileStore
    from awaken_stores.postgres import (
        PostgresConfigStore,
        PostgresMailboxStore,
        PostgresProfileStore,
        PostgresStore,
    )
    from awaken_stores.sqlite import (
        SqliteConfigStore,
        SqliteMailboxStore,
        SqliteProfileStore,
        SqliteStore,
    )

__all__ = [
    "FileConfigStore",
    "FileMailboxStore",
    "FileProfileStore",
    "FileStore",
    "InMemoryConfigStore",
    "InMemoryMailboxStore",
    "InMemoryProfileStore",
    "InMemoryStore",
    "PostgresConfigStore",
    "PostgresMailboxStore",
    "PostgresProfileStore",
    "PostgresStore",
    "SqliteConfigStore",
    "SqliteMailboxStore",
    "SqliteProfileStore",
    "SqliteStore",
]

_LAZY = {
    **dict.fromkeys(
        ("FileStore", "FileMailboxStore", "FileProfileStore", "FileConfigStore"),
        "awaken_stores.file",
    ),
    **dict.fromkeys(
        ("SqliteStore", "SqliteMailboxStore", "SqliteProfileStore", "SqliteConfigStore"),
        "awaken_stores.sqlite",
    ),
    **dict.fromkeys(
        ("PostgresStore", "PostgresMailboxStore", "PostgresProfileStore", "PostgresConfigStore"),
        "awaken_stores.postgres",
    ),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'awaken_stores' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
