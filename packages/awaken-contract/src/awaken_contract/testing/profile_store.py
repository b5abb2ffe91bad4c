"""Conformance tests every ``ProfileStore`` must pass (override the ``store`` fixture)."""

from __future__ import annotations

import pytest

from awaken_contract.contract.storage import ProfileOwner, ProfileStore
from awaken_contract.ids import now_ms
from awaken_contract.scoped_state import ScopedStateEntries
from awaken_contract.state import KeyScope

__all__ = ["ProfileStoreContract"]

ALICE = ProfileOwner.agent("alice")
BOB = ProfileOwner.agent("bob/../x")
SYSTEM = ProfileOwner.system()


class ProfileStoreContract:
    """Profile entries keyed by owner and key."""

    pytestmark = pytest.mark.asyncio

    async def test_set_get_round_trip(self, store: ProfileStore) -> None:
        before = now_ms()
        await store.set(ALICE, "prefs", {"lang": "中文", "n": [1, 2.5, None, True]})
        entry = await store.get(ALICE, "prefs")
        assert entry is not None
        assert entry.key == "prefs" and entry.value == {"lang": "中文", "n": [1, 2.5, None, True]}
        assert entry.updated_at >= before

    async def test_missing_is_none(self, store: ProfileStore) -> None:
        assert await store.get(ALICE, "nope") is None
        assert await store.list(ALICE) == []

    async def test_set_overwrites(self, store: ProfileStore) -> None:
        await store.set(ALICE, "k", 1)
        await store.set(ALICE, "k", "two")
        entry = await store.get(ALICE, "k")
        assert entry is not None and entry.value == "two"

    async def test_delete_is_idempotent(self, store: ProfileStore) -> None:
        await store.set(ALICE, "k", 1)
        await store.delete(ALICE, "k")
        await store.delete(ALICE, "k")
        await store.delete(SYSTEM, "never")
        assert await store.get(ALICE, "k") is None

    async def test_list_sorted_and_isolated(self, store: ProfileStore) -> None:
        for key in ("zeta", "alpha", "mid"):
            await store.set(ALICE, key, key.upper())
        await store.set(BOB, "alpha", "bob's")
        await store.set(SYSTEM, "alpha", "system's")
        assert [e.key for e in await store.list(ALICE)] == ["alpha", "mid", "zeta"]
        assert [e.value for e in await store.list(BOB)] == ["bob's"]
        assert [e.value for e in await store.list(SYSTEM)] == ["system's"]
        alpha = await store.get(ALICE, "alpha")
        assert alpha is not None and alpha.value == "ALPHA"

    async def test_clear_owner_only_touches_that_owner(self, store: ProfileStore) -> None:
        await store.set(ALICE, "a", 1)
        await store.set(ALICE, "b", 2)
        await store.set(SYSTEM, "a", 3)
        await store.clear_owner(ALICE)
        await store.clear_owner(ALICE)
        assert await store.list(ALICE) == []
        assert [e.value for e in await store.list(SYSTEM)] == [3]

    async def test_shared_and_profile_state_entries(self, store: ProfileStore) -> None:
        """Shared/Profile-scoped state keys persist here (``awaken_contract.scoped_state``)."""
        alice = ScopedStateEntries(store, "alice")
        bob = ScopedStateEntries(store, "bob/../x")
        await alice.save(KeyScope.SHARED, "team.settings", {"tone": "formal", "n": [1, None]})
        await alice.save(KeyScope.PROFILE, "team.settings", "alice's own")
        await bob.save(KeyScope.PROFILE, "prefs.lang", "中文")
        keys = {"team.settings": KeyScope.SHARED, "prefs.lang": KeyScope.PROFILE}
        # Shared: one value for every agent; Profile: per agent; one key string, two scopes
        assert await bob.load(keys) == {
            "team.settings": {"tone": "formal", "n": [1, None]},
            "prefs.lang": "中文",
        }
        assert await alice.load(keys) == {"team.settings": {"tone": "formal", "n": [1, None]}}
        assert await alice.load({"team.settings": KeyScope.PROFILE}) == {
            "team.settings": "alice's own"
        }
        await bob.save(KeyScope.SHARED, "team.settings", {"tone": "casual"})  # last writer wins
        assert await alice.load(keys) == {"team.settings": {"tone": "casual"}}
        await alice.delete(KeyScope.SHARED, "team.settings")
        await alice.delete(KeyScope.SHARED, "team.settings")
        assert await bob.load(keys) == {"prefs.lang": "中文"}
        # state entries never collide with the owner's plain profile entries
        await store.set(ALICE, "team.settings", "a profile key")
        assert await alice.load({"team.settings": KeyScope.PROFILE}) == {
            "team.settings": "alice's own"
        }
