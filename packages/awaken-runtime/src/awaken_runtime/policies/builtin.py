"""The built-in stop policies and :func:`policies_from_specs` for declarative specs.

Every limit of 0 (or an empty tool name / pattern) disables its policy: it always continues.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from awaken_contract.contract.lifecycle import (
    ConsecutiveErrors,
    ContentMatch,
    LoopDetection,
    MaxCost,
    MaxRounds,
    StopConditionSpec,
    StopOnTool,
    Timeout,
    TokenBudget,
)

from awaken_runtime.policies.policy import StopDecision, StopPolicy, StopPolicyStats

__all__ = [
    "ConsecutiveErrorsPolicy",
    "ContentMatchPolicy",
    "LoopDetectionPolicy",
    "MaxCostPolicy",
    "MaxRoundsPolicy",
    "StopOnToolPolicy",
    "TimeoutPolicy",
    "TokenBudgetPolicy",
    "policies_from_specs",
]


class MaxRoundsPolicy(StopPolicy):
    """Stop once ``max_rounds`` inference rounds have completed (before paying for one more)."""

    def __init__(self, max_rounds: int) -> None:
        self.max_rounds = max(int(max_rounds), 0)

    def id(self) -> str:
        return "max_rounds"

    def evaluate(self, stats: StopPolicyStats) -> StopDecision:
        if self.max_rounds and stats.step_count >= self.max_rounds:
            return StopDecision.stop("max_rounds", f"exceeded {self.max_rounds} rounds")
        return StopDecision.CONTINUE


class TokenBudgetPolicy(StopPolicy):
    """Stop when input + output tokens exceed ``max_total``."""

    def __init__(self, max_total: int) -> None:
        self.max_total = max(int(max_total), 0)

    def id(self) -> str:
        return "token_budget"

    def evaluate(self, stats: StopPolicyStats) -> StopDecision:
        used = stats.total_tokens
        if self.max_total and used > self.max_total:
            return StopDecision.stop(
                "token_budget",
                f"used {used} tokens ({stats.total_input_tokens} in, "
                f"{stats.total_output_tokens} out), budget {self.max_total}",
            )
        return StopDecision.CONTINUE


class MaxCostPolicy(StopPolicy):
    """Stop when the run's inferences cost more than ``max_total`` (currency units of the
    model's prices). Inferences of models without prices cost nothing here."""

    def __init__(self, max_total: float) -> None:
        self.max_total = max(float(max_total), 0.0)

    def id(self) -> str:
        return "max_cost"

    def evaluate(self, stats: StopPolicyStats) -> StopDecision:
        if self.max_total and stats.total_cost > self.max_total:
            return StopDecision.stop(
                "max_cost", f"cost {stats.total_cost:.6g}, budget {self.max_total:.6g}"
            )
        return StopDecision.CONTINUE


class TimeoutPolicy(StopPolicy):
    """Stop when more than ``max_ms`` milliseconds passed since the run started."""

    def __init__(self, max_ms: int) -> None:
        self.max_ms = max(int(max_ms), 0)

    def id(self) -> str:
        return "timeout"

    def evaluate(self, stats: StopPolicyStats) -> StopDecision:
        if self.max_ms and stats.elapsed_ms > self.max_ms:
            return StopDecision.stop(
                "timeout", f"elapsed {stats.elapsed_ms} ms, limit {self.max_ms} ms"
            )
        return StopDecision.CONTINUE


class ConsecutiveErrorsPolicy(StopPolicy):
    """Stop after ``max`` consecutive steps whose tool calls all failed."""

    def __init__(self, max_errors: int) -> None:
        self.max_errors = max(int(max_errors), 0)

    def id(self) -> str:
        return "consecutive_errors"

    def evaluate(self, stats: StopPolicyStats) -> StopDecision:
        if self.max_errors and stats.consecutive_errors >= self.max_errors:
            return StopDecision.stop(
                "consecutive_errors",
                f"{stats.consecutive_errors} consecutive failed rounds, limit {self.max_errors}",
            )
        return StopDecision.CONTINUE


class StopOnToolPolicy(StopPolicy):
    """Stop right after a step that called ``tool_name`` (e.g. a ``finish`` tool)."""

    def __init__(self, tool_name: str) -> None:
        self.tool_name = tool_name.strip()

    def id(self) -> str:
        return "stop_on_tool"

    def evaluate(self, stats: StopPolicyStats) -> StopDecision:
        if self.tool_name and self.tool_name in stats.last_tool_names:
            return StopDecision.stop("stop_on_tool", f"tool '{self.tool_name}' was called")
        return StopDecision.CONTINUE


class ContentMatchPolicy(StopPolicy):
    """Stop when the model's latest text matches ``pattern`` (a Python regular expression,
    searched anywhere in the text; ``(?i)`` makes it case-insensitive)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        try:
            self._regex = re.compile(pattern) if pattern else None
        except re.error as exc:
            raise ValueError(f"invalid content_match pattern {pattern!r}: {exc}") from None

    def id(self) -> str:
        return "content_match"

    def evaluate(self, stats: StopPolicyStats) -> StopDecision:
        regex = self._regex
        if regex is None:
            return StopDecision.CONTINUE
        match = regex.search(stats.last_response_text)
        if match is not None:
            return StopDecision.stop(
                "content_match", f"response matched {self.pattern!r}: {match.group(0)!r}"
            )
        return StopDecision.CONTINUE


class LoopDetectionPolicy(StopPolicy):
    """Stop when a step repeats the exact tool calls (names and arguments) of one of the
    ``window`` steps with tool calls before it."""

    def __init__(self, window: int) -> None:
        self.window = max(int(window), 0)

    def id(self) -> str:
        return "loop_detection"

    def evaluate(self, stats: StopPolicyStats) -> StopDecision:
        rounds = stats.tool_rounds
        if not self.window or len(rounds) < 2 or not stats.last_tool_names:
            return StopDecision.CONTINUE
        current = rounds[-1]
        previous = rounds[-1 - self.window : -1]
        if current in previous:
            distance = previous[::-1].index(current) + 1
            names = ", ".join(stats.last_tool_names)
            return StopDecision.stop(
                "loop_detection",
                f"tool calls [{names}] repeat the calls of {distance} round(s) earlier",
            )
        return StopDecision.CONTINUE


def policies_from_specs(specs: Iterable[StopConditionSpec]) -> list[StopPolicy]:
    """One policy per declarative spec, in order (every variant)."""
    policies: list[StopPolicy] = []
    for spec in specs:
        if isinstance(spec, MaxRounds):
            policies.append(MaxRoundsPolicy(spec.rounds))
        elif isinstance(spec, Timeout):
            policies.append(TimeoutPolicy(spec.seconds * 1000))
        elif isinstance(spec, TokenBudget):
            policies.append(TokenBudgetPolicy(spec.max_total))
        elif isinstance(spec, MaxCost):
            policies.append(MaxCostPolicy(spec.max_total))
        elif isinstance(spec, ConsecutiveErrors):
            policies.append(ConsecutiveErrorsPolicy(spec.max))
        elif isinstance(spec, StopOnTool):
            policies.append(StopOnToolPolicy(spec.tool_name))
        elif isinstance(spec, ContentMatch):
            policies.append(ContentMatchPolicy(spec.pattern))
        elif isinstance(spec, LoopDetection):
            policies.append(LoopDetectionPolicy(spec.window))
        else:
            raise TypeError(f"unknown stop condition spec: {spec!r}")
    return policies
