"""Config documents in the ``awaken_configs`` table."""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.storage import (
    ConfigStore,
)

from awaken_stores._codec import decode, encode_str
from awaken_stores._ids import validate_id
from awaken_stores._paging import sql_limit
from awaken_stores.sqlite.connection import _one, _SqliteBacked


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
        limit = sql_limit(limit)
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
        await self._db.write(
            lambda c: c.execute(
                "INSERT INTO awaken_configs VALUES (?, ?, ?)"
                " ON CONFLICT (namespace, id) DO UPDATE SET data = excluded.data",
                (namespace, id, data),
            )
        )

    async def delete(self, namespace: str, id: str) -> None:
        await self._db.write(
            lambda c: c.execute(
                "DELETE FROM awaken_configs WHERE namespace = ? AND id = ?", (namespace, id)
            )
        )
