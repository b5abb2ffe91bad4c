"""S1 — per-run overhead: sequential runs (2 inferences + 1 tool, no persistence).

Prints median / p90 µs per run for Awaken and for the plain-asyncio floor, measured in the
same process, and their ratio. Target: Awaken median ≤ 250 µs per run.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _scenario import ANSWER, awaken_run, build_runtime, floor_run

WARMUP = 300
BLOCK = 500
ROUNDS = 5


async def measure(run: Callable[[], Awaitable[str]]) -> list[float]:
    """µs per run of each block (after a warm-up)."""
    for _ in range(WARMUP):
        assert await run() == ANSWER
    per_run: list[float] = []
    gc.collect()
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(BLOCK):
            await run()
        per_run.append((time.perf_counter() - start) / BLOCK * 1e6)
    return per_run


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


async def main() -> None:
    runtime = build_runtime()
    floor = await measure(floor_run)
    awaken = await measure(lambda: awaken_run(runtime))
    f_med, a_med = statistics.median(floor), statistics.median(awaken)
    print(f"S1 per-run overhead ({ROUNDS}x{BLOCK} runs after {WARMUP} warm-up)")
    print(f"  floor  (plain asyncio): median {f_med:8.1f} µs/run   p90 {p90(floor):8.1f}")
    print(f"  awaken               : median {a_med:8.1f} µs/run   p90 {p90(awaken):8.1f}")
    print(f"  ratio awaken/floor   : {a_med / f_med:.0f}x   target: awaken median <= 250 µs")


if __name__ == "__main__":
    asyncio.run(main())
