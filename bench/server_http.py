"""End-to-end server throughput: N runs through ``POST /v1/runs``, each read to ``run_finish``.

Each server runs in its own subprocess (uvicorn on a loopback socket): Awaken on the memory
store, Awaken on a SQLite file (``synchronous=FULL``, the durable default) and a bare Starlette
endpoint streaming the very same SSE frames (captured from one Awaken run) with nothing else
going on. The client is this process: a lean raw-asyncio HTTP/1.1 client (``_loadgen.py``, one
keep-alive connection per concurrent run); the floor is measured through httpx as well, to show
what a full client costs. The agent is the offline demo model asked for the weather: 2
inferences + 1 tool call per run. For every server and concurrency 1/10/50 it prints runs/s and
p50/p99 latency per run, the CPU time the server process spent per run (robust on a shared
machine); for SQLite also the commits and worker-thread hops per run, counted in
the server process (a statement trace on the store's connection, a counter on aiosqlite's
per-call primitive).

    uv run python bench/server_http.py [--runs 400]

Targets: memory store ≥ 50 % of the bare endpoint's runs/s; SQLite ≥ 400 runs/s at concurrency
50 with ≤ 4 commits per run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from _loadgen import load

CONCURRENCY = (1, 10, 50)
BODY = {"agentId": "assistant", "messages": [{"role": "user", "content": "weather in Paris"}]}
Asgi = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


# --------------------------------------------------------------------------- server side
class _Counters:
    commits = 0
    hops = 0
    gc_seconds = 0.0
    gc_started = 0.0
    in_txn = False
    wrote = False


_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def _trace(statement: str) -> None:
    """Count durable commits: a COMMIT after a write, or a write outside a transaction (a
    read-only transaction's COMMIT writes nothing and is not counted)."""
    head = statement.lstrip()[:8].upper()
    if head.startswith("BEGIN"):
        _Counters.in_txn, _Counters.wrote = True, False
    elif head.startswith(("COMMIT", "END")):
        _Counters.commits += _Counters.wrote
        _Counters.in_txn = _Counters.wrote = False
    elif head.startswith("ROLLBACK"):
        _Counters.in_txn = _Counters.wrote = False
    elif head.startswith(_WRITES):
        if _Counters.in_txn:
            _Counters.wrote = True
        else:
            _Counters.commits += 1  # an autocommit write is a commit of its own


def _count_hops() -> None:
    import aiosqlite

    original = aiosqlite.Connection._execute

    async def counted(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        _Counters.hops += 1
        return await original(self, fn, *args, **kwargs)

    aiosqlite.Connection._execute = counted  # type: ignore[method-assign]


def _count_gc(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _Counters.gc_started = time.perf_counter()
    else:
        _Counters.gc_seconds += time.perf_counter() - _Counters.gc_started


def _with_counters(app: Asgi) -> Asgi:
    """``app`` plus ``GET /bench/counters`` (commits and thread hops so far)."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/bench/counters":
            counters = {
                "commits": _Counters.commits,
                "hops": _Counters.hops,
                "gc_ms": _Counters.gc_seconds * 1e3,
            }
            body = json.dumps(counters).encode()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    return wrapped


async def _awaken_app(store_kind: str, directory: str) -> Asgi:
    from awaken_server.bootstrap import default_system_config
    from awaken_server.serve import prepare_app
    from awaken_server.state import ServerConfig
    from awaken_stores import InMemoryStore

    store: Any
    if store_kind == "sqlite":
        from awaken_stores.sqlite import SqliteStore, _in_thread

        _count_hops()
        store = SqliteStore(Path(directory) / "awaken.db")
        conn = await store._db._connection()
        await _in_thread(conn, lambda c: c.set_trace_callback(_trace))
    else:
        store = InMemoryStore()
    setup = default_system_config({})
    app, _ = await prepare_app(setup, store, ServerConfig(max_concurrent_requests=0))
    return _with_counters(app)


def _bare_app(frames_file: str) -> Asgi:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    payload = Path(frames_file).read_bytes()
    frames = [f + b"\n\n" for f in payload.split(b"\n\n") if f]

    async def endpoint(request: Request) -> StreamingResponse:
        await request.body()

        async def stream() -> AsyncIterator[bytes]:
            for frame in frames:
                yield frame

        return StreamingResponse(stream(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/runs", endpoint, methods=["POST"])])  # type: ignore[return-value]


async def _serve_child(kind: str, arg: str) -> None:

    import gc
    import socket

    import uvicorn
    from awaken_server.gc_policy import SERVING_GC_THRESHOLDS, tune_gc_for_serving

    app = _bare_app(arg) if kind == "bare" else await _awaken_app(kind, arg)
    gc.callbacks.append(_count_gc)
    # as ``awaken serve`` does (AWAKEN_BENCH_GC=700,10,10: CPython's defaults, for comparison)
    wanted = os.environ.get("AWAKEN_BENCH_GC")
    thresholds = tuple(int(x) for x in wanted.split(",")) if wanted else SERVING_GC_THRESHOLDS
    tune_gc_for_serving(thresholds)  # type: ignore[arg-type]
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets whose proto says TCP.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(256)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False, backlog=256)
    server = uvicorn.Server(config)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    await server.serve(sockets=[sock])


# --------------------------------------------------------------------------- client side
async def _one_run(client: httpx.AsyncClient) -> tuple[float, bytes]:
    start = time.perf_counter()
    chunks: list[bytes] = []
    async with client.stream("POST", "/v1/runs", json=BODY) as response:
        if response.status_code != 200:
            raise RuntimeError(f"POST /v1/runs answered {response.status_code}")
        async for chunk in response.aiter_raw():
            chunks.append(chunk)
    body = b"".join(chunks)
    if b"run_finish" not in body:
        raise RuntimeError(f"the stream ended without run_finish: {body[-200:]!r}")
    return time.perf_counter() - start, body


async def _load(url: str, runs: int, concurrency: int) -> tuple[float, list[float]]:
    """(runs/s, latency of every run in seconds) for ``runs`` runs, ``concurrency`` at a time."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        for _ in range(min(20, runs)):
            await _one_run(client)  # warm-up (imports, connections, caches)
        latencies: list[float] = []
        todo = iter(range(runs))

        async def worker() -> None:
            for _ in todo:
                latencies.append((await _one_run(client))[0])

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return runs / (time.perf_counter() - start), latencies


def _commit_floor(directory: str, commits: int = 200) -> float:
    """Sequential durable commits per second of a bare SQLite file (WAL, ``synchronous=FULL``,
    one 2 KB row each): what this disk allows before any Awaken code runs."""
    import sqlite3

    conn = sqlite3.connect(Path(directory) / "floor.db", isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, data TEXT)")
        start = time.perf_counter()
        for _ in range(commits):
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO t (data) VALUES (?)", ("x" * 2048,))
            conn.execute("COMMIT")
        return commits / (time.perf_counter() - start)
    finally:
        conn.close()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(q * len(ordered)), len(ordered) - 1)] * 1e3


class _Child:
    def __init__(self, kind: str, arg: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", kind, arg],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("PORT "):
            self.proc.kill()
            raise RuntimeError(f"the {kind} server did not start (said {line!r})")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}"

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the server process used so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


async def _counters(url: str) -> dict[str, float]:
    async with httpx.AsyncClient(base_url=url) as client:
        return dict((await client.get("/bench/counters")).json())


async def main(runs: int) -> None:
    results: dict[str, dict[int, tuple[float, list[float]]]] = {}
    per_run: dict[int, tuple[float, float]] = {}
    cpu_ms: dict[tuple[str, int], float] = {}
    body = json.dumps(BODY).encode()
    with tempfile.TemporaryDirectory() as directory:
        frames_file = str(Path(directory) / "frames.sse")
        for kind in ("memory", "sqlite", "bare"):
            child = _Child(kind, frames_file if kind == "bare" else directory)
            try:
                if kind == "memory":
                    async with httpx.AsyncClient(base_url=child.url, timeout=60) as client:
                        _, frames = await _one_run(client)
                    Path(frames_file).write_bytes(frames)  # noqa: ASYNC240 - before timing
                results[kind] = {}
                for concurrency in CONCURRENCY:
                    before = await _counters(child.url) if kind == "sqlite" else None
                    cpu = child.cpu_seconds()
                    results[kind][concurrency] = await load(child.url, body, runs, concurrency)
                    # (the 20 warm-up runs are included)
                    cpu_ms[kind, concurrency] = (child.cpu_seconds() - cpu) * 1e3 / (runs + 20)
                    if before is not None:
                        after = await _counters(child.url)
                        total = runs + min(20, runs)  # the warm-up runs are counted too
                        per_run[concurrency] = (
                            (after["commits"] - before["commits"]) / total,
                            (after["hops"] - before["hops"]) / total,
                        )
                if kind == "bare":  # what the client itself costs: the same floor via httpx
                    results["httpx"] = {c: await _load(child.url, runs, c) for c in CONCURRENCY}
            finally:
                child.stop()
        floor_commits = _commit_floor(directory)
    print(f"server HTTP bench: {runs} runs per point, POST /v1/runs read to run_finish")
    print("  (offline demo model: 2 inferences + 1 tool per run; servers in subprocesses;")
    print("   client: raw asyncio streams, one keep-alive connection per concurrent run)")
    for kind, label in (
        ("bare", "bare Starlette (floor)"),
        ("httpx", "  same floor, httpx"),
        ("memory", "awaken, memory store"),
        ("sqlite", "awaken, SQLite FULL"),
    ):
        for concurrency, (rate, lat) in results[kind].items():
            extra = (
                f"   server CPU {cpu_ms[kind, concurrency]:5.2f} ms/run" if kind != "httpx" else ""
            )
            if kind == "sqlite":
                commits, hops = per_run[concurrency]
                extra += f"   {commits:4.1f} commits/run  {hops:5.1f} thread hops/run"
            floor = results["bare"][concurrency][0]
            if kind == "memory":  # the earlier method: the floor as an httpx client sees it
                extra += f"   ({rate / results['httpx'][concurrency][0]:4.0%} of httpx floor)"
            print(
                f"  {label:23s} c={concurrency:<3d} {rate:8.0f} runs/s "
                f"({rate / floor:4.0%} of floor)"
                f"   p50 {_pct(lat, 0.5):7.2f} ms  p99 {_pct(lat, 0.99):7.2f} ms{extra}"
            )
    print(
        f"  bare SQLite FULL on this disk: {floor_commits:.0f} sequential commits/s "
        f"({1e3 / floor_commits:.2f} ms per fsync'd commit)"
    )
    print("  targets: memory >= 50 % of floor; SQLite >= 400 runs/s at c=50, <= 4 commits/run")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--serve", nargs=2, metavar=("KIND", "ARG"))
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve_child(*args.serve))
    else:
        asyncio.run(main(args.runs))
