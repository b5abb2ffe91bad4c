"""Building the :class:`RunRecord` written at every checkpoint.

A checkpoint is one atomic ``ThreadRunStore.checkpoint(thread_id, messages, run)``: the whole
message list plus the run record (status from the run lifecycle, waiting tickets from the
suspended tool calls, the persisted state, token totals and the message ranges the run read
and produced). The final checkpoint adds the termination, the final output and the outcome.
"""

from __future__ import annotations

from typing import Any

import msgspec
from awaken_contract.actions import RunLifecycleState, ToolCallStatesMap
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind, TerminationReason
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.storage import (
    MessageSeqRange,
    RunMessageInput,
    RunMessageOutput,
    RunOutcome,
    RunRecord,
    RunRequestSnapshot,
    RunWaitingState,
    RunWaitingTicket,
)
from awaken_contract.contract.suspension import ToolCallStatus, WaitingReason
from awaken_contract.state import PersistedState

from awaken_runtime.run_journal import INTERRUPTED_TOOL_CALL

__all__ = ["RunRecordInputs", "build_run_record", "waiting_reason_of"]

_WAITING_REASONS = {
    "awaiting_tasks": WaitingReason.BACKGROUND_TASKS,
    "input_required": WaitingReason.USER_INPUT,
    "user_input_required": WaitingReason.USER_INPUT,
    "auth_required": WaitingReason.TOOL_PERMISSION,
    "suspended": WaitingReason.TOOL_PERMISSION,
    "rate_limit": WaitingReason.RATE_LIMIT,
    "manual_pause": WaitingReason.MANUAL_PAUSE,
}


# Enum members read on the hot path, as module constants (Python 3.11 routes every
# ``Enum.MEMBER`` lookup through ``EnumType.__getattr__``).
_ASSISTANT = Role.ASSISTANT
_TOOL = Role.TOOL
_DONE = RunStatus.DONE
_WAITING = RunStatus.WAITING
_KIND_ERROR = TerminationKind.ERROR


def waiting_reason_of(status_reason: str | None) -> WaitingReason:
    """Map a lifecycle pause reason to a :class:`WaitingReason`."""
    return _WAITING_REASONS.get(status_reason or "", WaitingReason.EXTERNAL_EVENT)


class RunRecordInputs(msgspec.Struct, kw_only=True, eq=False):
    """The loop-side facts a run record is built from (a msgspec struct: one per run, built
    in C)."""

    identity: RunIdentity
    previous: RunRecord | None
    request: RunRequestSnapshot | None
    input_message_count: int
    loop_start_ms: int
    base_steps: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    own_previous: bool = False
    """``previous`` is this attempt's own last record (identity, request, input and start
    are then the same: the next record replaces the rest)."""


def _waiting(lifecycle: RunLifecycleState, calls: ToolCallStatesMap | None) -> RunWaitingState:
    tickets = []
    if calls is not None:
        for state in calls.calls.values():
            if state.status is ToolCallStatus.SUSPENDED:
                tickets.append(
                    RunWaitingTicket(
                        ticket_id=state.suspension_id or state.call_id,
                        tool_call_id=state.call_id,
                        tool_name=state.tool_name,
                        arguments=state.arguments,
                        resume_mode=state.resume_mode,
                        reason=state.suspension_reason,
                        updated_at=state.updated_at,
                    )
                )
    tickets.sort(key=lambda t: (t.tool_call_id, t.ticket_id))
    interrupted = any(t.reason == INTERRUPTED_TOOL_CALL for t in tickets)
    return RunWaitingState(
        reason=(
            WaitingReason.INTERRUPTED_TOOL_CALL
            if interrupted
            else waiting_reason_of(lifecycle.status_reason)
        ),
        ticket_ids=[t.ticket_id for t in tickets],
        tickets=tickets,
        message=lifecycle.status_reason,
    )


def _mark_outputs(inputs: RunRecordInputs, messages: list[Message], step_index: int) -> list[str]:
    run_id = inputs.identity.run_id
    ids: list[str] = []
    for message in messages[inputs.input_message_count :]:
        role = message.role
        if role is _ASSISTANT or role is _TOOL:
            meta = message.metadata
            if meta is None or meta.run_id is None or meta.step_index is None:
                message.mark_produced_by(run_id, step_index)
            if message.id is not None:
                ids.append(message.id)
    return ids


