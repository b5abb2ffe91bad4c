"""How SqliteStore runs its statements: grouped writes that still fail one by one, checkpoints
that roll back whole, point reads that stay on the event loop's thread (real SQLite files)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.event import TextDelta
from awaken_contract.contract.journal import EventRecord
from awaken_contract.contract.message import Message
from awaken_contract.errors import VersionConflict
from awaken_contract.testing import make_run
from awaken_stores import SqliteStore
from awaken_stores.sqlite.loop_reader import LoopReader, WouldWait


class _Hops:
    """Counts the calls handed to an aiosqlite connection's worker thread."""

    def __init__(self, conn: Any) -> None:
        self.count = 0
        original = conn._execute

        async def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return await original(fn, *args, **kwargs)

        conn._execute = counted


def _rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    """What another connection (another process) finds in the file."""
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchall()


async def _warm(path: Path) -> tuple[SqliteStore, _Hops, _Hops]:
    store = SqliteStore(path)
    await store.checkpoint("t-warm", [Message.user("warm")], make_run("r-warm", "t-warm"))
    await store.list_threads(0, 10)  # opens the reader connection
    assert store._db._writer.conn is not None and store._db._reader.conn is not None
    return store, _Hops(store._db._writer.conn), _Hops(store._db._reader.conn)


async def test_grouped_writes_commit_once_and_a_failing_one_rolls_back_alone(
    tmp_path: Path,
) -> None:
    path = tmp_path / "awaken.db"
    store, writer, _ = await _warm(path)

    def insert(thread_id: str, fail: bool) -> Any:
        def write(c: sqlite3.Connection) -> str:
            row = (thread_id, f'{{"id":"{thread_id}"}}')
            c.execute("INSERT INTO awaken_threads VALUES (?, ?, 0)", row)
            if fail:
                c.execute("INSERT INTO awaken_threads VALUES (?, ?, 0)", row)
            return thread_id

        return store._db.write(write)

    outcomes = await asyncio.gather(
        insert("g-1", False), insert("g-2", True), insert("g-3", False), return_exceptions=True
    )
    assert writer.count == 1  # queued together: one hop, one transaction
    assert outcomes[0] == "g-1" and outcomes[2] == "g-3"
    assert isinstance(outcomes[1], Exception) and "UNIQUE" in str(outcomes[1])
    stored = _rows(path, "SELECT id FROM awaken_threads WHERE id LIKE 'g-%' ORDER BY id")
    assert stored == [("g-1",), ("g-3",)]  # g-2's first insert went with its failure
    assert await store.load_thread("g-3") is not None  # the connection is still usable
    await store.close()


async def test_a_checkpoint_that_fails_late_leaves_nothing_behind(tmp_path: Path) -> None:
    # The fenced journal append is the checkpoint's last statement: thread, message, head and
    # run rows were written before it raised, alone and grouped with a checkpoint that succeeds.
    path = tmp_path / "awaken.db"
    store, _, _ = await _warm(path)
    records = [EventRecord(TextDelta(delta="hi"))]

    with pytest.raises(VersionConflict):
        await store.checkpoint_step(
            "t-late",
            [Message.user("q")],
            make_run("r-late", "t-late"),
            records,
            expected_last_seq=5,
        )
    ok, failed = await asyncio.gather(
        store.checkpoint_step("t-ok", [Message.user("q")], make_run("r-ok", "t-ok"), records),
        store.checkpoint_step(
            "t-bad",
            [Message.user("q")],
            make_run("r-bad", "t-bad"),
            records,
            expected_last_seq=7,
        ),
        return_exceptions=True,
    )
    assert isinstance(failed, VersionConflict)
    assert [e.seq for e in ok] == [1]  # type: ignore[union-attr]
    for table, key in (
        ("awaken_threads", "id"),
        ("awaken_messages", "thread_id"),
        ("awaken_message_heads", "thread_id"),
        ("awaken_runs", "thread_id"),
    ):
        found = _rows(path, f"SELECT {key} FROM {table} WHERE {key} IN ('t-late', 't-bad', 't-ok')")
        assert found == [("t-ok",)], table
    assert _rows(path, "SELECT run_id FROM awaken_journal WHERE run_id != 'r-warm'") == [("r-ok",)]
    stored = await store.load_messages("t-ok")
    assert stored is not None and [m.text() for m in stored] == ["q"]
    await store.close()


