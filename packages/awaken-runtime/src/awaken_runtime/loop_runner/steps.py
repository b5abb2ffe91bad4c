"""How a step ends (:class:`StepOutcome`, :data:`StepResult`, :func:`done_batch`) and how the
run counts its steps (:class:`StepClock`)."""

from __future__ import annotations

import enum

import msgspec
from awaken_contract.actions import RunLifecycleKey, RunLifecycleUpdate
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_contract.state import MutationBatch

from awaken_runtime.loop_runner.params import AgentLoopParams

__all__ = ["StepClock", "StepOutcome", "StepResult", "done_batch"]


class StepClock(msgspec.Struct, eq=False, gc=False):
    """The run's step counter, shared with its tool journal: the journal reads the step index
    from here, never from the run (that would make each run's object graph a reference cycle
    only the cyclic GC frees).

    ``gc=False`` (ADR 0033): two ints, so it can never be part of a reference cycle; the
    collector need not track one per run."""

    base: int
    steps: int = 0

    @classmethod
    def for_run(cls, params: AgentLoopParams) -> StepClock:
        """The clock of a run starting: a new run at 0; a continuation after the steps of
        earlier attempts its restored lifecycle does not already count (the lifecycle's
        ``step_count`` holds them; a run recorded without one counts the record's ``steps``)."""
        previous = params.previous_run
        if not params.is_continuation or previous is None:
            return cls(0)
        restored = params.runtime.store.read(RunLifecycleKey)
        return cls(max(previous.steps - (restored.step_count if restored is not None else 0), 0))

    def index(self) -> int:
        """The 0-based index of the current step across the run's attempts."""
        return self.base + max(self.steps - 1, 0)


class StepOutcome(enum.Enum):
    """How a step ended."""

    NATURAL_END = "natural_end"
    CONTINUE = "continue"
    TERMINATED = "terminated"
    SUSPENDED = "suspended"


#: A step's outcome and, when it terminated the run, why.
StepResult = tuple[StepOutcome, TerminationReason | None]


def done_batch(reason: str) -> MutationBatch:
    """Mark the run lifecycle done with ``reason``."""
    return MutationBatch().update(RunLifecycleKey, RunLifecycleUpdate.done(reason))
