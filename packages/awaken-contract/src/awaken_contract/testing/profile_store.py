"""Conformance tests every ``ProfileStore`` must pass (override the ``store`` fixture)."""

from __future__ import annotations

import pytest

from awaken_contract.contract.storage import ProfileOwner, ProfileStore
from awaken_contract.errors import UserIdRequired
from awaken_contract.ids import now_ms
from awaken_contract.key_codec import ProfileOwnerKind
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

    async def test_user_owners_are_their_own_owners(self, store: ProfileStore) -> None:
        """User and agent+user owners never share entries with each other, with agents or
        with the system — whatever characters the names hold."""
        owners = [
            SYSTEM,
            ALICE,
            ProfileOwner.agent("user_x_y"),  # looks like a user form in a naive encoding
            ProfileOwner.agent("alice:u"),
            ProfileOwner.user("alice"),
            ProfileOwner.user("u:1/../é"),
            ProfileOwner.user("x_y"),
            ProfileOwner.agent_user("alice", "u"),
            ProfileOwner.agent_user("alice", "u:1/../é"),
            ProfileOwner.agent_user("alice:u", "x"),
            ProfileOwner.agent_user("alice", "u:x"),
            ProfileOwner.agent_user("user", "x_y"),
        ]
        assert len({str(o) for o in owners}) == len(owners)
        for index, owner in enumerate(owners):
            await store.set(owner, "k", index)
        for index, owner in enumerate(owners):
            entry = await store.get(owner, "k")
            assert entry is not None and entry.value == index, owner
            assert [e.value for e in await store.list(owner)] == [index]
        await store.clear_owner(ProfileOwner.user("alice"))
        assert await store.get(ProfileOwner.user("alice"), "k") is None
        entry = await store.get(ProfileOwner.agent_user("alice", "u"), "k")
        assert entry is not None and entry.value == owners.index(
            ProfileOwner.agent_user("alice", "u")
        )
        await store.delete(ProfileOwner.agent_user("alice", "u"), "k")
        assert await store.get(ProfileOwner.agent_user("alice", "u"), "k") is None
        entry = await store.get(ALICE, "k")
        assert entry is not None and entry.value == 1

    async def test_profile_state_entries_per_user(self, store: ProfileStore) -> None:
        """Profile-scoped state keys kept per user / per agent and user."""
        a_for_ann = ScopedStateEntries(store, "a", "ann")
        a_for_ben = ScopedStateEntries(store, "a", "ben")
        b_for_ann = ScopedStateEntries(store, "b", "ann")
        anonymous = ScopedStateEntries(store, "a")
        user, both = ProfileOwnerKind.USER, ProfileOwnerKind.AGENT_USER
        await a_for_ann.save(KeyScope.PROFILE, "lang", "fr", user)
        await a_for_ann.save(KeyScope.PROFILE, "draft", "ann@a", both)
        await a_for_ben.save(KeyScope.PROFILE, "lang", "de", user)
        keys = {"lang": KeyScope.PROFILE, "draft": KeyScope.PROFILE}
        per = {"lang": user, "draft": both}
        assert await a_for_ann.load(keys, per) == {"lang": "fr", "draft": "ann@a"}
        assert await b_for_ann.load(keys, per) == {"lang": "fr"}  # per user: across agents
        assert await a_for_ben.load(keys, per) == {"lang": "de"}
        assert not anonymous.keeps(KeyScope.PROFILE, user)
        assert anonymous.keeps(KeyScope.PROFILE) and anonymous.keeps(KeyScope.SHARED, user)
        with pytest.raises(UserIdRequired):
            anonymous.owner(KeyScope.PROFILE, both)
        entry = await store.get(ProfileOwner.user("ann"), "state.profile:lang")
        assert entry is not None and entry.value == "fr"
        await a_for_ann.delete(KeyScope.PROFILE, "lang", user)
        assert await b_for_ann.load(keys, per) == {}
