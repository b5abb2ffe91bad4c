"""Databases created by the schema before the journal (v1) open, migrate and keep working."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import asyncpg
import pytest
from awaken_contract.codec import encode_json
from awaken_contract.contract.event import TextDelta
from awaken_contract.contract.journal import EventRecord, JournaledThreadRunStore
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.message import Message
from awaken_contract.ids import now_ms
from awaken_contract.testing import make_run
from awaken_stores import PostgresStore, SqliteStore
from awaken_stores.postgres import _migrations as postgres_migrations
from awaken_stores.sqlite import MIGRATIONS as SQLITE_MIGRATIONS

OLD_HISTORY = [Message.user("old question"), Message.assistant("old answer")]


def _old_sqlite_database(path: Path) -> None:
    """Build exactly what the v1 store wrote: schema 1 plus one checkpointed thread."""
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE awaken_schema_migrations (version INTEGER PRIMARY KEY,"
        " applied_at INTEGER NOT NULL)"
    )
    version, statements = SQLITE_MIGRATIONS[0]
    assert version == 1
    for statement in statements:
        conn.execute(statement)
    conn.execute("INSERT INTO awaken_schema_migrations VALUES (1, ?)", (now_ms(),))
    run = make_run("r-old", "t-old", status=RunStatus.DONE)
    conn.execute(
        "INSERT INTO awaken_threads VALUES (?, ?, ?)",
        ("t-old", '{"id":"t-old","latest_run_id":"r-old"}', 1),
    )
    conn.execute(
        "INSERT INTO awaken_messages VALUES (?, ?)", ("t-old", encode_json(OLD_HISTORY).decode())
    )
    conn.execute("INSERT INTO awaken_messages VALUES (?, ?)", ("t-empty", "[]"))
    conn.execute(
        "INSERT INTO awaken_runs VALUES (?, ?, ?, ?, ?, ?)",
        ("r-old", "t-old", "done", 100, 100, encode_json(run).decode()),
    )
    conn.commit()
    conn.close()


async def _works_after_upgrade(store: JournaledThreadRunStore) -> list[Message]:
    """The old data reads back and the upgraded store checkpoints and journals on top of it."""
    assert await store.load_messages("t-old") == OLD_HISTORY
    assert await store.load_messages("t-empty") == []
    assert await store.load_messages("t-none") is None
    history = [*OLD_HISTORY, Message.user("new question")]
    run = make_run("r-new", "t-old", status=RunStatus.RUNNING)
    entries = await store.checkpoint_step(
        "t-old", history, run, [EventRecord(TextDelta(delta="hi"))]
    )
    assert [e.seq for e in entries] == [1]
    history.append(Message.assistant("new answer"))
    await store.checkpoint("t-old", history, run)
    assert await store.load_messages("t-old") == history
    await store.checkpoint("t-empty", [Message.user("first")], make_run("r-e", "t-empty"))
    loaded = await store.load_messages("t-empty")
    assert loaded is not None and [m.text() for m in loaded] == ["first"]
    return history


async def test_sqlite_v1_database_opens_and_works(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _old_sqlite_database(path)
    async with SqliteStore(path) as store:
        assert await store.schema_version() == SQLITE_MIGRATIONS[-1][0]
        old_run = await store.load_run("r-old")
        assert old_run is not None and old_run.status is RunStatus.DONE
        history = await _works_after_upgrade(store)
    async with SqliteStore(path) as again:
        assert await again.load_messages("t-old") == history
        assert await again.last_seq("r-new") == 1


@pytest.mark.postgres
async def test_postgres_v2_database_opens_and_works(postgres_dsn: str) -> None:
    prefix = f"up{uuid.uuid4().hex[:10]}"
    conn = await asyncpg.connect(postgres_dsn)
    try:
        await conn.execute(
            f"CREATE TABLE {prefix}_schema_migrations (version INTEGER PRIMARY KEY,"
            " applied_at BIGINT NOT NULL)"
        )
        for version, statements in postgres_migrations(prefix)[:2]:
            for statement in statements:
                await conn.execute(statement)
            await conn.execute(
                f"INSERT INTO {prefix}_schema_migrations VALUES ($1, $2)", version, now_ms()
            )
        await conn.execute(
            f"INSERT INTO {prefix}_messages (thread_id, data) VALUES ($1, $2::jsonb),"
            " ($3, '[]'::jsonb)",
            "t-old",
            encode_json(OLD_HISTORY).decode(),
            "t-empty",
        )
        await conn.execute(
            f"INSERT INTO {prefix}_threads (id, data) VALUES ('t-old', '{{\"id\": \"t-old\"}}')"
        )
    finally:
        await conn.close()
    store = PostgresStore(postgres_dsn, prefix=prefix)
    try:
        assert await store.schema_version() == 3
        history = await _works_after_upgrade(store)
        other = PostgresStore(postgres_dsn, prefix=prefix)
        assert await other.load_messages("t-old") == history
        assert await other.last_seq("r-new") == 1
        await other.close()
    finally:
        await store.drop_schema()
        await store.close()
