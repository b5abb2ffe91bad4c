"""The hooks behind the stop plugins and the helpers the loop uses to report a stop.

* :class:`StopClockHook` (RunStart) starts the elapsed-time clock;
* :class:`StopStatsHook` (AfterInference) accounts the inference: tokens, text, tool calls;
* :class:`StopConditionHook` (StepEnd) counts failed rounds, builds :class:`StopPolicyStats`
  and evaluates the policies in order; :class:`MaxRoundsHook` (StepEnd) is its lean form for
  the one ``max_rounds`` policy (reads the step count only). The first ``Stop`` commits
  ``RunLifecycle Done("stopped:<code>")`` and records the code and detail, which
  :func:`stop_termination` turns into ``TerminationReason.stopped(code, detail)``.

Evaluating at StepEnd means a stop never discards an inference that was paid for: the step's
tools have run and their results are in the history when the run ends.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence

from awaken_contract.actions import RunLifecycleKey, RunLifecycleUpdate, ToolCallStatesKey
from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.message import ToolCall
from awaken_contract.contract.suspension import ToolCallStatus
from awaken_contract.ids import now_ms
from awaken_contract.plugin import PhaseContext
from awaken_contract.registry_spec import AgentSpec
from awaken_contract.state import MutationBatch, Snapshot

from awaken_runtime.phase.immediate import ImmediatePhaseHook
from awaken_runtime.policies.policy import StopPolicy, StopPolicyStats
from awaken_runtime.policies.section import STOP_CONDITIONS_SECTION, section_policies
from awaken_runtime.policies.state import (
    RecordInference,
    RecordStepOutcome,
    RecordStop,
    StartClock,
    StopConditionStats,
    StopConditionStatsKey,
)

__all__ = [
    "Clock",
    "MaxRoundsHook",
    "StopClockHook",
    "StopConditionHook",
    "StopStatsHook",
    "stop_termination",
    "stopped_reason",
    "tool_round_signature",
]

#: A millisecond clock (``awaken_contract.ids.now_ms`` by default; tests inject their own).
Clock = Callable[[], int]

# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_RUNNING = RunStatus.RUNNING


def tool_round_signature(calls: Sequence[ToolCall]) -> str:
    """A short digest of a set of tool calls (names and arguments, order-insensitive)."""
    parts = sorted(
        json.dumps([c.name, c.arguments], sort_keys=True, separators=(",", ":"), default=str)
        for c in calls
    )
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def stopped_reason(snapshot: Snapshot) -> tuple[str, str | None] | None:
    """``(code, detail)`` of the stop recorded by a stop plugin, if any."""
    stats = snapshot.get(StopConditionStatsKey)
    if stats is None or stats.stopped is None:
        return None
    return stats.stopped.code, stats.stopped.detail


def stop_termination(snapshot: Snapshot, code: str) -> TerminationReason:
    """``stopped(code, detail)`` with the detail a stop plugin recorded for ``code``."""
    recorded = stopped_reason(snapshot)
    if recorded is not None and recorded[0] == code:
        return TerminationReason.stopped(code, recorded[1])
    return TerminationReason.stopped(code)


def _current_step(ctx: PhaseContext) -> int:
    lifecycle = ctx.snapshot.get(RunLifecycleKey)
    return lifecycle.step_count if lifecycle is not None else 0


class StopClockHook(ImmediatePhaseHook):
    """RunStart: start the clock the timeout policy measures against."""

    waits = True  # as before: the journal keeps its commit pattern for these plugins

    def __init__(self, clock: Clock = now_ms) -> None:
        self.clock = clock

    def updates(self, ctx: PhaseContext) -> MutationBatch | None:
        stats = ctx.snapshot.get(StopConditionStatsKey)
        if stats is None or not stats.start_time_ms:
            return MutationBatch().update(StopConditionStatsKey, StartClock(self.clock()))
        return None


class StopStatsHook(ImmediatePhaseHook):
    """AfterInference: account the step's inference once."""

    waits = True  # as before: the journal keeps its commit pattern for these plugins

    def __init__(self, clock: Clock = now_ms) -> None:
        self.clock = clock

    def updates(self, ctx: PhaseContext) -> MutationBatch | None:
        response = ctx.llm_response
        if response is None:
            return None
        step = _current_step(ctx) + 1
        stats = ctx.snapshot.get(StopConditionStatsKey)
        if stats is not None and stats.recorded_step >= step:
            return None
        usage = response.usage
        calls = response.tool_calls
        return MutationBatch().update(
            StopConditionStatsKey,
            RecordInference(
                step=step,
                input_tokens=max(usage.prompt_tokens or 0, 0) if usage is not None else 0,
                output_tokens=max(usage.completion_tokens or 0, 0) if usage is not None else 0,
                text=response.text,
                tool_names=[c.name for c in calls],
                signature=tool_round_signature(calls) if calls else None,
                at_ms=self.clock(),
                cost=max(ctx.inference_cost or 0.0, 0.0),
            ),
        )


