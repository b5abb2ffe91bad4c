"""The registries a runtime resolves agents from: agents, tools, models, providers, plugins,
remote backends — bundled in a :class:`RegistrySet`.

Registering an id twice raises the matching ``BuildError`` (``AgentRegistryConflict`` …); the
builder collects those errors and reports the first at ``build()``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from awaken_contract.contract.executor import LlmExecutor
from awaken_contract.contract.tool import Tool
from awaken_contract.errors import (
    AgentRegistryConflict,
    BackendRegistryConflict,
    BuildError,
    ModelRegistryConflict,
    PluginRegistryConflict,
    ProviderRegistryConflict,
    ToolRegistryConflict,
)
from awaken_contract.plugin import Plugin
from awaken_contract.registry_spec import AgentSpec, ModelSpec, RemoteEndpoint

__all__ = [
    "AgentBackendFactory",
    "ModelEntry",
    "Registry",
    "RegistrySet",
]

T = TypeVar("T")

#: Validates a remote endpoint for a backend (raise ``ValueError`` with the reason when invalid);
#: it may return an ``AgentBackend`` that runs the remote agent as a delegate.
AgentBackendFactory = Callable[[str, RemoteEndpoint], object]


@dataclass(frozen=True, slots=True)
class ModelEntry:
    """The book's ``ModelEntry { provider, model_name }`` (a :class:`ModelSpec` without id)."""

    provider: str
    model_name: str

    def to_spec(self, model_id: str) -> ModelSpec:
        """The equivalent :class:`ModelSpec`."""
        return ModelSpec(id=model_id, provider=self.provider, model=self.model_name)


class Registry(Generic[T]):
    """An id → item map that refuses duplicates with ``conflict``."""

    __slots__ = ("_conflict", "_items")

    def __init__(self, conflict: type[BuildError]) -> None:
        self._items: dict[str, T] = {}
        self._conflict = conflict

    def register(self, item_id: str, item: T) -> None:
        """Add ``item``; an existing id raises the registry's conflict error."""
        if item_id in self._items:
            raise self._conflict(item_id)
        self._items[item_id] = item

    def replace(self, item_id: str, item: T) -> None:
        """Add or overwrite ``item``."""
        self._items[item_id] = item

    def remove(self, item_id: str) -> T | None:
        """Remove and return an item."""
        return self._items.pop(item_id, None)

    def get(self, item_id: str) -> T | None:
        """The item or ``None``."""
        return self._items.get(item_id)

    def ids(self) -> list[str]:
        """Registered ids in registration order."""
        return list(self._items)

    def items(self) -> Iterator[tuple[str, T]]:
        """``(id, item)`` pairs in registration order."""
        return iter(self._items.items())

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._items

    def __len__(self) -> int:
        return len(self._items)


class RegistrySet:
    """Every registry a resolver reads. ``version`` increases on each change."""

    __slots__ = ("agents", "backends", "models", "plugins", "providers", "tools", "version")

    def __init__(self) -> None:
        self.agents: Registry[AgentSpec] = Registry(AgentRegistryConflict)
        self.tools: Registry[Tool] = Registry(ToolRegistryConflict)
        self.models: Registry[ModelSpec] = Registry(ModelRegistryConflict)
        self.providers: Registry[LlmExecutor] = Registry(ProviderRegistryConflict)
        self.plugins: Registry[Plugin] = Registry(PluginRegistryConflict)
        self.backends: Registry[AgentBackendFactory] = Registry(BackendRegistryConflict)
        self.version = 1

    def bump(self) -> None:
        """Mark the registries changed (resolvers drop cached environments)."""
        self.version += 1