def _output(
    inputs: RunRecordInputs, output: RunMessageOutput | None, produced: list[str], total: int
) -> RunMessageOutput | None:
    """The run's output messages: ``output`` (the previous record's) plus ``produced``."""
    if not produced:
        return output
    start = inputs.input_message_count + 1
    if output is None:
        known = produced
    else:
        if output.range is not None:
            start = min(start, output.range.from_seq)
        previous_ids = output.message_ids
        if (
            produced == previous_ids
            and output.range is not None
            and output.range.to_seq == total
            and output.thread_id == inputs.identity.thread_id
        ):
            return output  # (nothing new: the record shares the previous record's part)
        known = list(previous_ids)
        seen = set(known)
        known.extend(i for i in produced if i not in seen)
    return RunMessageOutput(
        thread_id=inputs.identity.thread_id,
        range=MessageSeqRange(from_seq=start, to_seq=total) if total >= start else None,
        message_ids=known,
    )


def _outcome(
    termination: TerminationReason | None, response: str
) -> tuple[Any, str | None, RunOutcome | None]:
    """``(error_payload, final_output, outcome)`` of a final checkpoint (all ``None`` before)."""
    if termination is None:
        return None, None, None
    error_payload: Any = None
    if termination.message is not None and termination.type is _KIND_ERROR:
        error_payload = {"message": termination.message}
    final_output = response or None
    outcome = RunOutcome(
        termination_reason=termination,
        final_output=final_output,
        error_payload=error_payload,
    )
    return error_payload, final_output, outcome


def build_run_record(
    inputs: RunRecordInputs,
    lifecycle: RunLifecycleState,
    calls: ToolCallStatesMap | None,
    state: PersistedState,
    messages: list[Message],
    *,
    termination: TerminationReason | None = None,
    response: str = "",
    now_secs: int,
) -> RunRecord:
    """The run record for a checkpoint (``termination`` set only for the final one).

    After the attempt's first checkpoint (``inputs.own_previous``) the record is the previous
    one with the parts a step changes replaced: identity, request, input and start stay."""
    previous = inputs.previous
    start_secs = inputs.loop_start_ms // 1000
    updated = lifecycle.updated_at // 1000 if lifecycle.updated_at else start_secs
    steps = inputs.base_steps + lifecycle.step_count
    produced = _mark_outputs(inputs, messages, max(steps - 1, 0))
    output = _output(
        inputs, previous.output if previous is not None else None, produced, len(messages)
    )
    error_payload, final_output, outcome = _outcome(termination, response)
    status = lifecycle.status
    done = status is _DONE
    finished = updated if done else (previous.finished_at if previous is not None else None)
    waiting = _waiting(lifecycle, calls) if status is _WAITING else None
    base = (
        previous
        if previous is not None and inputs.own_previous
        else _record_base(inputs, status, start_secs)
    )
    return msgspec.structs.replace(
        base,
        output=output,
        status=status,
        termination_reason=termination,
        final_output=final_output,
        error_payload=error_payload,
        waiting=waiting,
        outcome=outcome,
        finished_at=finished,
        updated_at=max(updated, now_secs),
        steps=steps,
        input_tokens=inputs.input_tokens,
        output_tokens=inputs.output_tokens,
        cost=inputs.cost,
        state=state,
    )


def _record_base(inputs: RunRecordInputs, status: RunStatus, start_secs: int) -> RunRecord:
    """The parts of the record that stay the same through the attempt's checkpoints: identity,
    request snapshot, input range and start (the rest is replaced per checkpoint)."""
    identity = inputs.identity
    previous = inputs.previous
    thread_id = identity.thread_id
    msg_input = previous.input if previous is not None else None
    if msg_input is None and inputs.input_message_count > 0:
        first_new = 1
        if inputs.request is not None and inputs.request.input_message_count:
            first_new = max(1, inputs.input_message_count - inputs.request.input_message_count + 1)
        msg_input = RunMessageInput(
            thread_id=thread_id,
            range=MessageSeqRange(from_seq=first_new, to_seq=inputs.input_message_count),
        )
    return RunRecord(
        run_id=identity.run_id,
        thread_id=thread_id,
        agent_id=identity.agent_id,
        parent_run_id=identity.parent_run_id,
        request=previous.request if previous is not None else inputs.request,
        input=msg_input,
        status=status,
        dispatch_id=identity.dispatch_id,
        session_id=identity.session_id,
        transport_request_id=identity.transport_request_id,
        user_id=identity.user_id,
        created_at=previous.created_at if previous is not None else start_secs,
        started_at=(
            previous.started_at
            if previous is not None and previous.started_at is not None
            else start_secs
        ),
        updated_at=start_secs,
    )
