"""Profile entries as ``profiles/<owner>/<key>.json`` (names percent-encoded)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from awaken_contract.contract.storage import (
    ProfileEntry,
    ProfileOwner,
    ProfileStore,
)
from awaken_contract.ids import now_ms

from awaken_stores.file.db import _FileBacked
from awaken_stores.file.files import _atomic_write, _encode_name, _json_files, _pretty_json, _read


class FileProfileStore(_FileBacked, ProfileStore):
    """Profile entries as ``profiles/<owner>/<key>.json`` (names percent-encoded)."""

    def _owner_dir(self, owner: ProfileOwner) -> Path:
        # encoded names never hold "@", so the user forms cannot collide with "agent_<name>"
        agent = None if owner.agent_name is None else _encode_name(owner.agent_name)
        if owner.user_id is not None:
            user = _encode_name(owner.user_id)
            name = f"user@{user}" if agent is None else f"agent@{agent}@user@{user}"
        else:
            name = "system" if agent is None else f"agent_{agent}"
        return self.base / "profiles" / name

    def _path(self, owner: ProfileOwner, key: str) -> Path:
        return self._owner_dir(owner) / f"{_encode_name(key)}.json"

    async def get(self, owner: ProfileOwner, key: str) -> ProfileEntry | None:
        path = self._path(owner, key)
        return await self._db.run(lambda: _read(path, ProfileEntry))

    async def set(self, owner: ProfileOwner, key: str, value: Any) -> None:
        path = self._path(owner, key)
        data = _pretty_json(ProfileEntry(key=key, value=value, updated_at=now_ms()))

        await self._db.run_locked(lambda: _atomic_write(path, data))

    async def delete(self, owner: ProfileOwner, key: str) -> None:
        path = self._path(owner, key)

        await self._db.run_locked(lambda: path.unlink(missing_ok=True))

    async def list(self, owner: ProfileOwner) -> list[ProfileEntry]:
        directory = self._owner_dir(owner)

        def scan() -> list[ProfileEntry]:
            entries = [_read(p, ProfileEntry) for p in _json_files(directory)]
            return sorted((e for e in entries if e is not None), key=lambda e: e.key)

        return await self._db.run(scan)

    async def clear_owner(self, owner: ProfileOwner) -> None:
        directory = self._owner_dir(owner)

        await self._db.run_locked(lambda: shutil.rmtree(directory, ignore_errors=True))
