"""In-memory store behaviour beyond the shared contract: isolation, wake-ups, config events."""

from __future__ import annotations

import asyncio

import pytest
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import ConfigChangeEvent, ConfigChangeKind, ProfileOwner
from awaken_contract.errors import SerializationError
from awaken_contract.testing import Unencodable, make_job
from awaken_stores import InMemoryMailboxStore, InMemoryStore


async def test_returned_values_are_copies() -> None:
    store = InMemoryStore()
    messages = [Message.user("a")]
    await store.save_messages("t", messages)
    messages[0].content.clear()
    loaded = await store.load_messages("t")
    assert loaded is not None and loaded[0].text() == "a"
    loaded.append(Message.user("b"))
    again = await store.load_messages("t")
    assert again is not None and len(again) == 1


async def test_unstorable_values_are_rejected_like_durable_stores() -> None:
    store = InMemoryStore()
    with pytest.raises(SerializationError):
        await store.profiles.set(ProfileOwner.system(), "k", Unencodable())
    with pytest.raises(SerializationError):
        await store.config.put("ns", "id", {"x": Unencodable()})
    assert await store.profiles.get(ProfileOwner.system(), "k") is None


async def test_wait_for_work_wakes_on_enqueue() -> None:
    mailbox = InMemoryMailboxStore()
    waiter = asyncio.create_task(mailbox.wait_for_work(30))
    await asyncio.sleep(0)
    await mailbox.enqueue(make_job())
    await asyncio.wait_for(waiter, 5)
    await mailbox.wait_for_work(0)  # returns at once when nothing happens


async def test_config_subscribers_see_changes() -> None:
    store = InMemoryStore()
    events = store.config.subscribe()
    await store.config.put("agents", "a", {"v": 1})
    assert await asyncio.wait_for(anext(events), 5) == ConfigChangeEvent(
        "agents", "a", ConfigChangeKind.PUT
    )
    await store.config.delete("agents", "missing")
    await store.config.delete("agents", "a")
    deleted = await asyncio.wait_for(anext(events), 5)
    assert deleted.kind is ConfigChangeKind.DELETE
    await events.aclose()  # type: ignore[attr-defined]
