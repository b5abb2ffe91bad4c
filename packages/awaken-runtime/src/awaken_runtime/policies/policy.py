"""The stop-policy interface: :class:`StopPolicy`, its input :class:`StopPolicyStats` and its
answer :class:`StopDecision`.

A policy is a pure, synchronous function of the run's statistics, evaluated once per step
(at StepEnd, after the step's tools ran). The first policy that answers ``Stop`` ends the run
with ``TerminationReason.stopped(code, detail)``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

__all__ = ["StopDecision", "StopPolicy", "StopPolicyStats"]


@dataclass(frozen=True, slots=True)
class StopDecision:
    """``StopDecision.CONTINUE`` or ``StopDecision.stop(code, detail)``."""

    code: str | None = None
    detail: str = ""

    CONTINUE: ClassVar[StopDecision]

    @classmethod
    def stop(cls, code: str, detail: str = "") -> StopDecision:
        """End the run with stop code ``code``."""
        if not code:
            raise ValueError("a stop decision needs a non-empty code")
        return cls(code, detail)

    @classmethod
    def continue_(cls) -> StopDecision:
        """Let the run go on (same as ``StopDecision.CONTINUE``)."""
        return cls.CONTINUE

    @property
    def is_stop(self) -> bool:
        """True for a ``Stop`` decision."""
        return self.code is not None


StopDecision.CONTINUE = StopDecision()


@dataclass(frozen=True, slots=True)
class StopPolicyStats:
    """What a policy sees: counters of the current run up to the step just completed.

    ``tool_rounds`` holds one signature per recent step that called tools (oldest first,
    the current step last when it called tools); equal signatures mean the same tool calls with
    the same arguments.
    """

    step_count: int = 0
    total_input_tokens: int = 0
    total_output_tokens: int = 0
    total_cost: float = 0.0
    elapsed_ms: int = 0
    consecutive_errors: int = 0
    last_tool_names: tuple[str, ...] = ()
    last_response_text: str = ""
    tool_rounds: tuple[str, ...] = ()

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.total_input_tokens + self.total_output_tokens


class StopPolicy(ABC):
    """Decides after each step whether the run goes on.

    Implement :meth:`id` (the stop code used by default) and :meth:`evaluate`.
    """

    @abstractmethod
    def id(self) -> str:
        """Stable identifier, also the default stop code."""

    @abstractmethod
    def evaluate(self, stats: StopPolicyStats) -> StopDecision:
        """Pure and synchronous: ``StopDecision.CONTINUE`` or ``StopDecision.stop(...)``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id()!r})"
