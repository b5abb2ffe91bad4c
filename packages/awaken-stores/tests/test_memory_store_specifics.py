"""In-memory store behaviour beyond the shared contract: isolation, wake-ups, config events."""

from __future__ import annotations

import asyncio

import pytest
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import (
    ConfigChangeEvent,
    ConfigChangeKind,
    ProfileOwner,
    RunQuery,
    RunRecord,
)
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


def _run(run_id: str, thread_id: str, updated_at: int) -> RunRecord:
    return RunRecord(
        run_id=run_id,
        thread_id=thread_id,
        agent_id="a",
        status=RunStatus.DONE,
        created_at=updated_at,
        updated_at=updated_at,
    )


async def test_latest_run_follows_the_per_thread_index() -> None:
    store = InMemoryStore()
    for i in range(50):
        await store.create_run(_run(f"r{i}", f"t{i % 5}", i))
    assert (await store.latest_run("t3")) == _run("r48", "t3", 48)
    assert await store.latest_run("nobody") is None
    # A re-saved run moves to the thread it now names; checkpoints update the index too.
    await store.checkpoint("t4", [], _run("r48", "t4", 100))
    latest_t3 = await store.latest_run("t3")
    assert latest_t3 is not None and latest_t3.run_id == "r43"
    latest_t4 = await store.latest_run("t4")
    assert latest_t4 is not None and latest_t4.run_id == "r48"
    page = await store.list_runs(RunQuery(thread_id="t4", limit=100))
    assert page.total == 11
