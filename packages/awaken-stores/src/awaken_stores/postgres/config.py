"""Config documents in ``<prefix>_configs`` with change notifications over LISTEN/NOTIFY."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import asyncpg
from awaken_contract.contract.storage import (
    ConfigChangeEvent,
    ConfigChangeKind,
    ConfigChangeNotifier,
    ConfigStore,
)
from awaken_contract.errors import StorageError

from awaken_stores._codec import decode, encode_str
from awaken_stores._paging import sql_limit
from awaken_stores.postgres.db import _io, _PgBacked, _PgDb


class PostgresConfigStore(_PgBacked, ConfigStore, ConfigChangeNotifier):
    """Config documents in ``<prefix>_configs``; changes are announced on the
    ``<prefix>_config_changes`` channel."""

    @property
    def channel(self) -> str:
        """The LISTEN/NOTIFY channel of config changes."""
        return f"{self._p}_config_changes"

    async def get(self, namespace: str, id: str) -> Any | None:
        data = await self._db.fetchval(
            f"SELECT data FROM {self._p}_configs WHERE namespace = $1 AND id = $2",
            namespace,
            id,
        )
        return None if data is None else decode(data, Any)

    async def list(self, namespace: str, offset: int, limit: int) -> list[tuple[str, Any]]:
        rows = await self._db.fetch(
            f"SELECT id, data FROM {self._p}_configs WHERE namespace = $1"
            ' ORDER BY id COLLATE "C" LIMIT $2 OFFSET $3',
            namespace,
            sql_limit(limit),
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
