"""S3 with history: the S3 step checkpoints on a thread that already holds 0/100/1000 messages.

Each run seeds a fresh thread with N prior messages (not timed), then persists the S1
conversation the way the runtime does — ``ThreadRunStore.checkpoint(thread_id, prior + new,
run)`` after every step, 4 checkpoints per run — on a SQLite file and on PostgreSQL. Printed
side by side: median µs per run, the ratio to N = 0, and the bytes each step writes (SQLite:
bytes the process passed to ``write`` — WAL pages —, from ``/proc/self/io``; PostgreSQL: WAL
bytes the server generated, from ``pg_current_wal_insert_lsn()``). With append-only checkpoints
the cost must not grow with N (target: N = 1000 costs <= 1.5x N = 0).

PostgreSQL: ``AWAKEN_TEST_POSTGRES_DSN`` if set, else a throwaway cluster started from the
installed server binaries; skipped when neither is available.

Usage: ``uv run python bench/s3_history.py [--block 60] [--rounds 3] [--warmup 10]``
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg
from _checkpoints import STEPS, s1_checkpoints
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import ThreadRunStore
from awaken_contract.ids import new_id
from awaken_contract.testing.postgres import PostgresCluster, find_postgres_bindir
from awaken_stores import PostgresStore, SqliteStore

PRIORS = (0, 100, 1000)
ByteCounter = Callable[[], Awaitable[int]]
Flush = Callable[[], Awaitable[None]]


def prior_history(n: int) -> list[Message]:
    """``n`` alternating user/assistant messages of about 200 bytes each."""
    filler = "Earlier conversation about travel plans, hotels and the weather forecast. " * 2
    return [
        Message.user(f"{i}: {filler}") if i % 2 == 0 else Message.assistant(f"{i}: {filler}")
        for i in range(n)
    ]


async def seed(store: ThreadRunStore, prior: list[Message]) -> str:
    """A fresh thread holding ``prior``."""
    thread_id = new_id()
    if prior:
        await store.save_messages(thread_id, prior)
    return thread_id


async def checkpoints(store: ThreadRunStore, thread_id: str, prior: list[Message]) -> int:
    """The 4 step checkpoints of one S1 run after ``prior``; ns spent in them."""
    start = time.perf_counter_ns()
    await s1_checkpoints(store, thread_id, prior)
    return time.perf_counter_ns() - start


def process_written_bytes() -> int:
    """Bytes this process passed to write()/pwrite() so far (Linux ``/proc/self/io``)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    raise RuntimeError("/proc/self/io has no wchar line")


async def bytes_per_step(
    store: ThreadRunStore, prior: list[Message], counter: ByteCounter, runs: int
) -> float:
    """Mean bytes written per checkpoint over ``runs`` runs (seeding excluded)."""
    total = 0
    for _ in range(runs):
        thread_id = await seed(store, prior)
        before = await counter()
        await checkpoints(store, thread_id, prior)
        total += await counter() - before
    return total / (runs * STEPS)


async def timed(
    store: ThreadRunStore, prior: list[Message], flush: Flush, warmup: int, n: int
) -> list[int]:
    """ns per run of ``n`` runs after ``warmup`` untimed ones. The threads are seeded first and
    the seeding's writes flushed, so they are not charged to the timed checkpoints."""
    threads = [await seed(store, prior) for _ in range(warmup + n)]
    await flush()
    gc.collect()
    times = [await checkpoints(store, thread_id, prior) for thread_id in threads]
    return times[warmup:]


async def measure(
    name: str,
    store: ThreadRunStore,
    counter: ByteCounter,
    flush: Flush,
    args: argparse.Namespace,
) -> dict[int, tuple[float, float]]:
    """Per prior count: (median µs per run, bytes per step); priors interleaved per round."""
    histories = {n: prior_history(n) for n in PRIORS}
    times: dict[int, list[int]] = {n: [] for n in PRIORS}
    for r in range(args.rounds):
        order = PRIORS[r % len(PRIORS) :] + PRIORS[: r % len(PRIORS)]
        for n in order:
            times[n] += await timed(
                store, histories[n], flush, args.warmup if r == 0 else 0, args.block
            )
    result: dict[int, tuple[float, float]] = {}
    for n in PRIORS:
        written = await bytes_per_step(store, histories[n], counter, max(args.block // 6, 5))
        result[n] = (statistics.median(times[n]) / 1e3, written)
    print(f"  measured {name}", file=sys.stderr)
    return result


async def main(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="awaken-s3h-"))
    results: dict[str, dict[int, tuple[float, float]]] = {}
    sqlite_path = tmp / "awaken.sqlite"
    sqlite_store = SqliteStore(sqlite_path)

    async def sqlite_bytes() -> int:
        return process_written_bytes()

    async def sqlite_flush() -> None:
        # Move the seeding's WAL into the database now, not during a timed commit.
        with sqlite3.connect(sqlite_path) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    try:
        results["SQLite"] = await measure("sqlite", sqlite_store, sqlite_bytes, sqlite_flush, args)
    finally:
        await sqlite_store.close()

    cluster: PostgresCluster | None = None
    dsn = os.environ.get("AWAKEN_TEST_POSTGRES_DSN")
    if dsn is None and (bindir := find_postgres_bindir()) is not None:
        cluster = PostgresCluster(bindir)
        cluster.start()
        dsn = cluster.dsn
    try:
        if dsn is not None:
            stats = await asyncpg.connect(dsn)
            pg_store = PostgresStore(dsn, prefix=f"bench_{uuid.uuid4().hex[:8]}", max_size=2)

            async def wal_bytes() -> int:
                lsn = "pg_current_wal_insert_lsn()"
                return int(await stats.fetchval(f"SELECT pg_wal_lsn_diff({lsn}, '0/0')"))

            async def pg_flush() -> None:
                return None  # the server's checkpointer flushes in the background

            try:
                results["PostgreSQL"] = await measure(
                    "postgres", pg_store, wal_bytes, pg_flush, args
                )
            finally:
                await pg_store.drop_schema()
                await pg_store.close()
                await stats.close()
        else:
            print("PostgreSQL not available: Postgres variants skipped")
    finally:
        if cluster is not None:
            cluster.stop()

    print(f"S3 with history — 4 checkpoints per run, median of {args.rounds}x{args.block} runs")
    header = f"  {'prior msgs':>10} |"
    for backend in results:
        header += f" {backend + ' µs/run':>18} {'xN=0':>6} {'B/step':>9} |"
    print(header)
    for n in PRIORS:
        line = f"  {n:>10} |"
        for per_prior in results.values():
            micros, written = per_prior[n]
            ratio = micros / per_prior[0][0]
            line += f" {micros:>18.1f} {ratio:>6.2f} {written:>9.0f} |"
        print(line)
    print("target: 1000 prior messages <= 1.5x the cost of 0 prior messages")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--block", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(main(parser.parse_args(sys.argv[1:])))
