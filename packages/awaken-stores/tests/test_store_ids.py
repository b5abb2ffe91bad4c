"""The file and SQLite stores accept, list and refuse the same ids (the shared id rule)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.message import Message
from awaken_contract.errors import StorageIoError
from awaken_contract.ids import MAX_ID_LENGTH
from awaken_contract.testing import make_run, make_thread
from awaken_stores import FileStore, SqliteStore

GOOD_IDS = ["thread-1", "Ünïcødé-线程", "a..b", "user@example.com:chat", "x" * MAX_ID_LENGTH]
BAD_IDS = ["", " ", ".hidden", "a/b", "a\\b", "nul\x00", "cr\rlf", "x" * (MAX_ID_LENGTH + 1)]


@pytest.fixture(params=["file", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    opened: Any = FileStore(tmp_path / "files") if request.param == "file" else None
    if opened is None:
        opened = SqliteStore(tmp_path / "awaken.db")
    yield opened
    await opened.close()


async def test_valid_ids_are_stored_and_listed(store: Any) -> None:
    for index, thread_id in enumerate(GOOD_IDS):
        await store.checkpoint(thread_id, [Message.user("hi")], make_run(f"run-{index}", thread_id))
        assert (await store.load_thread(thread_id)) is not None
    assert sorted(await store.list_threads(0, 50)) == sorted(GOOD_IDS)
    await store.config.put("agents", GOOD_IDS[1], {"id": GOOD_IDS[1]})
    assert [doc_id for doc_id, _ in await store.config.list("agents", 0, 10)] == [GOOD_IDS[1]]


@pytest.mark.parametrize("bad", BAD_IDS)
async def test_invalid_ids_are_refused_alike(store: Any, bad: str) -> None:
    with pytest.raises(StorageIoError, match="thread id"):
        await store.save_thread(make_thread(bad))
    with pytest.raises(StorageIoError, match="thread id"):
        await store.checkpoint(bad, [], make_run("r-1"))
    with pytest.raises(StorageIoError, match="run id"):
        await store.create_run(make_run(bad))
    with pytest.raises(StorageIoError, match="config id"):
        await store.config.put("agents", bad, {})
    assert await store.list_threads(0, 10) == []
