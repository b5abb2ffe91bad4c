"""S2 — concurrency: 1000 runs started at once, every model call sleeps 50 ms.

Ideal wall time is 0.1 s (two model calls per run). Prints wall time and peak RSS increase for
Awaken and for the plain-asyncio floor, from one process. Targets: ≤ 0.5 s and ≤ 20 MB.
"""

from __future__ import annotations

import asyncio
import gc
import resource
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _scenario import ANSWER, awaken_run, build_runtime, floor_run

RUNS = 1000
DELAY = 0.05


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (MB)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def burst(run: Callable[[], Awaitable[str]]) -> tuple[float, float]:
    """(wall seconds, peak RSS increase MB) of RUNS concurrent runs."""
    gc.collect()
    before = peak_rss_mb()
    start = time.perf_counter()
    results = await asyncio.gather(*(run() for _ in range(RUNS)))
    wall = time.perf_counter() - start
    assert all(r == ANSWER for r in results)
    return wall, peak_rss_mb() - before


async def main() -> None:
    floor_wall, floor_rss = await burst(lambda: floor_run(DELAY))
    runtime = build_runtime(DELAY)
    await awaken_run(runtime)  # warm imports and caches outside the measurement
    wall, rss = await burst(lambda: awaken_run(runtime))
    print(f"S2 concurrency ({RUNS} runs at once, model calls sleep {DELAY * 1000:.0f} ms)")
    print(f"  floor  (plain asyncio): wall {floor_wall:6.3f} s   peak RSS +{floor_rss:6.1f} MB")
    print(f"  awaken               : wall {wall:6.3f} s   peak RSS +{rss:6.1f} MB")
    print("  targets: awaken wall <= 0.5 s, RSS increase <= 20 MB (ideal wall 0.1 s)")


if __name__ == "__main__":
    asyncio.run(main())
