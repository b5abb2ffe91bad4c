"""The agent loop: phases in order, events in order, checkpoints at step boundaries.

``RunStart → [StepStart → BeforeInference → inference → AfterInference → (ToolGate →
BeforeToolExecute → tool → AfterToolExecute)* → StepEnd]* → RunEnd``

Event order of a text-only run::

    run_start, step_start, text_delta, inference_complete, state_snapshot, step_end,
    state_snapshot, run_finish

Every step ends with ``state_snapshot`` + ``step_end`` after a checkpoint (the step that ends
the run is written by the run's final checkpoint, which follows at once); every run's
stream ends with ``run_finish`` — a failure emits ``error`` first and finishes with termination
``error``. A suspended call ends the step and emits ``run_finish(suspended)``; with a control
channel the run then waits for decisions (or cancellation) and continues in place. ``max_rounds``
stops the run before inference number ``max_rounds + 1`` with ``stopped(max_rounds)``.

The phases live beside this module, each a function over one
:class:`~awaken_runtime.loop_runner.run_context.LoopContext`: ``inference`` (BeforeInference →
inference → AfterInference), ``tools`` (the step's tool calls), ``suspension`` (park, wait
for decisions, resume in place) and ``finish`` (RunEnd, final checkpoint, ``run_finish``).
"""

from __future__ import annotations

import logging

from awaken_contract.actions import (
    ClearToolCallStates,
    PendingWorkKey,
    RunLifecycleKey,
    RunLifecycleUpdate,
    ToolCallStatesKey,
)
from awaken_contract.contract.event import Error, StepEnd, StepStart
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.lifecycle import TerminationKind, TerminationReason
from awaken_contract.errors import AwakenError, InferenceFailed, LoopStorageFailed, StateCancelled
from awaken_contract.ids import new_id
from awaken_contract.log_context import enter_run, leave_run
from awaken_contract.model import Phase
from awaken_contract.runtime import AgentRunResult
from awaken_contract.state import MutationBatch

from awaken_runtime.cancellation import RunCancelled
from awaken_runtime.execution.resume import prepare_resume
from awaken_runtime.loop_runner.finish import finish
from awaken_runtime.loop_runner.inference import CONTINUATION_PROMPT, inference_phase
from awaken_runtime.loop_runner.params import AgentLoopParams
from awaken_runtime.loop_runner.run_context import LoopContext, StepOutcome
from awaken_runtime.loop_runner.suspension import drain_inbox, suspend_and_wait
from awaken_runtime.loop_runner.tools import tools_phase

__all__ = ["CONTINUATION_PROMPT", "run_agent_loop"]

_log = logging.getLogger(__name__)

# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_CONTINUE = StepOutcome.CONTINUE
_SUSPENDED = StepOutcome.SUSPENDED
_TERMINATED = StepOutcome.TERMINATED
_NATURAL_END = StepOutcome.NATURAL_END
_RUN_START = Phase.RUN_START
_STEP_START = Phase.STEP_START
_KIND_SUSPENDED = TerminationKind.SUSPENDED
_TOOL_CALL_STATES = ToolCallStatesKey.KEY


