"""Typed access to the profile store from hooks and tools: cross-run values per agent and user.

A :class:`ProfileKey` names a profile entry, its value type and whose entry it is (``PER``:
the agent — the default —, the run's user, or the agent for that user). :class:`ProfileAccess`
reads and writes such keys for one run through the runtime's ``ProfileStore``. Hooks get one
from ``ctx.profile`` and tools from ``ctx.profile`` (``None`` when the runtime has no profile
store)::

    class Visits(ProfileKey[int]):
        KEY = "my_plugin.visits"
        PER = ProfileOwnerKind.USER

    profile = ctx.profile
    if profile is not None:
        await profile.set(Visits, (await profile.get(Visits) or 0) + 1)

A key kept per user in a run without a user id raises
:class:`~awaken_contract.errors.UserIdRequired`.
"""

from __future__ import annotations

from typing import Any, TypeVar

from awaken_contract.contract.storage import ProfileOwner, ProfileStore
from awaken_contract.key_codec import ProfileOwnerKind, TypedKey

__all__ = ["ProfileAccess", "ProfileKey", "ProfileOwnerKind"]

V = TypeVar("V")


class ProfileKey(TypedKey[V]):
    """A named, typed profile entry; subclass with the value type and set ``KEY`` (and ``PER``
    to keep it per user or per agent and user).

    ``value_type`` (inferred from the type parameter) drives :meth:`decode` and
    :meth:`default`. Register it with ``registrar.register_profile_key(Key)``.
    """


class ProfileAccess:
    """Typed reads and writes of profile keys for one run: a key's entry belongs to the owner
    its ``PER`` names for the run's agent and user — or, when ``owner`` is given, to that one
    owner for every key."""

    __slots__ = ("agent_id", "owner", "store", "user_id")

    def __init__(
        self,
        store: ProfileStore,
        agent_id: str,
        user_id: str | None = None,
        *,
        owner: ProfileOwner | None = None,
    ) -> None:
        self.store = store
        self.agent_id = agent_id
        self.user_id = user_id
        self.owner = owner

    @classmethod
    def for_agent(
        cls, store: ProfileStore, agent_id: str, user_id: str | None = None
    ) -> ProfileAccess:
        """Access for a run of ``agent_id`` acting for ``user_id`` (if any)."""
        return cls(store, agent_id, user_id)

    def for_owner(self, owner: ProfileOwner) -> ProfileAccess:
        """The same store pinned to one owner (e.g. ``ProfileOwner.system()``)."""
        return ProfileAccess(self.store, self.agent_id, self.user_id, owner=owner)

    def owner_of(self, key: type[TypedKey[Any]]) -> ProfileOwner:
        """The owner of ``key``'s entry (``UserIdRequired`` when it needs a missing user)."""
        if self.owner is not None:
            return self.owner
        return ProfileOwner.of(key.PER, self.agent_id, self.user_id)

    async def get(self, key: type[ProfileKey[V]]) -> V | None:
        """The stored value (``None`` when absent; ``KeyDecode`` when it does not decode)."""
        entry = await self.store.get(self.owner_of(key), key.KEY)
        return None if entry is None else key.decode(entry.value)

    async def set(self, key: type[ProfileKey[V]], value: V) -> None:
        """Upsert the value."""
        await self.store.set(self.owner_of(key), key.KEY, key.encode(value))

    async def delete(self, key: type[ProfileKey[V]]) -> None:
        """Remove the entry (idempotent)."""
        await self.store.delete(self.owner_of(key), key.KEY)
