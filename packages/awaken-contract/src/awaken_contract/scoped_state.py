"""Where Shared- and Profile-scoped state lives: entries of the profile store.

A :class:`~awaken_contract.state.StateKey` declared ``KeyScope.SHARED`` is stored under
``ProfileOwner.system()``, one declared ``KeyScope.PROFILE`` under ``ProfileOwner.agent(id)``
of the run's agent; the entry key is the state key prefixed with its scope (``state.shared:``
/ ``state.profile:``), so it never collides with a :class:`~awaken_contract.profile.ProfileKey`
and one key string in two scopes is two entries. Every :class:`ProfileStore` therefore persists
them; values are the keys' JSON encodings.
"""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.storage import ProfileOwner, ProfileStore
from awaken_contract.state import KeyScope

__all__ = ["STORED_SCOPES", "ScopedStateEntries"]

STORED_SCOPES = frozenset({KeyScope.SHARED, KeyScope.PROFILE})
"""Scopes persisted in the profile store (Run and Thread state lives in run records)."""


class ScopedStateEntries:
    """Raw (JSON) values of Shared/Profile state keys for one agent's runs."""

    __slots__ = ("agent_id", "store")

    def __init__(self, store: ProfileStore, agent_id: str) -> None:
        self.store = store
        self.agent_id = agent_id

    def owner(self, scope: KeyScope) -> ProfileOwner:
        """The profile owner holding ``scope``'s entries (``ValueError`` for Run/Thread)."""
        if scope is KeyScope.SHARED:
            return ProfileOwner.system()
        if scope is KeyScope.PROFILE:
            return ProfileOwner.agent(self.agent_id)
        raise ValueError(f"{scope} state is not stored in the profile store")

    @staticmethod
    def entry_key(scope: KeyScope, name: str) -> str:
        """The profile entry key of state key ``name`` in ``scope``."""
        return f"state.{scope.value.lower()}:{name}"

    async def load(self, keys: dict[str, KeyScope]) -> dict[str, Any]:
        """The stored data of ``keys`` (state key → scope); absent keys are left out."""
        found: dict[str, Any] = {}
        for name, scope in keys.items():
            entry = await self.store.get(self.owner(scope), self.entry_key(scope, name))
            if entry is not None:
                found[name] = entry.value
        return found

    async def save(self, scope: KeyScope, name: str, data: Any) -> None:
        """Write one key's data (last writer wins across runs)."""
        await self.store.set(self.owner(scope), self.entry_key(scope, name), data)

    async def delete(self, scope: KeyScope, name: str) -> None:
        """Remove one key's entry (idempotent)."""
        await self.store.delete(self.owner(scope), self.entry_key(scope, name))