async def test_long_appends_are_split_over_several_statements(tmp_path: Path) -> None:
    path = tmp_path / "awaken.db"
    store = SqliteStore(path)
    history = [Message.user(f"m{i}") for i in range(150)]
    records = [EventRecord(TextDelta(delta=str(i))) for i in range(150)]
    entries = await store.checkpoint_step("t-1", history, make_run("r-1"), records)
    assert [e.seq for e in entries] == list(range(1, 151))
    more = [*history, *(Message.assistant(f"a{i}") for i in range(70))]
    await store.checkpoint_step("t-1", more, make_run("r-1"), records[:70])
    assert await store.load_messages("t-1") == more
    read = await store.read("r-1")
    assert [e.seq for e in read] == list(range(1, 221))
    assert [e.record.event.delta for e in read] == [  # type: ignore[union-attr]
        *(str(i) for i in range(150)),
        *(str(i) for i in range(70)),
    ]
    shorter = more[:10]  # an edited, shorter history drops the rows past it
    await store.checkpoint_step("t-1", shorter, make_run("r-1"))
    assert await store.load_messages("t-1") == shorter
    assert _rows(path, "SELECT COUNT(*) FROM awaken_messages WHERE thread_id = 't-1'") == [(10,)]
    await store.close()


async def test_point_reads_do_not_hop_to_a_worker_thread(tmp_path: Path) -> None:
    store, writer, reader = await _warm(tmp_path / "awaken.db")
    long = [Message.user(f"m{i}") for i in range(65)]
    await store.checkpoint("t-long", long, make_run("r-long", "t-long"))
    writer.count = 0
    assert (await store.load_thread("t-warm")) is not None
    run = await store.load_run("r-warm")
    latest = await store.latest_run("t-warm")
    assert run is not None and latest is not None and latest.run_id == "r-warm"
    assert await store.last_seq("r-warm") == 0
    assert await store.mailbox.load("no-such-job") is None
    assert await store.mailbox.current_generation("t-warm") == 0
    assert await store.mailbox.claim("t-warm", "me", 1_000, 1_000) == []  # nothing queued
    assert [m.text() for m in await store.load_messages("t-warm") or []] == ["warm"]
    assert await store.load_messages("t-none") is None
    assert (writer.count, reader.count) == (0, 0)
    assert await store.load_messages("t-long") == long  # a longer history: the reader thread
    assert reader.count == 1
    await store.close()


async def test_a_point_read_that_would_wait_is_handed_over(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode = WAL")
    holder.execute("CREATE TABLE t (x)")
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("INSERT INTO t VALUES (1)")  # holds the file's lock from now on
    reader = LoopReader(str(path))
    with pytest.raises(WouldWait):
        reader.read(lambda c: c.execute("SELECT x FROM t").fetchall())
    holder.close()
    assert reader.read(lambda c: c.execute("SELECT x FROM t").fetchall()) == [(1,)]
    reader.close()


async def test_latest_run_reads_one_index_entry(tmp_path: Path) -> None:
    path = tmp_path / "awaken.db"
    async with SqliteStore(path) as store:
        for i in range(5):
            await store.checkpoint("t-1", [Message.user("q")], make_run(f"r-{i}", updated_at=i))
        latest = await store.latest_run("t-1")
        assert latest is not None and latest.run_id == "r-4"
    plan = _rows(
        path,
        "EXPLAIN QUERY PLAN SELECT data FROM awaken_runs WHERE thread_id = 't-1'"
        " ORDER BY updated_at DESC, run_id DESC LIMIT 1",
    )
    details = [row[3] for row in plan]
    assert details == ["SEARCH awaken_runs USING INDEX idx_awaken_runs_thread_latest (thread_id=?)"]
