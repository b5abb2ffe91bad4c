"""Durability: ``awaken serve`` as a real subprocess, killed with SIGKILL mid-run, restarted.

The job of the killed process is re-claimed once its lease expires and finishes; the thread's
messages and runs are intact. Same on PostgreSQL, where two server processes also share work.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from awaken_contract.contract.journal import kind_of
from awaken_contract.contract.mailbox import MailboxJobStatus
from awaken_contract.testing.postgres import fresh_database
from awaken_runtime.testing import wait_until
from awaken_server.testing import (
    KILL_TEST_CONFIG,
    ServeProcess,
    read_journal,
    serve_processes,
    serving,
)

CONFIG = KILL_TEST_CONFIG


async def _poll(check: Any, limit_secs: float = 60.0) -> None:
    await wait_until(check, limit_secs, interval=0.1)


async def _kill_mid_run_and_recover(tmp_path: Path, store_url: str) -> None:
    first = ServeProcess(tmp_path, store_url, "first")
    try:
        await first.ready()
        async with httpx.AsyncClient(base_url=first.url, timeout=30) as c:
            tid = (await c.post("/v1/threads", json={"title": "durable"})).json()["id"]
            body = {"messages": [{"role": "user", "content": "poll 2"}]}
            r = await c.post(f"/v1/threads/{tid}/messages", json=body)
            assert r.status_code == 202

            async def claimed() -> bool:
                jobs = (await c.get(f"/v1/threads/{tid}/mailbox")).json()["items"]
                return bool(jobs) and jobs[0]["status"] == "Claimed"

            await _poll(claimed)
            job_id = (await c.get(f"/v1/threads/{tid}/mailbox")).json()["items"][0]["job_id"]
            await _poll(lambda: _async(bool(first.job_starts())))
    finally:
        first.kill()  # SIGKILL: no shutdown, the lease is left behind

    second = ServeProcess(tmp_path, store_url, "second")
    try:
        await second.ready()
        async with httpx.AsyncClient(base_url=second.url, timeout=30) as c:

            async def accepted() -> bool:
                jobs = (await c.get(f"/v1/threads/{tid}/mailbox")).json()["items"]
                return [j["status"] for j in jobs] == ["Accepted"]

            await _poll(accepted)
            job = (await c.get(f"/v1/threads/{tid}/mailbox")).json()["items"][0]
            assert job["job_id"] == job_id and job["attempt_count"] == 1  # reclaimed once
            runs = (await c.get(f"/v1/threads/{tid}/runs")).json()["items"]
            assert len(runs) == 1 and runs[0]["status"] == "done"
            assert runs[0]["termination_reason"] == {"type": "natural_end"}
            history = (await c.get(f"/v1/threads/{tid}/messages")).json()["messages"]
            assert [m["role"] for m in history] == ["user", "assistant", "tool", "assistant"]
            assert "waited_seconds" in history[2]["content"][0]["text"]
            thread = (await c.get(f"/v1/threads/{tid}")).json()
            assert thread["metadata"]["title"] == "durable"
        assert [j for j, _ in second.job_starts()] == [job_id]
    finally:
        second.stop()


async def _async(value: bool) -> bool:
    return value


async def test_sqlite_server_killed_mid_run_finishes_the_job_after_restart(tmp_path: Path) -> None:
    await _kill_mid_run_and_recover(tmp_path, f"sqlite:///{tmp_path / 'awaken.db'}")


@pytest.mark.postgres
async def test_postgres_server_killed_mid_run_finishes_the_job_after_restart(
    tmp_path: Path, postgres_dsn: str
) -> None:
    dsn = await fresh_database(postgres_dsn, "awaken_h6_kill")
    await _kill_mid_run_and_recover(tmp_path, dsn)


@pytest.mark.postgres
async def test_two_servers_on_one_postgres_run_each_job_exactly_once(
    tmp_path: Path, postgres_dsn: str
) -> None:
    dsn = await fresh_database(postgres_dsn, "awaken_h6_share")
    servers = serve_processes(tmp_path, dsn, "a", "b")
    try:
        for server in servers:
            await server.ready()
        clients = [httpx.AsyncClient(base_url=s.url, timeout=30) for s in servers]
        job_ids: list[str] = []
        for i in range(50):
            client = clients[i % 2]
            body = {"payload": {"text": f"weather in City{i}"}}
            r = await client.post(f"/v1/threads/share-{i}/mailbox", json=body)
            assert r.status_code == 201
            job_ids.append(r.json()["dispatch_id"])

        async def all_accepted() -> bool:
            for i in range(50):
                jobs = (await clients[0].get(f"/v1/threads/share-{i}/mailbox")).json()["items"]
                if [j["status"] for j in jobs] != ["Accepted"]:
                    return False
            return True

        await _poll(all_accepted, limit_secs=120)
        for client in clients:
            await client.aclose()
        starts = [job for s in servers for job, _ in s.job_starts()]
        assert Counter(starts) == Counter(job_ids)  # every job ran, none twice
        consumers = {consumer for s in servers for _, consumer in s.job_starts()}
        assert len(consumers) == 2  # both processes did work
        async with httpx.AsyncClient(base_url=servers[1].url) as c:
            runs = (await c.get("/v1/runs", params={"limit": 200, "status": "done"})).json()
        assert runs["total"] == 50
    finally:
        for server in servers:
            server.stop()


async def test_fresh_serve_without_config_or_key_runs_the_demo_on_sqlite(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path, None, "fresh", config=False)
    try:
        await server.ready()
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as c:
            assert (await c.get("/health")).json()["status"] == "healthy"
            body = {"agentId": "assistant", "messages": [{"role": "user", "content": "hello"}]}
            async with c.stream("POST", "/v1/runs", json=body) as r:
                lines = [line async for line in r.aiter_lines() if line.startswith("data: ")]
        assert '"event_type":"run_start"' in lines[0]
        assert '"tool_call_done"' in "".join(lines)
        assert '"termination":{"type":"natural_end"}' in lines[-1]
        assert "[offline demo model]" in "".join(lines)
        assert (tmp_path / ".awaken" / "awaken.db").exists()
        assert "offline demo model" in server.log()
        # the protocol adapters are mounted by `awaken serve`, not only by tests
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as c:
            card = await c.get("/.well-known/agent-card.json")
            assert card.status_code == 200 and card.json()["name"]
            chat = {
                "messages": [
                    {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}
                ]
            }
            async with c.stream("POST", "/v1/ai-sdk/chat", json=chat) as r:
                assert r.status_code == 200
                assert r.headers["x-vercel-ai-ui-message-stream"] == "v1"
                frames = [line async for line in r.aiter_lines() if line.startswith("data: ")]
            assert any('"type":"finish"' in frame for frame in frames)
    finally:
        server.stop()


def test_cli_version_and_run(tmp_path: Path) -> None:
    cmd = [sys.executable, "-c", "import sys; from awaken.cli import main; sys.exit(main())"]
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.pop("LLM_BASE_URL", None)
    version = subprocess.run([*cmd, "version"], capture_output=True, text=True, env=env)
    assert version.returncode == 0 and version.stdout.startswith("awaken ")
    run = subprocess.run(
        [*cmd, "run", "weather in Kyoto"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    assert "sunny in Kyoto" in run.stdout and "[natural_end]" in run.stdout
    bad = subprocess.run(
        [*cmd, "serve", "--store", "ftp://x"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert bad.returncode == 1 and "unsupported store URL scheme" in bad.stderr
    exposed = subprocess.run(
        [*cmd, "serve", "--store", "memory://", "--host", "0.0.0.0", "--port", "1"],
        capture_output=True,
        text=True,
        env={k: v for k, v in env.items() if k != "AWAKEN_ADMIN_API_BEARER_TOKEN"},
        cwd=tmp_path,
    )
    assert exposed.returncode == 1 and "refusing to serve the config API" in exposed.stderr


async def test_sigterm_drains_the_running_job_before_exit(tmp_path: Path) -> None:
    store_url = f"sqlite:///{tmp_path / 'drain.db'}"
    first = ServeProcess(tmp_path, store_url, "drain")
    try:
        await first.ready()
        async with httpx.AsyncClient(base_url=first.url, timeout=30) as c:
            tid = (await c.post("/v1/threads", json={})).json()["id"]
            body = {"messages": [{"role": "user", "content": "wait 1"}]}
            assert (await c.post(f"/v1/threads/{tid}/messages", json=body)).status_code == 202
            await _poll(lambda: _async(bool(first.job_starts())))
    finally:
        first.stop()  # SIGTERM: stop claiming, let the running job finish
    assert "Application shutdown complete" in first.log()  # uvicorn re-raises SIGTERM after
    second = ServeProcess(tmp_path, store_url, "after")
    try:
        await second.ready()
        async with httpx.AsyncClient(base_url=second.url, timeout=30) as c:
            jobs = (await c.get(f"/v1/threads/{tid}/mailbox")).json()["items"]
            assert [(j["status"], j["attempt_count"]) for j in jobs] == [("Accepted", 0)]
            runs = (await c.get(f"/v1/threads/{tid}/runs")).json()["items"]
            assert runs[0]["termination_reason"] == {"type": "natural_end"}
        assert second.job_starts() == []  # nothing left to re-run
    finally:
        second.stop()


PARK_LEASE_MS = 3_600_000
PARK_CONFIG = f"""
server:
  mailbox:
    lease_ms: 2000
    suspended_lease_ms: {PARK_LEASE_MS}
    lease_renewal_interval: 600
    sweep_interval: 0.3
