"""Conformance tests every ``ThreadStore`` must pass (override the ``store`` fixture)."""

from __future__ import annotations

import asyncio

import pytest

from awaken_contract.contract.content import ContentBlock
from awaken_contract.contract.message import Message, MessageMetadata, ToolCall, Visibility
from awaken_contract.contract.storage import (
    MessageQuery,
    MessageSeqRange,
    ThreadMetadata,
    ThreadStore,
)
from awaken_contract.errors import StorageNotFound
from awaken_contract.testing.builders import make_thread

__all__ = ["ThreadStoreContract"]


def _conversation() -> list[Message]:
    assistant = Message.assistant_with_tool_calls(
        "let me look", [ToolCall("call-1", "search", {"q": "rust", "n": [1, 2]})]
    )
    assistant.mark_produced_by("run-1", 0)
    return [
        Message.system("be brief"),
        Message.user("hello"),
        assistant,
        Message.tool("call-1", "found it"),
        Message.internal_user("<reminder/>"),
    ]


class ThreadStoreContract:
    """Threads and messages. Subclass as ``TestX(ThreadStoreContract)`` and define ``store``."""

    pytestmark = pytest.mark.asyncio

    async def test_missing_thread_is_none(self, store: ThreadStore) -> None:
        assert await store.load_thread("nope") is None

    async def test_save_then_load_round_trips(self, store: ThreadStore) -> None:
        thread = make_thread("t-1", title="first", updated_at=5)
        thread.metadata.created_at = 3
        thread.metadata.custom = {"k": "v", "nested": {"n": 1}}
        thread.open_run_id = "r-1"
        thread.latest_run_id = "r-1"
        await store.save_thread(thread)
        assert await store.load_thread("t-1") == thread

    async def test_save_overwrites(self, store: ThreadStore) -> None:
        await store.save_thread(make_thread("t-1", title="v1"))
        await store.save_thread(make_thread("t-1", title="v2"))
        loaded = await store.load_thread("t-1")
        assert loaded is not None and loaded.metadata.title == "v2"

    async def test_list_threads_pages(self, store: ThreadStore) -> None:
        assert await store.list_threads(0, 10) == []
        for i in range(5):
            await store.save_thread(make_thread(f"t-{i}"))
        assert len(await store.list_threads(0, 3)) == 3
        assert len(await store.list_threads(3, 3)) == 2
        assert await store.list_threads(5, 3) == []
        everything = await store.list_threads(0, 100)
        assert sorted(everything) == [f"t-{i}" for i in range(5)]

    async def test_list_threads_newest_first(self, store: ThreadStore) -> None:
        await store.save_thread(make_thread("old", updated_at=100))
        await store.save_thread(make_thread("new", updated_at=300))
        await store.save_thread(make_thread("mid", updated_at=200))
        assert await store.list_threads(0, 10) == ["new", "mid", "old"]

    async def test_list_threads_without_timestamps_by_id(self, store: ThreadStore) -> None:
        for tid in ("c", "a", "b"):
            await store.save_thread(make_thread(tid))
        assert await store.list_threads(0, 10) == ["a", "b", "c"]

    async def test_missing_messages_are_none(self, store: ThreadStore) -> None:
        assert await store.load_messages("nope") is None
        await store.save_thread(make_thread("t-1"))
        assert await store.load_messages("t-1") is None

    async def test_empty_message_list_is_empty(self, store: ThreadStore) -> None:
        await store.save_messages("t-1", [])
        assert await store.load_messages("t-1") == []

    async def test_messages_round_trip_every_field(self, store: ThreadStore) -> None:
        messages = _conversation()
        await store.save_messages("t-1", messages)
        loaded = await store.load_messages("t-1")
        assert loaded == messages
        assert loaded is not None
        assert loaded[2].tool_calls == [ToolCall("call-1", "search", {"q": "rust", "n": [1, 2]})]
        assert loaded[2].metadata == MessageMetadata(run_id="run-1", step_index=0)
        assert loaded[3].tool_call_id == "call-1"
        assert loaded[4].visibility is Visibility.INTERNAL

    async def test_save_messages_overwrites(self, store: ThreadStore) -> None:
        await store.save_messages("t-1", [Message.user("a"), Message.user("b")])
        await store.save_messages("t-1", [Message.user("c")])
        loaded = await store.load_messages("t-1")
        assert loaded is not None and [m.text() for m in loaded] == ["c"]

    async def test_unicode_and_rich_content(self, store: ThreadStore) -> None:
        text = "héllo 世界 🚀 \u200b «quotes» \"double\" 'single' \\ back\nnew\tline"
        message = Message.user_with_content(
            [ContentBlock.text(text), ContentBlock.image_url("https://example.com/ü.png")]
        )
        await store.save_messages("线程-1", [message])
        assert await store.load_messages("线程-1") == [message]

    async def test_large_message(self, store: ThreadStore) -> None:
        big = "x" * (1024 * 1024) + "末"
        await store.save_messages("t-1", [Message.user(big)])
        loaded = await store.load_messages("t-1")
        assert loaded is not None and loaded[0].text() == big

    async def test_delete_thread_removes_messages(self, store: ThreadStore) -> None:
        await store.save_thread(make_thread("t-1"))
        await store.save_messages("t-1", [Message.user("hi")])
        await store.delete_thread("t-1")
        assert await store.load_thread("t-1") is None
        assert await store.load_messages("t-1") is None
        await store.delete_thread("t-1")
        await store.delete_thread("never-existed")

    async def test_delete_messages(self, store: ThreadStore) -> None:
        with pytest.raises(StorageNotFound):
            await store.delete_messages("nope")
        await store.save_thread(make_thread("t-1"))
        await store.delete_messages("t-1")
        await store.save_messages("t-1", [Message.user("hi")])
        await store.delete_messages("t-1")
        assert await store.load_messages("t-1") is None
        assert await store.load_thread("t-1") is not None

    async def test_update_thread_metadata(self, store: ThreadStore) -> None:
        with pytest.raises(StorageNotFound):
            await store.update_thread_metadata("nope", ThreadMetadata(title="x"))
        thread = make_thread("t-1", title="old")
        thread.latest_run_id = "r-9"
        await store.save_thread(thread)
        await store.update_thread_metadata("t-1", ThreadMetadata(title="new", updated_at=42))
        loaded = await store.load_thread("t-1")
        assert loaded is not None
        assert loaded.metadata == ThreadMetadata(title="new", updated_at=42)
        assert loaded.latest_run_id == "r-9"

    async def test_message_records(self, store: ThreadStore) -> None:
        assert await store.load_message_records("t-1") is None
        first = await store.append_message_records("t-1", [Message.user("a"), Message.user("b")])
        assert [r.seq for r in first] == [1, 2]
        produced = Message.assistant("c")
        produced.mark_produced_by("run-7", 3)
        second = await store.append_message_records("t-1", [produced])
        assert [r.seq for r in second] == [3]
        records = await store.load_message_records("t-1")
        assert records is not None and [r.seq for r in records] == [1, 2, 3]
        assert records[2].produced_by_run_id == "run-7" and records[2].step_index == 3
        assert records[0].thread_id == "t-1"
        found = await store.load_message_record("t-1", first[1].message_id)
        assert found is not None and found.seq == 2
        middle = await store.load_message_records_range("t-1", MessageSeqRange(2, 3))
        assert [r.seq for r in middle] == [2, 3]
        assert await store.load_message_records_range("nope", MessageSeqRange(1, 2)) == []

    async def test_message_pages(self, store: ThreadStore) -> None:
        messages = [Message.user(f"m{i}") for i in range(12)]
        messages.insert(3, Message.internal_user("hidden"))
        await store.save_messages("t-1", messages)
        page = await store.load_messages_page("t-1", MessageQuery(offset=0, limit=10))
        assert [m.text() for m in page.messages] == [f"m{i}" for i in range(10)]
        assert (page.total, page.has_more, page.next_cursor) == (12, True, "10")
        rest = await store.load_messages_page("t-1", MessageQuery(cursor=page.next_cursor))
        assert [m.text() for m in rest.messages] == ["m10", "m11"]
        assert (rest.has_more, rest.next_cursor) == (False, None)
        beyond = await store.load_messages_page("t-1", MessageQuery(offset=99))
        assert beyond.messages == [] and beyond.total == 12 and not beyond.has_more
        everything = await store.load_messages_page(
            "t-1", MessageQuery(limit=100, include_internal=True)
        )
        assert everything.total == 13 and everything.messages[3].text() == "hidden"
        with pytest.raises(ValueError):
            await store.load_messages_page("t-1", MessageQuery(cursor="abc"))

    async def test_concurrent_saves_on_distinct_threads(self, store: ThreadStore) -> None:
        async def one(i: int) -> None:
            await store.save_thread(make_thread(f"c-{i}", title=str(i)))
            await store.save_messages(f"c-{i}", [Message.user(str(i))])

        await asyncio.gather(*(one(i) for i in range(20)))
        for i in range(20):
            loaded = await store.load_messages(f"c-{i}")
            assert loaded is not None and loaded[0].text() == str(i)
        assert len(await store.list_threads(0, 100)) == 20