class StopConditionHook(ImmediatePhaseHook):
    """StepEnd: evaluate ``policies`` in order; the first ``Stop`` ends the run.

    Only a running lifecycle is evaluated (a suspended, cancelled or already finished step is
    left alone). With ``track_outcomes`` the hook also counts rounds whose tool calls all failed.
    """

    waits = True  # as before: the journal keeps its commit pattern for these plugins

    def __init__(
        self,
        policies: Sequence[StopPolicy],
        *,
        clock: Clock = now_ms,
        track_outcomes: bool = True,
        from_section: bool = False,
    ) -> None:
        self.policies = list(policies)
        self.clock = clock
        self.track_outcomes = track_outcomes
        self.from_section = from_section
        self._section: tuple[AgentSpec, list[StopPolicy]] | None = None

    def policies_for(self, spec: AgentSpec) -> list[StopPolicy]:
        """The hook's policies plus those of the spec's ``stop_conditions`` section."""
        if not self.from_section or STOP_CONDITIONS_SECTION not in spec.sections:
            return self.policies
        cached = self._section
        if cached is None or cached[0] is not spec:
            cached = (spec, [*self.policies, *section_policies(spec)])
            self._section = cached
        return cached[1]

    def updates(self, ctx: PhaseContext) -> MutationBatch | None:
        lifecycle = ctx.snapshot.get(RunLifecycleKey)
        if lifecycle is None or lifecycle.status is not _RUNNING:
            return None
        command = MutationBatch()
        step = lifecycle.step_count
        stats = ctx.snapshot.get(StopConditionStatsKey) or StopConditionStats()
        if self.track_outcomes and step > stats.evaluated_step:
            update = RecordStepOutcome(step, _all_calls_failed(ctx))
            command.update(StopConditionStatsKey, update)
            stats = StopConditionStatsKey.apply(stats, update)
        view = self._view(stats, step)
        for policy in self.policies_for(ctx.agent_spec):
            decision = policy.evaluate(view)
            if decision.code is not None:
                _record_stop(command, decision.code, decision.detail or None)
                break
        return command

    def _view(self, stats: StopConditionStats, step: int) -> StopPolicyStats:
        current = stats.recorded_step == step  # this step's inference was accounted
        return StopPolicyStats(
            step_count=step,
            total_input_tokens=stats.total_input_tokens,
            total_output_tokens=stats.total_output_tokens,
            total_cost=stats.total_cost,
            elapsed_ms=max(self.clock() - stats.start_time_ms, 0) if stats.start_time_ms else 0,
            consecutive_errors=stats.consecutive_errors,
            last_tool_names=tuple(stats.last_tool_names) if current else (),
            last_response_text=stats.last_response_text if current else "",
            tool_rounds=tuple(stats.tool_rounds) if current else (),
        )


class MaxRoundsHook(ImmediatePhaseHook):
    """StepEnd: stop a running run once ``max_rounds`` steps completed — the updates
    ``StopConditionHook([MaxRoundsPolicy(n)], track_outcomes=False)`` gives, without building
    statistics every step."""

    def __init__(self, max_rounds: int) -> None:
        self.max_rounds = max(int(max_rounds), 0)
        self.detail = f"exceeded {self.max_rounds} rounds"

    def idle(self, snapshot: Snapshot) -> bool:
        lifecycle = snapshot.get(RunLifecycleKey)
        return not (
            self.max_rounds
            and lifecycle is not None
            and lifecycle.status is _RUNNING
            and lifecycle.step_count >= self.max_rounds
        )

    def updates(self, ctx: PhaseContext) -> MutationBatch | None:
        if self.idle(ctx.snapshot):
            return None
        command = MutationBatch()
        _record_stop(command, "max_rounds", self.detail)
        return command


def _record_stop(command: MutationBatch, code: str, detail: str | None) -> None:
    command.update(StopConditionStatsKey, RecordStop(code, detail))
    command.update(RunLifecycleKey, RunLifecycleUpdate.done(f"stopped:{code}"))


def _all_calls_failed(ctx: PhaseContext) -> bool:
    states = ctx.snapshot.get(ToolCallStatesKey)
    if states is None or not states.calls:
        return False
    return all(s.status is ToolCallStatus.FAILED for s in states.calls.values())
