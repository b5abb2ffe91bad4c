"""Typed access to the profile store from hooks: cross-run values owned by an agent.

A :class:`ProfileKey` names a profile entry and its value type (like a ``StateKey``, without
reducers). :class:`ProfileAccess` reads and writes such keys for one owner — by default the
active agent — through the runtime's ``ProfileStore``. Hooks get one from
``ctx.profile`` (``None`` when the runtime has no profile store)::

    class Visits(ProfileKey[int]):
        KEY = "my_plugin.visits"

    profile = ctx.profile
    if profile is not None:
        await profile.set(Visits, (await profile.get(Visits) or 0) + 1)
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar, cast

from awaken_contract.contract.storage import ProfileOwner, ProfileStore
from awaken_contract.state import _infer_type_arg, decode_value, default_of, encode_value

__all__ = ["ProfileAccess", "ProfileKey"]

V = TypeVar("V")


class ProfileKey(Generic[V]):
    """A named, typed profile entry; subclass with the value type and set ``KEY``.

    ``value_type`` (inferred from the type parameter) drives :meth:`decode` and
    :meth:`default`. Register it with ``registrar.register_profile_key(Key)``.
    """

    KEY: ClassVar[str]
    value_type: ClassVar[Any] = Any

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _infer_type_arg(cls, ProfileKey, "value_type")

    @classmethod
    def default(cls) -> V:
        """The value of an absent entry."""
        return cast(V, default_of(cls.value_type))

    @classmethod
    def encode(cls, value: V) -> Any:
        """Value → JSON-compatible data (raises ``KeyEncode``)."""
        return encode_value(value, key=cls.KEY)

    @classmethod
    def decode(cls, data: Any) -> V:
        """JSON-compatible data → value (raises ``KeyDecode``)."""
        return cast(V, decode_value(data, cls.value_type, key=cls.KEY))


class ProfileAccess:
    """Typed reads and writes of profile keys for one owner (an agent or the system)."""

    __slots__ = ("owner", "store")

    def __init__(self, store: ProfileStore, owner: ProfileOwner) -> None:
        self.store = store
        self.owner = owner

    @classmethod
    def for_agent(cls, store: ProfileStore, agent_id: str) -> ProfileAccess:
        """Access scoped to ``ProfileOwner.agent(agent_id)``."""
        return cls(store, ProfileOwner.agent(agent_id))

    def for_owner(self, owner: ProfileOwner) -> ProfileAccess:
        """The same store scoped to another owner (e.g. ``ProfileOwner.system()``)."""
        return ProfileAccess(self.store, owner)

    async def get(self, key: type[ProfileKey[V]]) -> V | None:
        """The stored value (``None`` when absent; ``KeyDecode`` when it does not decode)."""
        entry = await self.store.get(self.owner, key.KEY)
        return None if entry is None else key.decode(entry.value)

    async def set(self, key: type[ProfileKey[V]], value: V) -> None:
        """Upsert the value."""
        await self.store.set(self.owner, key.KEY, key.encode(value))

    async def delete(self, key: type[ProfileKey[V]]) -> None:
        """Remove the entry (idempotent)."""
        await self.store.delete(self.owner, key.KEY)
