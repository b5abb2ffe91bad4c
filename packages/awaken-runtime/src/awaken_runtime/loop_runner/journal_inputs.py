"""What a loop attempt takes from outside, as journal data: its start and its control inputs.

:func:`attempt_record` captures what an attempt starts from (message count, state, decisions,
frontend tools, overrides); :func:`control_inputs` / :func:`control_messages` convert the
control-channel entries a live run takes (decisions, messages) to journal data and back.
Deterministic replay (:mod:`awaken_runtime.replay`) rebuilds an attempt from these records.
"""

from __future__ import annotations

from collections.abc import Sequence

from awaken_contract.contract.journal import AttemptRecord, ControlInput
from awaken_contract.contract.storage import RunDecision

from awaken_runtime.loop_runner.params import AgentLoopParams, ControlMessage, Decisions, Inbox

__all__ = ["attempt_record", "control_inputs", "control_messages"]


def attempt_record(params: AgentLoopParams) -> AttemptRecord:
    """What an attempt of the loop starts from, as journal data (see :class:`AttemptRecord`)."""
    overrides = params.overrides
    return AttemptRecord(
        message_count=len(params.messages),
        state=params.runtime.store.export_persisted(),
        decisions=[RunDecision(call_id=c, resume=r) for c, r in params.decisions],
        frontend_tools=list(params.frontend_tools),
        overrides=None
        if overrides is None
        else overrides.model_dump(mode="json", exclude_unset=True),
        is_continuation=params.is_continuation,
        wants_state_snapshots=params.sink.wants_state_snapshots,
    )


def control_inputs(entries: Sequence[ControlMessage]) -> list[ControlInput]:
    """Control-channel entries as journal data."""
    inputs: list[ControlInput] = []
    for entry in entries:
        match entry:
            case Decisions(batch):
                inputs.append(ControlInput(decisions=[RunDecision(c, r) for c, r in batch]))
            case Inbox(messages):
                inputs.append(ControlInput(messages=list(messages)))
    return inputs


def control_messages(inputs: Sequence[ControlInput]) -> list[ControlMessage]:
    """Journaled control-channel entries as the loop receives them (replay feeds them)."""
    entries: list[ControlMessage] = []
    for item in inputs:
        if item.decisions:
            entries.append(Decisions([(d.call_id, d.resume) for d in item.decisions]))
        if item.messages:
            entries.append(Inbox(list(item.messages)))
    return entries
