"""Where Shared- and Profile-scoped state lives: entries of the profile store.

A :class:`~awaken_contract.state.StateKey` declared ``KeyScope.SHARED`` is stored under
``ProfileOwner.system()``; one declared ``KeyScope.PROFILE`` under the owner its ``PER`` names
for the run — ``ProfileOwner.agent(agent_id)`` (the default), ``.user(user_id)`` or
``.agent_user(agent_id, user_id)``. The entry key is the state key prefixed with its scope
(``state.shared:`` / ``state.profile:``), so it never collides with a
:class:`~awaken_contract.profile.ProfileKey` and one key string in two scopes is two entries.
Every :class:`ProfileStore` therefore persists them; values are the keys' JSON encodings.

A run without a user id does not keep keys stored per user (:meth:`ScopedStateEntries.keeps`
is false): they start from their default and live for that run only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from awaken_contract.contract.storage import ProfileOwner, ProfileStore
from awaken_contract.key_codec import ProfileOwnerKind
from awaken_contract.state import KeyScope

__all__ = ["STORED_SCOPES", "ScopedStateEntries"]

STORED_SCOPES = frozenset({KeyScope.SHARED, KeyScope.PROFILE})
"""Scopes persisted in the profile store (Run and Thread state lives in run records)."""

_AGENT = ProfileOwnerKind.AGENT


class ScopedStateEntries:
    """Raw (JSON) values of Shared/Profile state keys for the runs of one agent and user."""

    __slots__ = ("agent_id", "store", "user_id")

    def __init__(self, store: ProfileStore, agent_id: str, user_id: str | None = None) -> None:
        self.store = store
        self.agent_id = agent_id
        self.user_id = user_id

    def keeps(self, scope: KeyScope, per: ProfileOwnerKind = _AGENT) -> bool:
        """True when a key of ``scope``/``per`` has an entry for this run (a key kept per user
        has none when the run has no user)."""
        return scope is KeyScope.SHARED or per is _AGENT or self.user_id is not None

    def owner(self, scope: KeyScope, per: ProfileOwnerKind = _AGENT) -> ProfileOwner:
        """The profile owner holding the entry (``ValueError`` for Run/Thread,
        ``UserIdRequired`` for a key kept per user in a run without one)."""
        if scope is KeyScope.SHARED:
            return ProfileOwner.system()
        if scope is KeyScope.PROFILE:
            return ProfileOwner.of(per, self.agent_id, self.user_id)
        raise ValueError(f"{scope} state is not stored in the profile store")

    @staticmethod
    def entry_key(scope: KeyScope, name: str) -> str:
        """The profile entry key of state key ``name`` in ``scope``."""
        return f"state.{scope.value.lower()}:{name}"

    async def load(
        self, keys: Mapping[str, KeyScope], per: Mapping[str, ProfileOwnerKind] | None = None
    ) -> dict[str, Any]:
        """The stored data of ``keys`` (state key → scope; ``per`` gives the owner kind of
        Profile keys, default agent); absent keys are left out."""
        found: dict[str, Any] = {}
        for name, scope in keys.items():
            kind = per.get(name, _AGENT) if per is not None else _AGENT
            entry = await self.store.get(self.owner(scope, kind), self.entry_key(scope, name))
            if entry is not None:
                found[name] = entry.value
        return found

    async def save(
        self, scope: KeyScope, name: str, data: Any, per: ProfileOwnerKind = _AGENT
    ) -> None:
        """Write one key's data (last writer wins across runs)."""
        await self.store.set(self.owner(scope, per), self.entry_key(scope, name), data)

    async def delete(self, scope: KeyScope, name: str, per: ProfileOwnerKind = _AGENT) -> None:
        """Remove one key's entry (idempotent)."""
        await self.store.delete(self.owner(scope, per), self.entry_key(scope, name))
