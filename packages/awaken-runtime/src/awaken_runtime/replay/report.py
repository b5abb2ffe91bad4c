"""What a replay found: :class:`ReplayReport` (identical, or the first :class:`Divergence`)."""

from __future__ import annotations

import enum
from typing import Any

import msgspec

__all__ = ["Divergence", "ReplayReport", "ReplayStatus"]


class ReplayStatus(enum.StrEnum):
    """The verdict of a replay."""

    IDENTICAL = "identical"
    DIVERGED = "diverged"


class Divergence(msgspec.Struct, frozen=True, omit_defaults=True):
    """The first point where the replay differs from the journal.

    ``seq`` is the journal entry the replay disagrees with (``None`` when the replay produced
    more events than the journal has); ``index`` the 0-based position in the run's event
    stream; ``expected`` / ``actual`` the normalised events (``None`` when one side has none);
    ``diff`` short ``field: expected != actual`` lines."""

    index: int
    reason: str
    seq: int | None = None
    expected: dict[str, Any] | None = None
    actual: dict[str, Any] | None = None
    diff: list[str] = msgspec.field(default_factory=list)

    def describe(self) -> str:
        """A few human-readable lines."""
        where = f"seq {self.seq}" if self.seq is not None else f"event #{self.index}"
        lines = [f"diverged at {where}: {self.reason}"]
        if self.expected is not None:
            lines.append(f"  expected: {msgspec.json.encode(self.expected).decode()}")
        if self.actual is not None:
            lines.append(f"  actual:   {msgspec.json.encode(self.actual).decode()}")
        lines.extend(f"  {line}" for line in self.diff)
        return "\n".join(lines)


class ReplayReport(msgspec.Struct, frozen=True, omit_defaults=True):
    """The result of :func:`~awaken_runtime.replay.replay_run` for one run."""

    run_id: str
    status: ReplayStatus
    events: int
    """Journaled events compared."""
    attempts: int
    """Loop attempts replayed (a run continued after a decision has several)."""
    divergence: Divergence | None = None

    @property
    def identical(self) -> bool:
        """The replay produced the journaled events."""
        return self.status is ReplayStatus.IDENTICAL

    def describe(self) -> str:
        """``identical`` or the first divergence."""
        if self.divergence is None:
            return "identical"
        return self.divergence.describe()
