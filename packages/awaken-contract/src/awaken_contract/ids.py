"""Time-ordered identifiers (UUID v7), the one rule every client-supplied id follows, clocks.

``check_id`` is applied at the HTTP edge (thread, run, agent, call and config ids) and by the
file and SQLite stores, so every store accepts and lists the same ids::

    check_id("thread-1", "thread id")   # -> "thread-1"
    check_id("../etc", "thread id")     # raises InvalidId
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator

from awaken_contract.errors import InvalidId

MAX_ID_LENGTH = 128
"""Longest accepted id, in characters."""

_BAD_CHAR = re.compile(r"[/\\\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""A path separator or a control character (C0, DEL, C1, line/paragraph separators)."""


def id_problem(value: str) -> str | None:
    """Why ``value`` is not a valid id (``None`` when it is).

    The rule: 1..=128 characters, not blank, no control characters (C0, DEL, C1, line/paragraph
    separators), no leading dot, no path separators (``/``, ``\\``).
    """
    if not value.strip():
        return "cannot be empty"
    if len(value) > MAX_ID_LENGTH:
        return f"is longer than {MAX_ID_LENGTH} characters"
    if value.startswith("."):
        return "must not start with a dot"
    bad = _BAD_CHAR.search(value)
    if bad is not None:
        if bad.group() in "/\\":
            return "must not contain path separators"
        return "contains invalid characters (control characters)"
    return None


def check_id(value: str, what: str = "id") -> str:
    """``value`` when it follows the id rule, else raise :class:`InvalidId` (``"<what> <why>"``)."""
    problem = id_problem(value)
    if problem is not None:
        raise InvalidId(what, problem)
    return value


_TAIL_BYTES = 10  # random bytes per id (80 bits, 74 used)
_TAILS_PER_BATCH = 256
_MS_MASK = (1 << 48) - 1
#: Byte 0 of a tail: the version nibble 7 and 4 random bits; byte 2: the RFC 4122 variant
#: (``10xx``) and 6 random bits.
_VERSION_BYTE = bytes(0x70 | (b & 0x0F) for b in range(256))
_VARIANT_BYTE = bytes(0x80 | (b & 0x3F) for b in range(256))
#: Where hex digit ``j`` of a tail's 20 lands in its 23-byte slot ``7aaa-vbbb-bbbbbbbbbbbb ``.
_SLOT = 23
_DIGIT_AT = [j + (j >= 4) + (j >= 8) for j in range(2 * _TAIL_BYTES)]
_time_ns = time.time_ns
_tails: Iterator[str] = iter(())
_stamp: tuple[int, str] = (-1, "")  # (unix ms, its formatted prefix), replaced as one value


def _reset_tails() -> None:
    global _tails
    _tails = iter(())


os.register_at_fork(after_in_child=_reset_tails)  # a child never reuses its parent's batch


def _tail_batch() -> Iterator[str]:
    """Formatted random tails ``7aaa-vbbb-bbbbbbbbbbbb`` (version 7, 12 bits rand_a, the
    variant with 2 random bits, 60 more bits rand_b) from one ``os.urandom`` call, laid out
    by strided slice copies (no Python work per id)."""
    n = _TAILS_PER_BATCH
    data = bytearray(os.urandom(_TAIL_BYTES * n))
    data[0::_TAIL_BYTES] = data[0::_TAIL_BYTES].translate(_VERSION_BYTE)
    data[2::_TAIL_BYTES] = data[2::_TAIL_BYTES].translate(_VARIANT_BYTE)
    digits = data.hex().encode()
    step = 2 * _TAIL_BYTES
    out = bytearray(b" " * (_SLOT * n))
    for j, at in enumerate(_DIGIT_AT):
        out[at::_SLOT] = digits[j::step]
    out[4::_SLOT] = b"-" * n
    out[9::_SLOT] = b"-" * n
    return iter(out.decode().split())


def _random_tail() -> str:
    """A formatted random tail; one ``os.urandom`` call serves a batch of ids. ``next`` on a
    list iterator is atomic, so threads never share a tail."""
    global _tails
    try:
        return next(_tails)
    except StopIteration:
        batch = _tail_batch()
        value = next(batch)
        _tails = batch
        return value


def new_id() -> str:
    """Return a new UUID v7 string (time ordered, random tail)."""
    global _stamp
    ms = _time_ns() // 1_000_000
    stamp = _stamp
    if stamp[0] != ms:  # the prefix is formatted once per millisecond
        h = f"{ms & _MS_MASK:012x}"
        stamp = _stamp = (ms, f"{h[:8]}-{h[8:]}-")
    tail = next(_tails, None)  # atomic: threads never share a tail
    return stamp[1] + (tail if tail is not None else _random_tail())


def now_ms() -> int:
    """Current unix time in milliseconds."""
    return _time_ns() // 1_000_000


def now_secs() -> int:
    """Current unix time in seconds."""
    return int(time.time())
