"""The cyclic garbage collector's policy in a serving process (``awaken serve``).

A run allocates thousands of short-lived container objects (tasks, futures, frames, events,
dicts); with CPython's default thresholds the collector then takes a third of the server's CPU
under load, mostly re-scanning objects that live as long as the process. Serving freezes what
startup built (never scanned again) and collects the young generation ~30 times less often; memory
held by cyclic garbage stays bounded by the larger young generation (a few MB).
"""

from __future__ import annotations

import gc

__all__ = ["SERVING_GC_THRESHOLDS", "tune_gc_for_serving"]

SERVING_GC_THRESHOLDS = (20_000, 20, 20)
"""``gc.set_threshold`` of a serving process (CPython's default: 700, 10, 10)."""


def tune_gc_for_serving(thresholds: tuple[int, int, int] = SERVING_GC_THRESHOLDS) -> None:
    """Collect once, freeze everything alive (the loaded application) and set ``thresholds``."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
