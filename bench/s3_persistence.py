"""S3 persistence: a checkpoint at every step, fresh thread per run, SQLite file and PostgreSQL.

Each run is the S1 conversation (user prompt → assistant tool call → tool result → final answer)
persisted the way the runtime does it: after every step ``ThreadRunStore.checkpoint`` writes the
thread's messages so far and the updated ``RunRecord`` in one atomic unit — 4 checkpoints per run.
Next to it, in the same process and event loop, the raw-driver floor of
``/work/shared/bench/peers/s3_persistence.py``: one JSON row per step (the step's new messages)
committed at once with aiosqlite (WAL) / asyncpg (autocommit). When the runtime is importable a
third variant runs the real agent loop (``AgentRuntime.run``) over each store.

PostgreSQL: ``AWAKEN_TEST_POSTGRES_DSN`` if set, else a throwaway cluster started from the
installed server binaries; skipped when neither is available.

Usage: ``uv run python bench/s3_persistence.py [--block 200] [--rounds 4] [--warmup 50]``
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
from _checkpoints import PROMPT, s1_checkpoints
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.storage import ThreadRunStore
from awaken_contract.ids import new_id
from awaken_contract.testing.postgres import PostgresCluster, find_postgres_bindir
from awaken_stores import PostgresStore, SqliteStore

Runner = Callable[[], Awaitable[Any]]


# --------------------------------------------------------------------------- floor (raw drivers)


async def floor_run(persist: Callable[[list[dict[str, Any]]], Awaitable[None]]) -> str:
    """The peers' floor loop: plain dicts, one persist call per step."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPT}]
    await persist(messages[-1:])
    call = {"id": "c1", "name": "get_weather", "args": {"city": "Tokyo"}}
    assistant = {"role": "assistant", "content": "", "tool_calls": [call]}
    messages.append(assistant)
    await persist([assistant])
    result = {"role": "tool", "tool_call_id": "c1", "content": "sunny in Tokyo"}
    messages.append(result)
    await persist([result])
    final = {"role": "assistant", "content": "Sunny in Tokyo."}
    messages.append(final)
    await persist([final])
    return str(final["content"])


def floor_with(insert: Callable[[str, int, str], Awaitable[None]]) -> Runner:
    async def run() -> str:
        thread_id, step = uuid.uuid4().hex, 0

        async def persist(msgs: list[dict[str, Any]]) -> None:
            nonlocal step
            await insert(thread_id, step, json.dumps(msgs))
            step += 1

        return await floor_run(persist)

    return run


# --------------------------------------------------------------------------- awaken checkpoints


def checkpoints_with(store: ThreadRunStore) -> Runner:
    """One run = 4 checkpoints with the growing message list and the updated RunRecord."""

    async def run() -> str:
        return await s1_checkpoints(store, new_id(), [])

    return run


def runtime_with(store: ThreadRunStore) -> Runner | None:
    """The real agent loop over ``store`` when the runtime is available (else ``None``)."""
    try:
        from awaken import AgentRuntimeBuilder, AgentSpec, ModelSpec, RunRequest
        from awaken.contract.event_sink import NullEventSink
        from awaken.contract.executor import InferenceRequest, LlmExecutor
        from awaken.contract.inference import StopReason, StreamResult
        from awaken.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
        from awaken_contract.contract.content import ContentBlock
    except ImportError as exc:
        print(f"runtime variant skipped: {exc}")
        return None

    class Weather(Tool):
        def descriptor(self) -> ToolDescriptor:
            return ToolDescriptor("get_weather", "Get Weather", "Weather for a city")

        async def execute(self, args: dict[str, Any], ctx: ToolCallContext) -> ToolResult:
            return ToolResult.success("get_weather", {"forecast": f"sunny in {args['city']}"})

    class Scripted(LlmExecutor):
        async def execute(self, request: InferenceRequest) -> StreamResult:
            if request.messages[-1].role.value == "tool":
                return StreamResult(
                    content=[ContentBlock.text("Sunny in Tokyo.")],
                    tool_calls=[],
                    usage=None,
                    stop_reason=StopReason.END_TURN,
                    has_incomplete_tool_calls=False,
                )
            return StreamResult(
                content=[],
                tool_calls=[ToolCall("c1", "get_weather", {"city": "Tokyo"})],
                usage=None,
                stop_reason=StopReason.TOOL_USE,
                has_incomplete_tool_calls=False,
            )

        def name(self) -> str:
            return "scripted"

    try:
        runtime = (
            AgentRuntimeBuilder()
            .with_agent_spec(AgentSpec("assistant").with_model("m").with_max_rounds(5))
            .with_tool("get_weather", Weather())
            .with_provider("scripted", Scripted())
            .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
            .with_thread_run_store(store)
            .build()
        )
    except Exception as exc:  # the runtime is still being written
        print(f"runtime variant skipped: {type(exc).__name__}: {exc}")
        return None

    async def run() -> Any:
        request = RunRequest(new_id(), [Message.user(PROMPT)]).with_agent_id("assistant")
        return await runtime.run(request, NullEventSink())

    return run