async def run_agent_loop(params: AgentLoopParams) -> AgentRunResult:
    """Run one agent loop to its end (or to a suspension when it cannot wait)."""
    run = LoopContext(params)
    logged = enter_run(params.run_identity)  # log lines of the run carry its ids
    try:
        if params.checkpoint_store is not None:  # (a run without one records no journal)
            await run.open_journal()
        agent = run.resolve()
        run.base_agent = agent
        run.activate(agent)
        if params.decisions:
            prepare_resume(run.store, params.decisions)
        start = (
            RunLifecycleUpdate.set_running()
            if params.is_continuation
            else RunLifecycleUpdate.start(run.identity.run_id)
        )
        if params.is_continuation and run.store.read(RunLifecycleKey) is None:
            start = RunLifecycleUpdate.start(run.identity.run_id)
        run.store.commit(MutationBatch().update(RunLifecycleKey, start))
        try:
            # The start (a coroutine of its own, done before the first step), then the steps in
            # place (no step-loop coroutine under this one): StepStart, the inference phase,
            # the tools phase, StepEnd — until a step or the start ends the run.
            termination: TerminationReason | None = await _start(run)
            store = run.store
            canceller = run.canceller
            outcome: StepOutcome
            while termination is None:
                termination = run.apply_handoff()
                if termination is not None:
                    break  # blocked
                run.clock.steps += 1  # (the clock itself: no property call)
                run.step_open = True
                if run.sink.wants_events:
                    await run.sink.emit(StepStart(message_id=new_id()))
                if store.values.get(_TOOL_CALL_STATES) is not None:
                    store.commit(MutationBatch().update(ToolCallStatesKey, ClearToolCallStates()))
                if canceller.is_cancelled:
                    outcome, termination = run.cancelled_step()
                else:
                    try:
                        if run.phase_has_work(_STEP_START):  # (cancellation checked just above)
                            await run.run_phase(_STEP_START)
                        termination = run.check_termination()
                    except StateCancelled:
                        outcome, termination = run.cancelled_step()
                    else:
                        if termination is not None:
                            outcome = _TERMINATED
                        else:
                            inferred = await inference_phase(run)
                            if isinstance(inferred, StreamResult):
                                outcome, termination = await tools_phase(run, inferred)
                            else:
                                outcome, termination = inferred
                            del inferred  # the step's result is not kept alive through the next
                if outcome is not _CONTINUE and run.journal is not None:
                    await run.journal.flush_held()  # only a continuing step goes to its checkpoint
                if outcome is _SUSPENDED:
                    termination = await suspend_and_wait(run, step_open=True)
                    continue  # (None: resumed in place, the next step)
                # A step that ends the run is persisted by the final checkpoint right after.
                await run.complete_step(checkpoint=outcome is _CONTINUE)
                if outcome is _TERMINATED:
                    break
                if drain_inbox(run):
                    continue
                if outcome is _NATURAL_END:
                    pending = store.read(PendingWorkKey)
                    if pending is not None and pending.has_pending:
                        store.commit(
                            MutationBatch().update(
                                RunLifecycleKey, RunLifecycleUpdate.set_waiting("awaiting_tasks")
                            )
                        )
                    termination = TerminationReason.natural_end()
                    break
                termination = run.check_termination()
        except (RunCancelled, StateCancelled):
            await _flush_held(run)
            termination = TerminationReason.cancelled()
        except Exception as exc:
            message = str(exc) or type(exc).__name__
            _log.warning("run %s failed: %s", run.identity.run_id, message, exc_info=True)
            await _flush_held(run)
            await run.sink.emit(Error(message=message, code=_error_code(exc)))
            if run.step_open:
                run.step_open = False
                await run.sink.emit(StepEnd())
            termination = TerminationReason.error(message)
        assert termination is not None
        if termination.type is _KIND_SUSPENDED:
            return run.result(termination)  # parked: run_finish(suspended) already sent
        return await finish(run, termination)
    finally:
        leave_run(logged)
        run.canceller.close()


async def _start(run: LoopContext) -> TerminationReason | None:
    """``run_start``, a resumed run's replay and the RunStart phase; the run's end when it
    ends there (``suspended`` when it stays parked without waiting), else ``None``."""
    # The attempt is durable from its start: thread, input messages and a ``running`` record
    # (so the thread, runs/active and the history answer truthfully during the first step);
    # ``run_start`` is journaled by that checkpoint and sent once it committed.
    if run.persists:
        run_start = run.run_start()
        try:
            await run.checkpoint(events=[run_start])
        except BaseException:
            await run.emit_run_start()  # the stream still opens with it (journaled later)
            raise
        if run.sink.wants_events:
            await run.deliver(run_start)
    elif run.sink.wants_events:
        await run.deliver(run.run_start())
    if run.store.read(ToolCallStatesKey) is not None:
        await run.pipeline.replay_resumed()
    try:
        if run.phase_has_work(_RUN_START) or run.canceller.is_cancelled:
            await run.run_phase(_RUN_START)
    except StateCancelled:
        return TerminationReason.cancelled()
    if run.store.read(ToolCallStatesKey) is not None and run.pipeline.suspended_calls():
        outcome = await suspend_and_wait(run, step_open=False)
        if outcome is not None:
            return outcome
    return None


async def _flush_held(run: LoopContext) -> None:
    """A finished tool's record waiting for a step checkpoint that will not come: commit it
    before the run ends (best effort; the final checkpoint writes it otherwise)."""
    if run.journal is not None and run.journal.holding:
        await run.flush_journal()


def _error_code(exc: BaseException) -> str:
    if isinstance(exc, InferenceFailed):
        return "inference_failed"
    if isinstance(exc, LoopStorageFailed):
        return "storage_error"
    if isinstance(exc, AwakenError):
        return "runtime_error"
    return "internal_error"
