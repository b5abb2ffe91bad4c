"""Config documents as ``config/<namespace>/<id>.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from awaken_contract.contract.storage import (
    ConfigStore,
)

from awaken_stores._ids import validate_id
from awaken_stores._paging import page
from awaken_stores.file.db import _FileBacked
from awaken_stores.file.files import _atomic_write, _json_files, _pretty_json, _read_any


class FileConfigStore(_FileBacked, ConfigStore):
    """Config documents as ``config/<namespace>/<id>.json``."""

    def _dir(self, namespace: str) -> Path:
        return self.base / "config" / validate_id("config namespace", namespace)

    def _path(self, namespace: str, id: str) -> Path:
        return self._dir(namespace) / f"{validate_id('config id', id)}.json"

    async def get(self, namespace: str, id: str) -> Any | None:
        path = self._path(namespace, id)
        return await self._db.run(lambda: _read_any(path))

    async def list(self, namespace: str, offset: int, limit: int) -> list[tuple[str, Any]]:
        directory = self._dir(namespace)

        def scan() -> list[tuple[str, Any]]:
            paths = sorted(_json_files(directory), key=lambda p: p.stem)
            return [(p.stem, _read_any(p)) for p in page(paths, offset, limit)]

        return await self._db.run(scan)

    async def put(self, namespace: str, id: str, value: Any) -> None:
        path, data = self._path(namespace, id), _pretty_json(value)

        await self._db.run_locked(lambda: _atomic_write(path, data))

    async def delete(self, namespace: str, id: str) -> None:
        path = self._path(namespace, id)

        await self._db.run_locked(lambda: path.unlink(missing_ok=True))