# --------------------------------------------------------------------------- measurement


async def _block(run: Runner, n: int) -> list[int]:
    times = []
    for _ in range(n):
        start = time.perf_counter_ns()
        await run()
        times.append(time.perf_counter_ns() - start)
    return times


async def bench(
    runners: dict[str, Runner], warmup: int, block: int, rounds: int
) -> dict[str, float]:
    """Runners take turns in one event loop (order rotated per round); median µs per run."""
    names = list(runners)
    for name in names:
        await _block(runners[name], warmup)
    times: dict[str, list[int]] = {n: [] for n in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            gc.collect()
            times[name] += await _block(runners[name], block)
    return {n: statistics.median(ts) / 1e3 for n, ts in times.items()}


async def main(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="awaken-s3-"))
    runners: dict[str, Runner] = {}
    floor_db = await aiosqlite.connect(tmp / "floor.sqlite")
    await floor_db.executescript(
        "PRAGMA journal_mode=WAL;"
        "CREATE TABLE steps (thread_id TEXT, step INTEGER, data TEXT,"
        " PRIMARY KEY (thread_id, step));"
    )

    async def sqlite_insert(thread_id: str, step: int, data: str) -> None:
        await floor_db.execute("INSERT INTO steps VALUES (?, ?, ?)", (thread_id, step, data))
        await floor_db.commit()

    runners["floor+aiosqlite"] = floor_with(sqlite_insert)
    sqlite_store = SqliteStore(tmp / "awaken.sqlite")
    runners["awaken+sqlite"] = checkpoints_with(sqlite_store)
    runtime_store = SqliteStore(tmp / "runtime.sqlite")
    runtime_run = runtime_with(runtime_store)
    if runtime_run is not None:
        try:
            await runtime_run()
            runners["runtime+sqlite"] = runtime_run
        except Exception as exc:
            print(f"runtime variant skipped: {type(exc).__name__}: {exc}")

    cluster: PostgresCluster | None = None
    dsn = os.environ.get("AWAKEN_TEST_POSTGRES_DSN")
    if dsn is None and (bindir := find_postgres_bindir()) is not None:
        cluster = PostgresCluster(bindir)
        cluster.start()
        dsn = cluster.dsn
    pg: asyncpg.Connection | None = None
    pg_store: PostgresStore | None = None
    try:
        if dsn is not None:
            pg = await asyncpg.connect(dsn)
            await pg.execute(
                "DROP TABLE IF EXISTS bench_floor_steps;"
                "CREATE TABLE bench_floor_steps (thread_id text, step int, data jsonb,"
                " PRIMARY KEY (thread_id, step))"
            )
            conn = pg

            async def pg_insert(thread_id: str, step: int, data: str) -> None:
                await conn.execute(
                    "INSERT INTO bench_floor_steps VALUES ($1, $2, $3)", thread_id, step, data
                )

            runners["floor+asyncpg"] = floor_with(pg_insert)
            pg_store = PostgresStore(dsn, prefix=f"bench_{uuid.uuid4().hex[:8]}", max_size=2)
            runners["awaken+postgres"] = checkpoints_with(pg_store)
            pg_runtime = runtime_with(pg_store)
            if pg_runtime is not None:
                runners["runtime+postgres"] = pg_runtime
        else:
            print("PostgreSQL not available: Postgres variants skipped")

        medians = await bench(runners, args.warmup, args.block, args.rounds)
    finally:
        if pg_store is not None:
            await pg_store.drop_schema()
            await pg_store.close()
        if pg is not None:
            await pg.execute("DROP TABLE IF EXISTS bench_floor_steps")
            await pg.close()
        if cluster is not None:
            cluster.stop()
        await floor_db.close()
        await sqlite_store.close()
        await runtime_store.close()

    floors = {"sqlite": medians.get("floor+aiosqlite"), "postgres": medians.get("floor+asyncpg")}
    print(f"S3 persistence — median µs per run ({args.rounds}x{args.block} runs each)")
    for name, median in medians.items():
        backend = "postgres" if "postgres" in name or "asyncpg" in name else "sqlite"
        floor = floors[backend]
        ratio = f"{median / floor:5.2f}x floor" if floor else ""
        print(f"  {name:18s} {median:9.1f} µs  {ratio}")
    print("target: awaken ≤ 2x the floor (LangGraph's savers: 11x SQLite, 21x Postgres)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--block", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=4)
    asyncio.run(main(parser.parse_args(sys.argv[1:])))
