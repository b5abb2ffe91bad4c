"""Time-ordered identifiers (UUID v7) and clocks used across Awaken."""

from __future__ import annotations

import os
import time


def new_id() -> str:
    """Return a new UUID v7 string (time ordered, random tail)."""
    ms = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76  # version 7
    value |= ((rand >> 62) & 0xFFF) << 64  # rand_a (12 bits)
    value |= 0b10 << 62  # RFC 4122 variant
    value |= rand & ((1 << 62) - 1)  # rand_b (62 bits)
    h = f"{value:032x}"  # formatting directly is ~3x cheaper than uuid.UUID(int=...)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def now_ms() -> int:
    """Current unix time in milliseconds."""
    return time.time_ns() // 1_000_000


def now_secs() -> int:
    """Current unix time in seconds."""
    return int(time.time())
