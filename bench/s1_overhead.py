"""S1 — per-run overhead: sequential runs (2 inferences + 1 tool, no persistence).

Every run is timed on its own (``perf_counter_ns``) and the figure is the **per-run median**
(and p90), for Awaken and for the plain-asyncio floor measured the same way in the same process
(as the peers' harness in ``/work/shared/bench/peers`` does: blocks alternate between variants,
``gc.collect()`` between blocks, GC otherwise on). The same method gives the costs of 5 no-op
plugins (one hook at every phase each), of 100 registered tools next to 1, and of a memory store
holding 20 k runs next to an empty one.

    uv run python bench/s1_overhead.py [--runs 2000] [--stored 20000]

Targets: median ≤ 60 µs; 5 no-op plugins add ≤ 100 µs; 100 tools = 1 tool ± 10 %; a memory store
with 20 k runs within 10 % of an empty one.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _scenario import ANSWER, NoOpPlugin, awaken_run, build_runtime, floor_run
from awaken.contract.lifecycle import RunStatus
from awaken.contract.storage import RunRecord
from awaken.stores import InMemoryStore

WARMUP = 300
BLOCK = 500
ROUNDS = 5

Run = Callable[[], Awaitable[str]]


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


async def _block(run: Run, runs: int, into: list[float]) -> None:
    clock = time.perf_counter_ns
    for _ in range(runs):
        start = clock()
        await run()
        into.append((clock() - start) / 1e3)


async def measure(variants: dict[str, Run], runs: int) -> dict[str, list[float]]:
    """µs of every single run per variant; blocks alternate so load hits all variants alike."""
    for run in variants.values():
        assert await run() == ANSWER
        await _block(run, WARMUP, [])
    times: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    block = max(1, min(BLOCK, runs // ROUNDS))
    for r in range(max(1, runs // block)):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            gc.collect()
            await _block(variants[name], block, times[name])
    return times


async def filled_store(runs: int) -> InMemoryStore:
    """A memory store already holding ``runs`` finished runs on ``runs`` threads."""
    store = InMemoryStore()
    for i in range(runs):
        await store.create_run(
            RunRecord(
                run_id=f"old-run-{i}",
                thread_id=f"old-thread-{i}",
                agent_id="bench",
                status=RunStatus.DONE,
                created_at=i,
                updated_at=i,
            )
        )
    return store


def _line(name: str, values: list[float]) -> str:
    return f"  {name:28s}: median {statistics.median(values):8.1f} µs/run   p90 {p90(values):8.1f}"


async def main(runs: int, stored: int) -> None:
    base = build_runtime()
    plugins = build_runtime(plugins=[NoOpPlugin(i) for i in range(5)])
    tools = build_runtime(extra_tools=99)
    empty = build_runtime(store=InMemoryStore())
    full = build_runtime(store=await filled_store(stored))
    variants: dict[str, Run] = {
        "floor (plain asyncio)": floor_run,
        "awaken": lambda: awaken_run(base),
        "awaken + 5 no-op plugins": lambda: awaken_run(plugins),
        "awaken, 100 tools": lambda: awaken_run(tools),
        "awaken, memory store empty": lambda: awaken_run(empty),
        f"awaken, memory store {stored // 1000}k": lambda: awaken_run(full),
    }
    times = await measure(variants, runs)
    med = {name: statistics.median(values) for name, values in times.items()}
    n = len(times["awaken"])
    print(f"S1 per-run overhead ({n} runs per variant after {WARMUP} warm-up; per-run medians)")
    for name, values in times.items():
        print(_line(name, values))
    a = med["awaken"]
    print(f"  ratio awaken/floor            : {a / med['floor (plain asyncio)']:.0f}x")
    print(f"  awaken median                 : {a:.1f} µs   (target <= 60 µs)")
    added = med["awaken + 5 no-op plugins"] - a
    print(f"  5 no-op plugins add           : {added:+.1f} µs   (target <= 100 µs)")
    tools_ratio = med["awaken, 100 tools"] / a - 1
    print(f"  100 tools / 1 tool            : {tools_ratio:+.1%}  (target ±10 %)")
    big = med[f"awaken, memory store {stored // 1000}k"]
    ratio = big / med["awaken, memory store empty"] - 1
    print(f"  memory store {stored // 1000}k / empty       : {ratio:+.1%}  (target within 10 %)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--stored", type=int, default=20_000)
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.stored))
