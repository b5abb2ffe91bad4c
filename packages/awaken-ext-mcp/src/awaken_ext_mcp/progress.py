"""Forwarding of MCP progress notifications as Awaken tool progress (throttled)."""

from __future__ import annotations

import math
import time

from awaken_contract.contract.progress import ProgressStatus
from awaken_contract.contract.tool import ToolCallContext

__all__ = ["MIN_PROGRESS_DELTA", "MIN_PROGRESS_INTERVAL", "ProgressForwarder", "normalize_progress"]

MIN_PROGRESS_INTERVAL = 0.1
"""Seconds between two forwarded updates unless something else makes the update worth sending."""
MIN_PROGRESS_DELTA = 0.01
"""Change of the normalised progress that is always forwarded."""


def normalize_progress(progress: float, total: float | None) -> float | None:
    """``clamp(progress / total, 0, 1)`` when ``total`` is finite and > 0, else ``progress``;
    ``None`` for non-finite progress."""
    if not math.isfinite(progress):
        return None
    if total is not None and math.isfinite(total) and total > 0:
        return min(max(progress / total, 0.0), 1.0)
    return progress


class ProgressForwarder:
    """The ``progress_callback`` of one MCP tool call, reporting on a :class:`ToolCallContext`.

    An update is forwarded when ≥ 100 ms passed since the last one, the value moved by ≥ 0.01,
    the message changed, or the call reached 1.0. A throttled last update is sent by
    :meth:`flush` once the response arrived.
    """

    def __init__(self, ctx: ToolCallContext) -> None:
        self._ctx = ctx
        self._last_at: float | None = None
        self._last_value: float | None = None
        self._last_message: str | None = None
        self._pending: tuple[float, str | None] | None = None
        self.forwarded = 0

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        value = normalize_progress(progress, total)
        if value is None:
            return
        if self._should_emit(value, message):
            await self._emit(value, message)
        else:
            self._pending = (value, message)

    def _should_emit(self, value: float, message: str | None) -> bool:
        if self._last_at is None or self._last_value is None:
            return True
        return (
            time.monotonic() - self._last_at >= MIN_PROGRESS_INTERVAL
            or abs(value - self._last_value) >= MIN_PROGRESS_DELTA
            or message != self._last_message
            or value >= 1.0
        )

    async def _emit(self, value: float, message: str | None) -> None:
        self._pending = None
        self._last_at = time.monotonic()
        self._last_value = value
        self._last_message = message
        self.forwarded += 1
        await self._ctx.report_progress(ProgressStatus.RUNNING, message, value)

    async def flush(self) -> None:
        """Send the last throttled update, if any."""
        if self._pending is not None:
            value, message = self._pending
            await self._emit(value, message)
