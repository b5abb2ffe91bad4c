"""Retention of finished runs: which run records and journals a store may delete.

``RetentionPolicy`` is user configuration (pydantic); ``select_prunable`` is the one place that
decides, from lightweight ``RunSummary`` rows, which finished runs a policy removes, so every
store prunes exactly the same runs. Only runs whose status is ``done`` are ever selected.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec
from pydantic import BaseModel, ConfigDict, Field

from awaken_contract.contract.lifecycle import RunStatus

__all__ = ["PruneReport", "RetentionPolicy", "RunSummary", "select_prunable"]


class RetentionPolicy(BaseModel):
    """How long finished runs are kept. ``None`` disables a rule; with both set a run goes when
    either rule selects it.

    * ``max_age_seconds`` — a finished run whose last update is older than this is pruned;
    * ``max_finished_runs_per_thread`` — only the newest N finished runs of each thread stay.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_age_seconds: int | None = Field(default=None, ge=1)
    max_finished_runs_per_thread: int | None = Field(default=None, ge=1)

    @property
    def is_enabled(self) -> bool:
        """True when at least one rule is set."""
        return self.max_age_seconds is not None or self.max_finished_runs_per_thread is not None


class RunSummary(msgspec.Struct, frozen=True):
    """What retention needs to know about a run (timestamps are unix seconds)."""

    run_id: str
    thread_id: str
    status: RunStatus
    updated_at: int


class PruneReport(msgspec.Struct):
    """What one ``prune`` deleted."""

    runs_deleted: int = 0
    journal_entries_deleted: int = 0


def select_prunable(
    runs: Iterable[RunSummary], policy: RetentionPolicy, now_secs: int
) -> list[str]:
    """Ids of the finished runs ``policy`` removes at ``now_secs`` (sorted)."""
    doomed: set[str] = set()
    finished = [r for r in runs if r.status is RunStatus.DONE]
    if policy.max_age_seconds is not None:
        cutoff = now_secs - policy.max_age_seconds
        doomed.update(r.run_id for r in finished if r.updated_at < cutoff)
    keep = policy.max_finished_runs_per_thread
    if keep is not None:
        by_thread: dict[str, list[RunSummary]] = {}
        for run in finished:
            by_thread.setdefault(run.thread_id, []).append(run)
        for thread_runs in by_thread.values():
            thread_runs.sort(key=lambda r: (r.updated_at, r.run_id), reverse=True)
            doomed.update(r.run_id for r in thread_runs[keep:])
    return sorted(doomed)
