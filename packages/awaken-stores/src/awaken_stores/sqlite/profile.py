"""Profile entries in the ``awaken_profiles`` table."""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.storage import (
    ProfileEntry,
    ProfileOwner,
    ProfileStore,
)
from awaken_contract.ids import now_ms

from awaken_stores._codec import decode, encode_str
from awaken_stores.sqlite.connection import _one, _SqliteBacked


class SqliteProfileStore(_SqliteBacked, ProfileStore):
    """Profile entries in the ``awaken_profiles`` table."""

    async def get(self, owner: ProfileOwner, key: str) -> ProfileEntry | None:
        data = await self._db.run(
            lambda c: _one(
                c,
                "SELECT data FROM awaken_profiles WHERE owner = ? AND key = ?",
                (str(owner), key),
            )
        )
        return None if data is None else decode(data, ProfileEntry)

    async def set(self, owner: ProfileOwner, key: str, value: Any) -> None:
        data = encode_str(ProfileEntry(key=key, value=value, updated_at=now_ms()))
        await self._db.write(
            lambda c: c.execute(
                "INSERT INTO awaken_profiles VALUES (?, ?, ?)"
                " ON CONFLICT (owner, key) DO UPDATE SET data = excluded.data",
                (str(owner), key, data),
            )
        )

    async def delete(self, owner: ProfileOwner, key: str) -> None:
        await self._db.write(
            lambda c: c.execute(
                "DELETE FROM awaken_profiles WHERE owner = ? AND key = ?", (str(owner), key)
            )
        )

    async def list(self, owner: ProfileOwner) -> list[ProfileEntry]:
        rows = await self._db.run(
            lambda c: c.execute(
                "SELECT data FROM awaken_profiles WHERE owner = ? ORDER BY key", (str(owner),)
            ).fetchall()
        )
        return [decode(r[0], ProfileEntry) for r in rows]

    async def clear_owner(self, owner: ProfileOwner) -> None:
        await self._db.write(
            lambda c: c.execute("DELETE FROM awaken_profiles WHERE owner = ?", (str(owner),))
        )
