"""Low-level file operations of the file stores: atomic writes, fsyncs, JSON reads, safe names."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import msgspec
from awaken_contract.errors import (
    SerializationError,
    StorageIoError,
)
from awaken_contract.ids import new_id

from awaken_stores._codec import decode, encode

T = TypeVar("T")

JOURNAL = ".checkpoint_pending"


def _encode_name(name: str) -> str:
    """A reversible, path-safe file name for free-form names (profile owners and keys)."""
    encoded = quote(name, safe="-_")
    return encoded if encoded else "%"


def _pretty_json(value: Any) -> bytes:
    return msgspec.json.format(encode(value), indent=2)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _stage(target: Path, data: bytes) -> Path:
    """Write ``data`` to a fsynced temp file next to ``target`` and return its path."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".{target.stem}.{new_id().replace('-', '')}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _atomic_write(target: Path, data: bytes) -> None:
    tmp = _stage(target, data)
    try:
        os.replace(tmp, target)
        _fsync_dir(target.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _read(path: Path, type_: type[T]) -> T | None:
    """Decode a JSON file; ``None`` when missing."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StorageIoError(f"{path}: {exc}") from exc
    try:
        value: T = decode(data, type_)
    except SerializationError as exc:
        raise SerializationError(f"{path}: {exc.message}") from exc
    return value


def _last_byte(path: Path, size: int) -> bytes:
    with open(path, "rb") as fh:
        fh.seek(size - 1)
        return fh.read(1)


def _read_any(path: Path) -> Any:
    """A JSON document of any shape; ``None`` when missing."""
    return _read(path, object)


def _json_files(directory: Path) -> list[Path]:
    """``*.json`` files of a directory (temp and backup files are dot-files and skipped)."""
    try:
        return sorted(
            p for p in directory.iterdir() if p.suffix == ".json" and not p.name.startswith(".")
        )
    except FileNotFoundError:
        return []
