"""The config store interface and its change events."""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from typing import Any

import msgspec

__all__ = [
    "ConfigChangeEvent",
    "ConfigChangeKind",
    "ConfigChangeNotifier",
    "ConfigStore",
]


class ConfigChangeKind(enum.StrEnum):
    """What happened to a config document."""

    PUT = "put"
    DELETE = "delete"


class ConfigChangeEvent(msgspec.Struct, gc=False):
    """Notification that a config document changed."""

    namespace: str
    id: str
    kind: ConfigChangeKind


class ConfigStore(ABC):
    """Namespaced JSON documents (agents, models, providers, …)."""

    @abstractmethod
    async def get(self, namespace: str, id: str) -> Any | None:
        """The document, or ``None``."""

    @abstractmethod
    async def list(self, namespace: str, offset: int, limit: int) -> list[tuple[str, Any]]:
        """``(id, document)`` pairs ordered by id, then offset/limit."""

    @abstractmethod
    async def put(self, namespace: str, id: str, value: Any) -> None:
        """Create or overwrite."""

    @abstractmethod
    async def delete(self, namespace: str, id: str) -> None:
        """Remove (missing is fine)."""

    async def exists(self, namespace: str, id: str) -> bool:
        """True when the document exists."""
        return await self.get(namespace, id) is not None


class ConfigChangeNotifier(ABC):
    """A config store that pushes change events (callers should keep a polling fallback)."""

    @abstractmethod
    def subscribe(self) -> AsyncIterator[ConfigChangeEvent]:
        """An async iterator of change events, starting now."""
