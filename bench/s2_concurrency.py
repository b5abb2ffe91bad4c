"""S2 — concurrency: 1000 runs started at once, every model call sleeps 50 ms.

Ideal wall time is 0.1 s (two model calls per run). Each scenario (the plain-asyncio floor and
Awaken) runs in a fresh subprocess, so its peak RSS (``VmHWM``, reset through
``/proc/self/clear_refs`` where the kernel allows) is its own. Prints wall time next to the
ideal, the peak RSS increase per in-flight run and the cyclic GC's share of the CPU time
(``gc.callbacks``); Awaken once more under the garbage-collector policy ``awaken serve`` applies
(``awaken_server.gc_policy``, ADR 0027). One burst is one sample of a noisy machine, so each
scenario runs ``--repeats`` bursts (each in a fresh subprocess, the scenarios interleaved) and
the medians are printed, with the walls' range. Targets: wall ≤ 1.5x ideal, ≤ 12 KB per run.

    uv run python bench/s2_concurrency.py [--runs 1000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _scenario import ANSWER, awaken_run, build_runtime, floor_run

DELAY = 0.05
IDEAL = 2 * DELAY


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} missing from /proc/self/status")


def reset_peak_rss() -> None:
    """Reset ``VmHWM`` to the current RSS (Linux ≥ 4.0; a no-op where not permitted)."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        pass


class _GcClock:
    """CPU time spent in cyclic-GC collections (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.ns = 0
        self._started = 0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.thread_time_ns()
        else:
            self.ns += time.thread_time_ns() - self._started


async def burst(run: Callable[[], Awaitable[str]], runs: int) -> dict[str, float]:
    """Wall seconds, peak RSS increase (KB) and the GC's share of CPU of ``runs`` concurrent
    runs."""
    await run()  # imports and caches warmed outside the measurement
    gc.collect()
    reset_peak_rss()
    before = _status_kb("VmHWM")
    clock = _GcClock()
    gc.callbacks.append(clock)
    cpu = time.process_time_ns()
    start = time.perf_counter()
    results = await asyncio.gather(*(run() for _ in range(runs)))
    wall = time.perf_counter() - start
    cpu = time.process_time_ns() - cpu
    gc.callbacks.remove(clock)
    assert all(r == ANSWER for r in results)
    return {"wall": wall, "rss_kb": _status_kb("VmHWM") - before, "gc_share": clock.ns / cpu}


def child(scenario: str, runs: int) -> None:
    if scenario == "floor":
        result = asyncio.run(burst(lambda: floor_run(DELAY), runs))
    elif scenario == "awaken-serving-gc":
        from awaken_server.gc_policy import tune_gc_for_serving

        runtime = build_runtime(DELAY)
        tune_gc_for_serving()  # what ``awaken serve`` does at startup
        result = asyncio.run(burst(lambda: awaken_run(runtime), runs))
    else:
        runtime = build_runtime(DELAY)
        result = asyncio.run(burst(lambda: awaken_run(runtime), runs))
    print(json.dumps(result))


def measure(scenario: str, runs: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", scenario, "--runs", str(runs)],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


SCENARIOS = ("floor", "awaken", "awaken-serving-gc")


def main(runs: int, repeats: int) -> None:
    print(
        f"S2 concurrency ({runs} runs at once, model calls sleep {DELAY * 1000:.0f} ms;"
        f" medians of {repeats} bursts, each in a fresh process)"
    )
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in SCENARIOS}
    for _ in range(repeats):  # interleaved, so a slow period hits every scenario alike
        for name in SCENARIOS:
            samples[name].append(measure(name, runs))
    for name in SCENARIOS:
        walls = [s["wall"] for s in samples[name]]
        wall = statistics.median(walls)
        rss_kb = statistics.median(s["rss_kb"] for s in samples[name])
        gc_share = statistics.median(s["gc_share"] for s in samples[name])
        print(
            f"  {name:17s}: wall {wall:6.3f} s = {wall / IDEAL:4.2f}x ideal "
            f"({IDEAL:.1f} s; bursts {min(walls) / IDEAL:4.2f}-{max(walls) / IDEAL:4.2f}x)"
            f"   peak RSS +{rss_kb / 1024:6.1f} MB = {rss_kb / runs:5.1f} KB per in-flight run"
            f"   GC {gc_share:4.0%} of CPU"
        )
    print("  targets: awaken wall <= 1.5x ideal, <= 12 KB RSS per in-flight run")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5, help="bursts per scenario (median)")
    parser.add_argument("--child", choices=["floor", "awaken", "awaken-serving-gc"])
    args = parser.parse_args()
    if args.child:
        child(args.child, args.runs)
    else:
        main(args.runs, args.repeats)
