"""SqliteStore behaviour beyond the shared contract: pragmas, migrations, several processes."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import RunQuery
from awaken_contract.testing import make_job, make_run
from awaken_stores import SqliteStore
from awaken_stores.sqlite import SCHEMA_VERSION


async def test_schema_created_on_first_use_with_wal(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "awaken.db"
    store = SqliteStore(path)
    assert not path.exists()
    assert await store.load_thread("t") is None
    assert await store.schema_version() == SCHEMA_VERSION
    await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        versions = conn.execute("SELECT version FROM awaken_schema_migrations").fetchall()
        assert versions == [(v,) for v in range(1, SCHEMA_VERSION + 1)]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"awaken_threads", "awaken_messages", "awaken_runs", "awaken_mailbox_jobs"} <= tables


async def test_reopen_keeps_data_and_does_not_remigrate(tmp_path: Path) -> None:
    path = tmp_path / "awaken.db"
    async with SqliteStore(path) as store:
        await store.checkpoint("t-1", [Message.user("kept")], make_run("r-1"))
    async with SqliteStore(path) as again:
        messages = await again.load_messages("t-1")
        assert messages is not None and messages[0].text() == "kept"
        assert await again.schema_version() == SCHEMA_VERSION
    with sqlite3.connect(path) as conn:
        applied = conn.execute("SELECT COUNT(*) FROM awaken_schema_migrations").fetchone()[0]
        assert applied == SCHEMA_VERSION


async def test_closed_store_reopens_on_next_use(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "a.db")
    await store.save_messages("t", [Message.user("x")])
    await store.close()
    assert await store.load_messages("t") is not None
    await store.close()


_WORKER = textwrap.dedent(
    """
    import asyncio, sys
    from awaken_contract.contract.message import Message
    from awaken_contract.testing import make_run
    from awaken_stores import SqliteStore

    async def main(path, name):
        async with SqliteStore(path, busy_timeout_ms=30_000) as store:
            for i in range(40):
                run = make_run(f"{name}-{i}", f"{name}-thread", updated_at=i)
                await store.checkpoint(f"{name}-thread", [Message.user(str(i))], run)
            claimed = []
            for _ in range(30):
                got = await store.mailbox.claim("shared", name, 60_000, 10**12, limit=1)
                for job in got:
                    await store.mailbox.ack(job.job_id, job.claim_token, 10**12)
                claimed += got
            print(" ".join(j.job_id for j in claimed))

    asyncio.run(main(sys.argv[1], sys.argv[2]))
    """
)


async def test_two_processes_share_one_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    async with SqliteStore(path) as store:
        jobs = [await store.mailbox.enqueue(make_job("shared", now=i)) for i in range(20)]

    def spawn(name: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(path), name], stdout=subprocess.PIPE, text=True
        )

    procs = [spawn("p1"), spawn("p2")]
    outputs = await asyncio.gather(*(asyncio.to_thread(p.communicate) for p in procs))
    assert [p.returncode for p in procs] == [0, 0]
    claimed = [job_id for out, _ in outputs for job_id in out.split()]
    assert sorted(claimed) == sorted(j.job_id for j in jobs)  # each job exactly once
    async with SqliteStore(path) as store:
        for name in ("p1", "p2"):
            latest = await store.latest_run(f"{name}-thread")
            assert latest is not None and latest.run_id == f"{name}-39"
            messages = await store.load_messages(f"{name}-thread")
            assert messages is not None and messages[0].text() == "39"
        page = await store.list_runs(RunQuery(status=RunStatus.RUNNING))
        assert page.total == 80


async def test_a_cancelled_mailbox_operation_leaves_the_connection_usable(tmp_path: Path) -> None:
    # The mailbox's lease renewal is cancelled whenever a job ends, at whatever point its
    # extend_lease transaction has reached; the connection must not keep a transaction open.
    async with SqliteStore(tmp_path / "awaken.db") as store:
        mailbox = store.mailbox
        job = await mailbox.enqueue(make_job("t"))
        [claimed] = await mailbox.claim("t", "worker", 60_000, 1_000, 1)
        token = claimed.claim_token or ""
        for steps in range(40):
            renewal = asyncio.create_task(mailbox.extend_lease(job.job_id, token, 60_000, 2_000))
            for _ in range(steps % 8):
                await asyncio.sleep(0)
            renewal.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewal
            assert await mailbox.extend_lease(job.job_id, token, 60_000, 2_000)
        await store.checkpoint("t", [Message.user("still writable")], make_run("r-1"))
        acked = await mailbox.ack(job.job_id, token, 3_000)
    assert acked.status.value == "Accepted"


async def test_a_step_checkpoint_writes_only_the_new_messages(tmp_path: Path) -> None:
    path = tmp_path / "awaken.db"
    store = SqliteStore(path)
    history = [Message.user(f"m{i}") for i in range(200)]
    await store.checkpoint("t-1", history, make_run("r-1"))
    with sqlite3.connect(path) as conn:  # count every message row written from now on
        conn.executescript(
            "CREATE TABLE written (n INTEGER);"
            "CREATE TRIGGER w_ins AFTER INSERT ON awaken_messages BEGIN"
            " INSERT INTO written VALUES (1); END;"
            "CREATE TRIGGER w_upd AFTER UPDATE ON awaken_messages BEGIN"
            " INSERT INTO written VALUES (1); END;"
        )
    for step in range(3):
        history = [*history, Message.assistant(f"step {step}")]
        await store.checkpoint("t-1", history, make_run("r-1"))
        assert await store.load_messages("t-1") == history  # a UI reading the history
    await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM written").fetchone()[0] == 3
