"""Profile entries in ``<prefix>_profiles``."""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.storage import (
    ProfileEntry,
    ProfileOwner,
    ProfileStore,
)
from awaken_contract.ids import now_ms

from awaken_stores._codec import decode, encode_str
from awaken_stores.postgres.db import _PgBacked


class PostgresProfileStore(_PgBacked, ProfileStore):
    """Profile entries in ``<prefix>_profiles``."""

    async def get(self, owner: ProfileOwner, key: str) -> ProfileEntry | None:
        row = await self._db.fetchrow(
            f"SELECT data, updated_at FROM {self._p}_profiles WHERE owner = $1 AND key = $2",
            str(owner),
            key,
        )
        if row is None:
            return None
        return ProfileEntry(key=key, value=decode(row["data"], Any), updated_at=row["updated_at"])

    async def set(self, owner: ProfileOwner, key: str, value: Any) -> None:
        await self._db.execute(
            f"INSERT INTO {self._p}_profiles VALUES ($1, $2, $3::jsonb, $4)"
            " ON CONFLICT (owner, key) DO UPDATE SET data = excluded.data,"
            " updated_at = excluded.updated_at",
            str(owner),
            key,
            encode_str(value),
            now_ms(),
        )

    async def delete(self, owner: ProfileOwner, key: str) -> None:
        await self._db.execute(
            f"DELETE FROM {self._p}_profiles WHERE owner = $1 AND key = $2", str(owner), key
        )

    async def list(self, owner: ProfileOwner) -> list[ProfileEntry]:
        rows = await self._db.fetch(
            f"SELECT key, data, updated_at FROM {self._p}_profiles WHERE owner = $1"
            ' ORDER BY key COLLATE "C"',
            str(owner),
        )
        return [
            ProfileEntry(key=r["key"], value=decode(r["data"], Any), updated_at=r["updated_at"])
            for r in rows
        ]

    async def clear_owner(self, owner: ProfileOwner) -> None:
        await self._db.execute(f"DELETE FROM {self._p}_profiles WHERE owner = $1", str(owner))