"""


async def test_a_parked_run_holds_the_suspended_lease_from_the_moment_it_parks(
    tmp_path: Path,
) -> None:
    """Killed right after parking, the job is not reclaimed before its suspended lease ends.

    The renewal interval is longer than the running lease, so only the switch to the suspended
    lease at the moment of parking can keep the job from expiring with the running lease.
    """
    from awaken_stores import SqliteStore

    db = tmp_path / "park.db"
    server = ServeProcess(tmp_path, f"sqlite:///{db}", "park", config_text=PARK_CONFIG)
    try:
        await server.ready()
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as c:
            body = {"agentId": "assistant", "messages": [{"role": "user", "content": "approve"}]}
            async with c.stream("POST", "/v1/runs", json=body) as r:
                lines = [line async for line in r.aiter_lines() if line.startswith("data: ")]
        finish = json.loads(lines[-1][6:])
        assert finish["termination"] == {"type": "suspended"}
    finally:
        server.kill()  # right after the run parked: no renewal has happened
    killed_at = int(time.time() * 1000)
    async with SqliteStore(db) as store:
        jobs = await store.mailbox.list(finish["thread_id"], None, 10, 0)
        assert [j.status for j in jobs] == [MailboxJobStatus.CLAIMED]
        job = jobs[0]
        assert job.lease_until is not None
        # past the running lease (2 s after the kill) the job is still held ...
        assert await store.mailbox.reclaim_expired_leases(killed_at + 2_000 + 1, 10) == []
        # ... and once the suspended lease has run out, a sweep reclaims it
        reclaimed = await store.mailbox.reclaim_expired_leases(job.lease_until + 1, 10)
        assert [j.job_id for j in reclaimed] == [job.job_id]


SYNC_CONFIG = """
server:
  config_sync:
    poll_interval: 3600
