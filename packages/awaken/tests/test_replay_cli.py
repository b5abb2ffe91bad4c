"""``awaken replay RUN_ID`` as a subprocess over real SQLite files written by a real ``awaken
serve`` and by ``awaken run`` (the offline demo model, its tools): identical (0), a tampered
journal (1), runs that cannot replay (2)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import msgspec
from awaken_contract.contract.event import ToolCallDone
from awaken_contract.contract.journal import EventRecord
from awaken_contract.contract.storage import RunQuery
from awaken_contract.contract.tool import ToolResult
from awaken_runtime.testing import wait_until
from awaken_stores import SqliteStore

CLI = [sys.executable, "-c", "import sys; from awaken.cli import main; sys.exit(main())"]


def offline() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.pop("LLM_BASE_URL", None)
    env.pop("AWAKEN_STORE_URL", None)
    return env


def awaken(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=offline(),
        cwd=tmp,
        timeout=120,
    )


def run_ids(db: Path, thread_id: str | None = None) -> list[str]:
    async def read() -> list[str]:
        store = SqliteStore(db)
        try:
            page = await store.list_runs(RunQuery(thread_id=thread_id))
            return [r.run_id for r in page.items]
        finally:
            await store.close()

    return asyncio.run(read())


def forge_tool_result(db: Path, run_id: str) -> int:
    """Rewrite the run's journaled ``tool_call_done`` with another result; its seq."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT seq, data FROM awaken_journal WHERE run_id = ? AND kind = 'event'", (run_id,)
        ).fetchall()
        for seq, data in rows:
            record = msgspec.json.decode(data, type=EventRecord)
            if isinstance(record.event, ToolCallDone):
                forged = msgspec.structs.replace(
                    record.event, result=ToolResult.success("get_weather", {"forecast": "snow"})
                )
                conn.execute(
                    "UPDATE awaken_journal SET data = ? WHERE run_id = ? AND seq = ?",
                    (msgspec.json.encode(EventRecord(forged)).decode(), run_id, seq),
                )
                return int(seq)
    raise AssertionError("no tool_call_done journaled")


def test_replay_of_a_cli_run(tmp_path: Path) -> None:
    db = tmp_path / "awaken.db"
    store = f"sqlite:///{db}"
    ran = awaken(tmp_path, "run", "weather in Paris", "--store", store, "--thread", "t-replay")
    assert ran.returncode == 0, ran.stderr
    assert "sunny in Paris" in ran.stdout
    (run_id,) = run_ids(db, "t-replay")

    same = awaken(tmp_path, "replay", run_id, "--store", store)
    assert same.returncode == 0, same.stderr
    assert same.stdout.strip() == "identical"

    unknown = awaken(tmp_path, "replay", "no-such-run", "--store", store)
    assert unknown.returncode == 2
    assert "unknown run: no-such-run" in unknown.stderr

    seq = forge_tool_result(db, run_id)
    forged = awaken(tmp_path, "replay", run_id, "--store", store)
    assert forged.returncode == 1, forged.stderr
    assert f"diverged at seq {seq}: tool_call_done event differs" in forged.stdout
    assert "result.data.forecast" in forged.stdout


def test_a_waiting_run_is_not_replayed(tmp_path: Path) -> None:
    db = tmp_path / "awaken.db"
    store = f"sqlite:///{db}"
    parked = awaken(tmp_path, "run", "approve the rollout", "--store", store, "--thread", "t-wait")
    assert parked.returncode != 0 and "[suspended]" in parked.stdout
    (run_id,) = run_ids(db, "t-wait")

    refused = awaken(tmp_path, "replay", run_id, "--store", store)
    assert refused.returncode == 2
    assert f"run {run_id} is waiting, not finished" in refused.stderr


def test_the_default_store_is_serves(tmp_path: Path) -> None:
    # no --store: the SQLite file `awaken serve` uses by default, under the working directory
    ran = awaken(tmp_path, "run", "weather in Rome", "--thread", "t-default")
    assert ran.returncode == 0, ran.stderr
    (run_id,) = run_ids(tmp_path / ".awaken" / "awaken.db", "t-default")
    same = awaken(tmp_path, "replay", run_id)
    assert same.returncode == 0, same.stderr
    assert same.stdout.strip() == "identical"


async def serve_two_runs(base: str, server: subprocess.Popen[bytes]) -> None:
    """Wait for ``awaken serve`` at ``base``, then stream two runs to their ``run_finish``."""
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:

        async def healthy() -> bool:
            assert server.poll() is None, "awaken serve exited (see serve.log)"
            try:
                return (await client.get("/health")).status_code == 200
            except httpx.TransportError:
                return False

        await wait_until(healthy, 60, interval=0.05, message="awaken serve is up")
        for prompt in ("weather in Oslo", "what can you do?"):
            body = {"agentId": "assistant", "messages": [{"role": "user", "content": prompt}]}
            async with client.stream("POST", "/v1/runs", json=body) as response:
                assert response.status_code == 200
                text = "".join([chunk async for chunk in response.aiter_text()])
            assert '"event_type":"run_finish"' in text


def test_replay_of_runs_served_by_awaken_serve(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [*CLI, "serve", "--port", str(port)],  # the default store: ./.awaken/awaken.db
            stdout=out,
            stderr=subprocess.STDOUT,
            env=offline(),
            cwd=tmp_path,
        )
        try:
            asyncio.run(serve_two_runs(f"http://127.0.0.1:{port}", server))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)

    runs = run_ids(tmp_path / ".awaken" / "awaken.db")
    assert len(runs) == 2
    for run_id in runs:
        same = awaken(tmp_path, "replay", run_id)
        assert same.returncode == 0, same.stdout + same.stderr
        assert same.stdout.strip() == "identical"
