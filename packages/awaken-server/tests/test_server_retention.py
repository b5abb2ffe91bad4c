"""The mailbox GC tick prunes finished runs by ``MailboxConfig.retention``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from awaken_contract.contract.retention import RetentionPolicy
from awaken_contract.contract.storage import RunQuery
from awaken_stores import SqliteStore


async def test_gc_prunes_finished_runs_by_the_retention_policy(
    make_server: Any, server_config: Any, until: Any, tmp_path: Path
) -> None:
    store = SqliteStore(tmp_path / "awaken.db")
    live = await make_server(store, server_config())
    tid = (await live.client.post("/v1/threads", json={})).json()["id"]
    for count, text in enumerate(("weather in Oslo", "weather in Rome"), start=1):
        body = {"messages": [{"role": "user", "content": text}]}
        assert (await live.client.post(f"/v1/threads/{tid}/messages", json=body)).status_code == 202

        async def all_done(count: int = count) -> bool:
            page = await store.list_runs(RunQuery(thread_id=tid))
            done = [r for r in page.items if r.status.value == "done"]
            return len(page.items) == len(done) == count

        await until(all_done)
    runs = (await store.list_runs(RunQuery(thread_id=tid))).items
    assert len(runs) == 2
    mailbox = live.state.mailbox
    await mailbox.gc()  # retention off by default: nothing pruned
    assert len((await store.list_runs(RunQuery(thread_id=tid))).items) == 2
    mailbox.config.retention = RetentionPolicy(max_finished_runs_per_thread=1)
    await mailbox.gc()
    kept = (await store.list_runs(RunQuery(thread_id=tid))).items
    newest = max(runs, key=lambda r: (r.updated_at, r.run_id))
    assert [r.run_id for r in kept] == [newest.run_id]
    assert await store.load_messages(tid) is not None
    await store.close()
