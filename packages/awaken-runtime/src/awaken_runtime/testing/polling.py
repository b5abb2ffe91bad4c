"""``wait_until``: poll a condition and fail loudly, naming it, when it never holds."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["wait_until"]

T = TypeVar("T")


async def wait_until(
    check: Callable[[], T | Awaitable[T]],
    limit_secs: float = 20.0,
    *,
    interval: float = 0.05,
    message: str | None = None,
) -> T:
    """Call ``check`` (sync or async) until it returns a truthy value, and return that value.

    Raises ``AssertionError("<message> not reached within <timeout> s (last value: …)")`` when
    ``limit_secs`` seconds pass first; ``message`` defaults to the check's name.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_secs
    while True:
        value = check()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if loop.time() >= deadline:
            what = message or getattr(check, "__qualname__", repr(check))
            raise AssertionError(
                f"{what} not reached within {limit_secs:g} s (last value: {value!r})"
            )
        await asyncio.sleep(interval)
