"""Resuming suspended tool calls: decisions become call states, answers replace messages.

:func:`prepare_resume` turns decisions into ``resuming`` / ``cancelled`` call states (the
pipeline's ``replay_resumed`` then acts on them); :func:`replace_tool_message` keeps exactly
one tool message per call after a resume.
"""

from __future__ import annotations

from collections.abc import Sequence

from awaken_contract.actions import PutToolCallState, ToolCallStatesKey, ToolCallStatesMap
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.suspension import (
    ResumeDecisionAction,
    ToolCallResume,
    ToolCallResumeMode,
    ToolCallState,
    ToolCallStatus,
)
from awaken_contract.errors import UnknownKey
from awaken_contract.ids import now_ms
from awaken_contract.state import MutationBatch

from awaken_runtime.state.store import StateStore

__all__ = ["cancelled_text", "prepare_resume", "replace_tool_message"]


def prepare_resume(store: StateStore, decisions: Sequence[tuple[str, ToolCallResume]]) -> None:
    """Mark the targeted suspended calls ``resuming`` (resume) or ``cancelled`` (cancel).

    A target is a call id or a suspension id; an unknown target raises ``UnknownKey``. With
    ``pass_decision_to_tool`` the decision's result becomes the call's new arguments.
    """
    if not decisions:
        return
    states = store.read(ToolCallStatesKey) or ToolCallStatesMap()
    batch = MutationBatch()
    now = now_ms()
    for target, resume in decisions:
        state = states.calls.get(target)
        if state is None:
            state = next((s for s in states.calls.values() if s.suspension_id == target), None)
        if state is None:
            raise UnknownKey(f"tool call or suspension {target} not found")
        if resume.action is ResumeDecisionAction.RESUME:
            status = ToolCallStatus.RESUMING
            arguments = (
                resume.result
                if state.resume_mode is ToolCallResumeMode.PASS_DECISION_TO_TOOL
                else state.arguments
            )
        else:
            status = ToolCallStatus.CANCELLED
            arguments = state.arguments
        batch.update(
            ToolCallStatesKey,
            PutToolCallState(
                ToolCallState(
                    call_id=state.call_id,
                    tool_name=state.tool_name,
                    arguments=arguments,
                    status=status,
                    updated_at=now,
                    resume_mode=state.resume_mode,
                    suspension_id=state.suspension_id,
                    suspension_reason=state.suspension_reason,
                    resume_input=resume,
                )
            ),
        )
    store.commit(batch)


def replace_tool_message(messages: list[Message], message: Message) -> None:
    """Put a tool message in place of an earlier answer to the same call, else append it
    (after a resume exactly one tool message answers each call)."""
    call_id = message.tool_call_id
    for index in range(len(messages) - 1, -1, -1):
        existing = messages[index]
        if existing.role is Role.TOOL and existing.tool_call_id == call_id:
            messages[index] = message
            return
    messages.append(message)


def cancelled_text(name: str, resume: ToolCallResume) -> str:
    """What the model reads for a call the user cancelled."""
    text = f"Tool '{name}' was cancelled by the user"
    return f"{text}: {resume.reason}" if resume.reason else text
