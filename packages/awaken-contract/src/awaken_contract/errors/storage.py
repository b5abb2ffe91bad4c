"""``StorageError``: a store operation failed (retryable by default)."""

from __future__ import annotations

from typing import Any

from awaken_contract.errors.base import AwakenError


class StorageError(AwakenError):
    """A store operation failed."""

    retryable = True
    prefix = "storage error"

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(f"{self.prefix}: {message}")


class StorageNotFound(StorageError):
    prefix = "not found"


class AlreadyExists(StorageError):
    prefix = "already exists"


class VersionConflict(StorageError):
    def __init__(self, expected: Any, actual: Any) -> None:
        self.expected, self.actual = expected, actual
        super().__init__(f"expected {expected}, actual {actual}")

    prefix = "version conflict"


class StorageIoError(StorageError):
    prefix = "io error"


class SerializationError(StorageError):
    prefix = "serialization error"


StorageError.NotFound = StorageNotFound  # type: ignore[attr-defined]
StorageError.AlreadyExists = AlreadyExists  # type: ignore[attr-defined]
StorageError.VersionConflict = VersionConflict  # type: ignore[attr-defined]
StorageError.Io = StorageIoError  # type: ignore[attr-defined]
StorageError.Serialization = SerializationError  # type: ignore[attr-defined]
