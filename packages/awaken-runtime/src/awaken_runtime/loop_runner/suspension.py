"""Suspension: park the run on its suspended calls, wait for decisions, resume in place.

:func:`suspend_and_wait` checkpoints the parked run and announces it (``run_finish``
with ``suspended``); with a control channel (and ``wait_for_decisions``) it then waits for
:class:`Decisions` (or cancellation), replays the decided calls and lets the loop go on.
Messages that arrive meanwhile (:class:`Inbox`) join the conversation at once;
:func:`drain_inbox` picks them up at a step boundary of a running run.
"""

from __future__ import annotations

import logging

from awaken_contract.actions import RunLifecycleKey, RunLifecycleUpdate
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_contract.model import Phase
from awaken_contract.runtime import DecisionBatch
from awaken_contract.state import MutationBatch

from awaken_runtime.cancellation import RunCancelled
from awaken_runtime.execution.executor import DecisionReplayPolicy
from awaken_runtime.execution.resume import prepare_resume
from awaken_runtime.loop_runner.finish import finish_suspended
from awaken_runtime.loop_runner.params import ControlMessage, Decisions, Inbox
from awaken_runtime.loop_runner.run_context import LoopContext

__all__ = ["drain_inbox", "suspend_and_wait"]

_log = logging.getLogger(__name__)


async def suspend_and_wait(run: LoopContext, *, step_open: bool) -> TerminationReason | None:
    """Park the run; ``None`` when decisions resumed every suspended call."""
    store = run.store
    store.commit(
        MutationBatch().update(RunLifecycleKey, RunLifecycleUpdate.set_waiting("suspended"))
    )
    if step_open:
        await run.complete_step()
    else:
        await run.checkpoint()
    await finish_suspended(run)
    channel = run.params.decision_rx
    if channel is None or not run.params.wait_for_decisions:
        return TerminationReason.suspended()
    while True:
        try:
            first = await run.canceller.race(channel.get())
        except RunCancelled:
            return TerminationReason.cancelled()
        entries: list[ControlMessage] = [first]
        while not channel.empty():
            entries.append(channel.get_nowait())
        run.record_inputs(entries)
        batch: DecisionBatch = []
        for entry in entries:
            match entry:
                case Decisions(decided):
                    batch.extend(decided)
                case Inbox(messages):
                    run.messages.extend(messages)
                    await run.checkpoint()
        if not batch or not _ready_to_replay(run, batch):
            continue
        decisions, run.pending_decisions = list(run.pending_decisions), ()
        known = _known_decisions(run, decisions)
        if not known:
            continue
        prepare_resume(store, known)
        await run.emit_run_start()
        await run.observe_phase(Phase.RUN_START)  # the parked run's RunEnd ran
        await run.pipeline.replay_resumed()
        if run.pipeline.suspended_calls():
            await run.checkpoint()
            await finish_suspended(run)
            continue
        store.commit(MutationBatch().update(RunLifecycleKey, RunLifecycleUpdate.set_running()))
        return None


def _ready_to_replay(run: LoopContext, batch: DecisionBatch) -> bool:
    """Collect decisions; with batch approval wait until every suspended call has one."""
    run.pending_decisions += tuple(batch)
    policy = run.agent.tool_executor.decision_replay_policy()
    if policy is not DecisionReplayPolicy.BATCH_ALL_SUSPENDED:
        return True
    targets = {target for target, _ in run.pending_decisions}
    return all(
        s.call_id in targets or (s.suspension_id is not None and s.suspension_id in targets)
        for s in run.pipeline.suspended_calls()
    )


def _known_decisions(run: LoopContext, decisions: DecisionBatch) -> DecisionBatch:
    calls = run.pipeline.suspended_calls()
    ids = {s.call_id for s in calls} | {s.suspension_id for s in calls if s.suspension_id}
    known = [(target, resume) for target, resume in decisions if target in ids]
    for target, _ in decisions:
        if target not in ids:
            _log.warning("ignoring decision for unknown suspended call %s", target)
    return known


def drain_inbox(run: LoopContext) -> bool:
    """Append messages delivered to the run meanwhile; keep decisions for later."""
    channel = run.params.decision_rx
    if channel is None or channel.empty():
        return False
    taken: list[ControlMessage] = []
    keep: list[ControlMessage] = []
    while not channel.empty():
        entry = channel.get_nowait()
        match entry:
            case Inbox(messages):
                run.messages.extend(messages)
                taken.append(entry)
            case Decisions():
                keep.append(entry)
    run.record_inputs(taken)
    for entry in keep:
        channel.put_nowait(entry)
    return bool(taken)
