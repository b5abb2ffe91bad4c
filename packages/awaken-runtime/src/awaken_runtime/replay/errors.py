"""Why a run cannot be replayed (typed, under :class:`AwakenError`)."""

from __future__ import annotations

from awaken_contract.errors import AwakenError

__all__ = [
    "JournalUnavailable",
    "ReplayError",
    "RunNotFinished",
    "UnknownRun",
]


class ReplayError(AwakenError):
    """A run cannot be replayed."""


class UnknownRun(ReplayError):
    """No run with this id in the store."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        super().__init__(f"unknown run: {run_id}")


class RunNotFinished(ReplayError):
    """The run is still created, running or waiting: only finished runs are replayed."""

    def __init__(self, run_id: str, status: str) -> None:
        self.run_id = run_id
        self.status = status
        super().__init__(f"run {run_id} is {status}, not finished: only finished runs replay")


class JournalUnavailable(ReplayError):
    """The run's journal is empty, pruned, incomplete or older than replay support."""

    def __init__(self, run_id: str, why: str) -> None:
        self.run_id = run_id
        super().__init__(f"run {run_id} cannot be replayed: {why}")
