"""What an eval produces: per-case outcomes and scores, and the whole report (JSON wire data)."""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["CaseOutcome", "CaseResult", "EvalReport", "ObservedToolCall", "Score"]


class ObservedToolCall(msgspec.Struct, omit_defaults=True):
    """A tool call the run made, with its outcome once known."""

    id: str
    name: str
    arguments: Any = None
    outcome: str | None = None


class CaseOutcome(msgspec.Struct, omit_defaults=True):
    """What running a case produced: the answer, the tool calls and how the run ended."""

    response: str = ""
    tool_calls: list[ObservedToolCall] = msgspec.field(default_factory=list)
    termination: str | None = None
    steps: int = 0
    run_id: str | None = None
    thread_id: str | None = None
    error: str | None = None
    """Set when the run itself failed (raised or timed out): every scorer then fails."""


class Score(msgspec.Struct):
    """One scorer's verdict on one case; ``value`` is in 0..1."""

    scorer: str
    passed: bool
    value: float
    reason: str = ""


class CaseResult(msgspec.Struct, omit_defaults=True):
    """A case's outcome and scores; it passes when the run did not fail and every score passed."""

    case_id: str
    passed: bool
    outcome: CaseOutcome
    scores: list[Score] = msgspec.field(default_factory=list)
    duration_ms: int = 0
    tags: list[str] = msgspec.field(default_factory=list)

    def failures(self) -> list[str]:
        """Why the case failed (empty when it passed)."""
        reasons = [f"run failed: {self.outcome.error}"] if self.outcome.error else []
        reasons += [f"{s.scorer}: {s.reason}" for s in self.scores if not s.passed]
        return reasons


class EvalReport(msgspec.Struct, omit_defaults=True):
    """Every case result of a dataset run and the pass threshold."""

    dataset: str
    agent: str
    threshold: float
    results: list[CaseResult]
    duration_ms: int = 0

    @property
    def total(self) -> int:
        """Number of cases."""
        return len(self.results)

    @property
    def passed(self) -> int:
        """Number of passing cases."""
        return sum(1 for r in self.results if r.passed)

    @property
    def pass_rate(self) -> float:
        """``passed / total`` (1.0 for an empty report)."""
        return self.passed / self.total if self.total else 1.0

    @property
    def ok(self) -> bool:
        """True when the pass rate reaches the threshold."""
        return self.pass_rate >= self.threshold

    def to_json(self) -> bytes:
        """The report as JSON, with the summary fields first."""
        summary = {
            "dataset": self.dataset,
            "agent": self.agent,
            "total": self.total,
            "passed": self.passed,
            "pass_rate": self.pass_rate,
            "threshold": self.threshold,
            "ok": self.ok,
            "duration_ms": self.duration_ms,
            "results": self.results,
        }
        return msgspec.json.format(msgspec.json.encode(summary), indent=2)