"""


@pytest.mark.postgres
async def test_config_written_on_one_instance_is_served_by_another(
    tmp_path: Path, postgres_dsn: str
) -> None:
    """Two ``awaken serve`` processes on one PostgreSQL: an agent POSTed to A is served by B.

    The digest poll is an hour, so only the LISTEN/NOTIFY subscription can carry the change.
    """
    dsn = await fresh_database(postgres_dsn, "awaken_config_sync")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = ServeProcess(tmp_path / "a", dsn, "a", config_text=SYNC_CONFIG)
    b = ServeProcess(tmp_path / "b", dsn, "b", config_text=SYNC_CONFIG)
    try:
        await a.ready()
        await b.ready()
        async with (
            httpx.AsyncClient(base_url=a.url, timeout=30) as ca,
            httpx.AsyncClient(base_url=b.url, timeout=30) as cb,
        ):
            assert (await cb.get("/v1/agents/helper")).status_code == 404
            agent = {"id": "helper", "model_id": "demo", "system_prompt": "Help."}
            assert (await ca.post("/v1/config/agents", json=agent)).status_code == 201

            body = {"agentId": "helper", "messages": [{"role": "user", "content": "hello"}]}

            async def b_runs_helper() -> bool:
                # /v1/agents reads the store; a run needs B's runtime to know the agent
                async with cb.stream("POST", "/v1/runs", json=body) as r:
                    if r.status_code == 404:
                        return False
                    assert r.status_code == 200, (r.status_code, await r.aread())
                    lines = [line async for line in r.aiter_lines() if line.startswith("data: ")]
                assert json.loads(lines[-1][6:])["termination"] == {"type": "natural_end"}
                return True

            await _poll(b_runs_helper, limit_secs=30)
            assert (await ca.delete("/v1/config/agents/helper")).status_code == 204

            async def gone_from_b() -> bool:
                return (await cb.post("/v1/runs", json=body)).status_code == 404

            await _poll(gone_from_b, limit_secs=30)
        assert "config change applied" in b.log()
    finally:
        a.stop()
        b.stop()


# --------------------------------------------------------------------- events from the journal


def _frames(lines: list[str]) -> list[tuple[int, str]]:
    """``(id, data)`` of every SSE event in ``lines``."""
    frames: list[tuple[int, str]] = []
    current: int | None = None
    for line in lines:
        if line.startswith("id: "):
            current = int(line[4:])
        elif line.startswith("data: ") and current is not None:
            frames.append((current, line[6:]))
            current = None
    return frames


def _decoded(frames: list[tuple[int, str]]) -> list[tuple[int, Any]]:
    return [(i, json.loads(d)) for i, d in frames]


async def _events_from_two_instances(tmp_path: Path, store_url: str) -> None:
    a, b = serve_processes(tmp_path, store_url, "a", "b")
    async with serving([a, b]) as (ca, cb):
        tid = (await ca.post("/v1/threads", json={"title": "events"})).json()["id"]
        started: asyncio.Future[str] = asyncio.get_running_loop().create_future()

        async def on_a() -> list[str]:  # the run executes on A (a foreground run)
            body = {
                "agentId": "assistant",
                "threadId": tid,
                "messages": [{"role": "user", "content": "think 1 poll 1"}],
            }
            lines: list[str] = []
            async with ca.stream("POST", "/v1/runs", json=body) as r:
                async for line in r.aiter_lines():
                    lines.append(line)
                    if line.startswith("data: ") and not started.done():
                        started.set_result(json.loads(line[6:])["run_id"])
            return lines

        async def on_b(run_id: str, headers: dict[str, str] | None = None) -> list[str]:
            async with cb.stream("GET", f"/v1/runs/{run_id}/events", headers=headers) as r:
                assert r.status_code == 200
                return [line async for line in r.aiter_lines()]

        executing = asyncio.create_task(on_a())
        run_id = await asyncio.wait_for(started, 60)
        live_b = await on_b(run_id)  # connected while the run is executing on A
        live_a = await executing
        after_b = await on_b(run_id)  # and again after completion
        reset = await on_b(run_id, {"Last-Event-ID": "99999"})
    assert [j for j, _ in a.job_starts()] and not b.job_starts()  # it ran on A only
    frames_a, frames_b, frames_after = _frames(live_a), _frames(live_b), _frames(after_b)
    ids = [i for i, _ in frames_b]
    records = await read_journal(store_url, run_id)
    event_seqs = [e.seq for e in records if kind_of(e.record) == "event"]
    assert ids == event_seqs  # journal seqs: every committed event, in order, no gap
    assert json.loads(frames_b[0][1])["event_type"] == "run_start"
    assert json.loads(frames_b[-1][1])["event_type"] == "run_finish"
    assert frames_b == frames_after  # live and after completion: the same stream
    # The executing instance numbers its frames the same (PostgreSQL's JSONB may reorder
    # keys inside free-form payloads: compare decoded).
    assert _decoded(frames_a) == _decoded(frames_b)
    # A Last-Event-ID the journal never committed: told to reset to the last seq.
    assert reset[:2] == ["event: reset", f'data: {{"last_seq": {ids[-1]}}}']


async def test_sqlite_events_of_a_run_read_from_another_instance(tmp_path: Path) -> None:
    await _events_from_two_instances(tmp_path, f"sqlite:///{tmp_path / 'events.db'}")


@pytest.mark.postgres
async def test_postgres_events_of_a_run_read_live_from_another_instance(
    tmp_path: Path, postgres_dsn: str
) -> None:
    dsn = await fresh_database(postgres_dsn, "awaken_events_two")
    await _events_from_two_instances(tmp_path, dsn)
