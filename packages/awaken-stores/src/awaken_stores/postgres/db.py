"""The PostgreSQL pool shared by a store and its sub-stores: lazy creation, migration,
driver errors as ``StorageIoError``."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from awaken_contract.errors import StorageError, StorageIoError
from awaken_contract.ids import now_ms

from awaken_stores.postgres.schema import _migrations

_PREFIX = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,40}$")


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

    async def fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        """``Connection.fetch`` on a pooled connection; driver errors as ``StorageIoError``."""
        pool = await self.pool()
        async with _io():
            return await pool.fetch(sql, *args)

    async def fetchrow(self, sql: str, *args: Any) -> asyncpg.Record | None:
        """``Connection.fetchrow`` on a pooled connection (see :meth:`fetch`)."""
        pool = await self.pool()
        async with _io():
            return await pool.fetchrow(sql, *args)

    async def fetchval(self, sql: str, *args: Any) -> Any:
        """``Connection.fetchval`` on a pooled connection (see :meth:`fetch`)."""
        pool = await self.pool()
        async with _io():
            return await pool.fetchval(sql, *args)

    async def execute(self, sql: str, *args: Any) -> str:
        """``Connection.execute`` on a pooled connection (see :meth:`fetch`)."""
        pool = await self.pool()
        async with _io():
            return await pool.execute(sql, *args)

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
