"""PostgresStore behaviour beyond the shared contract: names, schema, pools, notifications."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import ConfigChangeEvent, ConfigChangeKind
from awaken_contract.testing import make_job, make_run
from awaken_stores import PostgresStore

pytestmark = pytest.mark.postgres


@pytest.fixture
async def database(postgres_dsn: str) -> AsyncIterator[str]:
    """A fresh database, so default table names can be checked without clashes."""
    name = f"db_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(postgres_dsn)
    await admin.execute(f"CREATE DATABASE {name}")
    dsn = postgres_dsn.replace("/postgres?", f"/{name}?")
    yield dsn
    await admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
    await admin.close()


async def _tables(dsn: str) -> set[str]:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    finally:
        await conn.close()
    return {r[0] for r in rows}


async def test_default_tables_created_on_first_access(database: str) -> None:
    store = PostgresStore(database)
    assert await _tables(database) == set()
    assert await store.load_thread("t") is None
    assert {"awaken_threads", "awaken_runs", "awaken_messages", "awaken_configs"} <= await _tables(
        database
    )
    assert await store.schema_version() == 3
    await store.ensure_schema()  # idempotent
    await store.close()


async def test_with_prefix_and_external_pool(database: str) -> None:
    pool = await asyncpg.create_pool(database, min_size=1, max_size=4)
    store = PostgresStore.with_prefix(pool, "myapp")
    await store.checkpoint("t-1", [Message.user("hi")], make_run("r-1"))
    assert {"myapp_threads", "myapp_runs", "myapp_messages"} <= await _tables(database)
    assert not {"awaken_threads"} & await _tables(database)
    await store.close()  # the pool belongs to the caller and stays open
    assert await pool.fetchval("SELECT count(*) FROM myapp_runs") == 1
    await pool.close()


def test_prefix_is_validated() -> None:
    for bad in ("", "a-b", "x; DROP TABLE y", "1abc"):
        with pytest.raises(ValueError):
            PostgresStore("postgresql://unused", prefix=bad)


async def test_runs_table_has_spec_columns(database: str) -> None:
    store = PostgresStore(database)
    await store.create_run(make_run("r-1", status=RunStatus.WAITING, steps=3, input_tokens=9))
    conn = await asyncpg.connect(database)
    row = await conn.fetchrow("SELECT status, steps, input_tokens, state FROM awaken_runs")
    await conn.close()
    assert dict(row) == {"status": "waiting", "steps": 3, "input_tokens": 9, "state": None}
    await store.close()


async def test_two_instances_checkpoint_the_same_thread(database: str) -> None:
    first, second = PostgresStore(database), PostgresStore(database)
    await first.checkpoint("t-1", [Message.user("1")], make_run("r-1"))
    created = (await first.load_thread("t-1")).metadata.created_at  # type: ignore[union-attr]
    await second.checkpoint("t-1", [Message.user("2")], make_run("r-2", status=RunStatus.WAITING))
    # ``first`` still caches the thread as it wrote it; the optimistic check must notice.
    await first.checkpoint("t-1", [Message.user("3")], make_run("r-3", status=RunStatus.DONE))
    thread = await second.load_thread("t-1")
    assert thread is not None
    assert thread.metadata.created_at == created
    assert (thread.latest_run_id, thread.open_run_id) == ("r-3", "r-2")
    await first.close()
    await second.close()


async def test_claims_across_pools_have_one_winner(database: str) -> None:
    stores = [PostgresStore(database, max_size=10) for _ in range(2)]
    job = await stores[0].mailbox.enqueue(make_job())
    results = await asyncio.gather(
        *(stores[i % 2].mailbox.claim("t-1", f"w{i}", 30_000, 2_000) for i in range(20))
    )
    assert sum(len(r) for r in results) == 1
    loaded = await stores[1].mailbox.load(job.job_id)
    assert loaded is not None and loaded.claim_token is not None
    for store in stores:
        await store.close()


async def test_listen_notify_wakes_waiting_worker(database: str) -> None:
    worker, producer = PostgresStore(database), PostgresStore(database)
    await worker.mailbox.wait_for_work(0.01)  # starts listening
    waiter = asyncio.create_task(worker.mailbox.wait_for_work(3_600))
    await producer.mailbox.enqueue(make_job())
    await asyncio.wait_for(waiter, 120)  # woken by the notification, not by the hour-long wait
    assert len(await worker.mailbox.claim("t-1", "w", 30_000, 2_000)) == 1
    await worker.mailbox.close()
    await worker.close()
    await producer.close()


async def test_config_changes_are_notified(database: str) -> None:
    store = PostgresStore(database)
    async with store.config.subscribe() as events:
        await store.config.put("agents", "a", {"v": 1})
        put = await asyncio.wait_for(anext(events), 20)
        assert put == ConfigChangeEvent("agents", "a", ConfigChangeKind.PUT)
        await store.config.delete("agents", "missing")  # nothing removed: no event
        await store.config.delete("agents", "a")
        deleted = await asyncio.wait_for(anext(events), 20)
        assert deleted == ConfigChangeEvent("agents", "a", ConfigChangeKind.DELETE)
    await store.close()


async def test_damaged_run_columns_read_back_leniently(database: str) -> None:
    store = PostgresStore(database)
    await store.create_run(make_run("r-1", status=RunStatus.DONE))
    conn = await asyncpg.connect(database)
    await conn.execute(
        "UPDATE awaken_runs SET status = 'paused', waiting = '{\"reason\": 42}'::jsonb"
    )
    await conn.close()
    loaded = await store.load_run("r-1")
    assert loaded is not None
    assert loaded.status is RunStatus.RUNNING and loaded.waiting is None
    await store.close()


async def test_a_step_checkpoint_writes_only_the_new_messages(database: str) -> None:
    store = PostgresStore(database)
    history = [Message.user(f"m{i}") for i in range(200)]
    await store.checkpoint("t-1", history, make_run("r-1"))
    conn = await asyncpg.connect(database)
    try:
        before = await conn.fetch("SELECT seq, xmin::text FROM awaken_messages ORDER BY seq")
        for step in range(3):
            history = [*history, Message.assistant(f"step {step}")]
            await store.checkpoint("t-1", history, make_run("r-1"))
            assert await store.load_messages("t-1") == history  # a UI reading the history
        after = await conn.fetch("SELECT seq, xmin::text FROM awaken_messages ORDER BY seq")
    finally:
        await conn.close()
        await store.close()
    assert [tuple(r) for r in after[:200]] == [tuple(r) for r in before]  # old rows untouched
    assert [r[0] for r in after[200:]] == [201, 202, 203]
