"""``StopConditionStatsKey`` (``__runtime.stop_condition_stats``): the counters stop policies see.

The key is Commutative and its updates are idempotent per step (an update for a step that is
already recorded is ignored), so several stop plugins can record the same step without double
counting and without a GATHER conflict.
"""

from __future__ import annotations

import msgspec
from awaken_contract.contract.lifecycle import StoppedReason
from awaken_contract.state import KeyScope, MergeStrategy, StateKey

__all__ = [
    "MAX_TOOL_ROUNDS",
    "RecordInference",
    "RecordStepOutcome",
    "RecordStop",
    "StartClock",
    "StopConditionStats",
    "StopConditionStatsKey",
    "StopStatsUpdate",
]

#: How many tool-round signatures the stats keep (for loop detection).
MAX_TOOL_ROUNDS = 64


class StopConditionStats(msgspec.Struct, omit_defaults=True):
    """Persisted counters (Run scoped): rounds, tokens, clock start, failed rounds, last
    response, recent tool-round signatures and the stop that ended the run, if any."""

    step_count: int = 0
    total_input_tokens: int = 0
    total_output_tokens: int = 0
    total_cost: float = 0.0
    start_time_ms: int = 0
    consecutive_errors: int = 0
    last_tool_names: list[str] = msgspec.field(default_factory=list)
    last_response_text: str = ""
    tool_rounds: list[str] = msgspec.field(default_factory=list)
    recorded_step: int = 0
    evaluated_step: int = 0
    stopped: StoppedReason | None = None


class StartClock(msgspec.Struct, frozen=True, gc=False):
    """Start the elapsed-time clock (ignored when it already runs)."""

    at_ms: int


class RecordInference(msgspec.Struct, frozen=True):
    """Account the inference of step ``step`` (ignored when that step is recorded)."""

    step: int
    input_tokens: int
    output_tokens: int
    text: str
    tool_names: list[str]
    signature: str | None
    at_ms: int
    cost: float = 0.0


class RecordStepOutcome(msgspec.Struct, frozen=True, gc=False):
    """Count step ``step`` as a failed round (all its tool calls failed) or reset the count."""

    step: int
    failed: bool


class RecordStop(msgspec.Struct, frozen=True, gc=False):
    """Remember the stop that ended the run (first one wins)."""

    code: str
    detail: str | None


StopStatsUpdate = StartClock | RecordInference | RecordStepOutcome | RecordStop


class StopConditionStatsKey(StateKey[StopConditionStats, StopStatsUpdate]):
    """``__runtime.stop_condition_stats`` (Run scope, Commutative, idempotent updates)."""

    KEY = "__runtime.stop_condition_stats"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: StopConditionStats, update: StopStatsUpdate) -> StopConditionStats:
        if isinstance(update, StartClock):
            if value.start_time_ms:
                return value
            return msgspec.structs.replace(value, start_time_ms=update.at_ms)
        if isinstance(update, RecordInference):
            if update.step <= value.recorded_step:
                return value
            rounds = value.tool_rounds
            if update.signature is not None:
                rounds = [*rounds, update.signature][-MAX_TOOL_ROUNDS:]
            return msgspec.structs.replace(
                value,
                step_count=value.step_count + 1,
                total_input_tokens=value.total_input_tokens + update.input_tokens,
                total_output_tokens=value.total_output_tokens + update.output_tokens,
                total_cost=value.total_cost + update.cost,
                start_time_ms=value.start_time_ms or update.at_ms,
                last_tool_names=list(update.tool_names),
                last_response_text=update.text,
                tool_rounds=rounds,
                recorded_step=update.step,
            )
        if isinstance(update, RecordStepOutcome):
            if update.step <= value.evaluated_step:
                return value
            errors = value.consecutive_errors + 1 if update.failed else 0
            return msgspec.structs.replace(
                value, consecutive_errors=errors, evaluated_step=update.step
            )
        if value.stopped is not None:
            return value
        return msgspec.structs.replace(
            value, stopped=StoppedReason(code=update.code, detail=update.detail)
        )
