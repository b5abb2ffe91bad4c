"""The end of a run: RunEnd, the final checkpoint, ``run_finish`` (or the parked announcement).

:func:`finish` ends a run that will not continue; :func:`finish_suspended` announces a run
that parks on decisions (its state, then ``run_finish(suspended)``).
"""

from __future__ import annotations

import logging
from typing import Any

from awaken_contract.contract.event import AgentEvent, Error, RunFinish
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind, TerminationReason
from awaken_contract.errors import LoopStorageFailed
from awaken_contract.model import Phase
from awaken_contract.runtime import AgentRunResult

from awaken_runtime.loop_runner.history import last_assistant_text
from awaken_runtime.loop_runner.run_context import LoopContext, done_batch

__all__ = ["finish", "finish_suspended"]

_log = logging.getLogger(__name__)

# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_WAITING = RunStatus.WAITING
_DONE = RunStatus.DONE
_KIND_NATURAL_END = TerminationKind.NATURAL_END
_KIND_ERROR = TerminationKind.ERROR
_RUN_END = Phase.RUN_END


async def finish(run: LoopContext, termination: TerminationReason) -> AgentRunResult:
    """RunEnd phase, final checkpoint, final state and ``run_finish``; the run's result."""
    store = run.store
    status, reason = termination.to_run_status()
    current = run.lifecycle()
    waiting_on_tasks = (
        current.status is _WAITING
        and current.status_reason == "awaiting_tasks"
        and termination.type is _KIND_NATURAL_END
    )
    if status is _DONE and not waiting_on_tasks:
        store.commit(done_batch(reason or "unknown"))
    try:
        if run.phase_has_work(_RUN_END):
            await run.run_phase(_RUN_END, with_token=False, termination=termination)
    except Exception as exc:
        _log.warning("run_end phase of %s failed: %s", run.identity.run_id, exc)
        if termination.type is not _KIND_ERROR:
            await run.sink.emit(Error(message=str(exc), code="phase_error"))
            termination = TerminationReason.error(str(exc))
    response = last_assistant_text(run.messages, run.input_message_count)
    # The final state and ``run_finish`` are journaled by the final checkpoint itself (one
    # transaction) and sent once it committed.
    tail = _tail(run, termination, response)
    try:
        if run.persists:
            await run.checkpoint(termination, response, events=tail)
    except LoopStorageFailed as exc:
        _log.warning("final checkpoint of %s failed: %s", run.identity.run_id, exc)
        if termination.type is not _KIND_ERROR:
            await run.sink.emit(Error(message=str(exc), code="storage_error"))
            termination = TerminationReason.error(str(exc))
        for event in _tail(run, termination, response):
            await run.sink.emit(event)
        await run.flush_journal()
    else:
        for event in tail:
            await run.deliver(event)
    return run.result(termination, response)


def _tail(run: LoopContext, termination: TerminationReason, response: str) -> list[AgentEvent]:
    """The events that end a finished run: its state (when wanted), then ``run_finish``
    (none for a sink that drops events: then nothing journals them either)."""
    if not run.sink.wants_events:
        return []
    lifecycle = run.lifecycle()
    result: dict[str, Any] = {"response": response, "status": lifecycle.status.value}
    if lifecycle.status_reason:
        result["status_reason"] = lifecycle.status_reason
    if run.output.result is not None:
        result["output"] = run.output.result.data
    identity = run.identity
    finish_event = RunFinish(
        thread_id=identity.thread_id,
        run_id=identity.run_id,
        termination=termination,
        identity=identity,
        result=result,
    )
    snapshot = run.state_snapshot()
    return [finish_event] if snapshot is None else [snapshot, finish_event]


async def finish_suspended(run: LoopContext) -> None:
    """Announce the parked run: RunEnd (``suspended``), its state, then ``RunFinish``."""
    await run.observe_phase(_RUN_END, termination=TerminationReason.suspended())
    identity = run.identity
    await run.emit_state_snapshot()
    await run.sink.emit(
        RunFinish(
            thread_id=identity.thread_id,
            run_id=identity.run_id,
            termination=TerminationReason.suspended(),
            identity=identity,
        )
    )
    await run.flush_journal()
