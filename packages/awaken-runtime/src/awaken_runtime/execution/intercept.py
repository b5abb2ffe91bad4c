"""Tool-call interception: tool-gate hooks first, then the BeforeToolExecute phase (hooks may
schedule :class:`ToolInterceptAction`); the strongest decision wins (Block > Suspend >
SetResult) and ``None`` lets the call run."""

from __future__ import annotations

from typing import Any

from awaken_contract.actions import ToolInterceptKey, ToolInterceptPayload
from awaken_contract.contract.message import ToolCall
from awaken_contract.contract.suspension import ToolCallState, ToolCallStatus
from awaken_contract.model import PendingScheduledActions, Phase
from awaken_contract.plugin import ToolKind
from awaken_contract.state import MutationBatch

from awaken_runtime.execution.context import ToolContext

__all__ = ["before_execute", "call_extra", "gate", "intercept", "may_intercept"]

# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_BEFORE_TOOL_EXECUTE = Phase.BEFORE_TOOL_EXECUTE


def call_extra(call: ToolCall, state: ToolCallState | None) -> dict[str, Any]:
    """The phase-context extras describing the call (and its resume input when resuming)."""
    extra: dict[str, Any] = {
        "tool_name": call.name,
        "tool_call_id": call.id,
        "tool_args": call.arguments,
        "tool_kind": ToolKind.infer(call.name),
    }
    if state is not None and state.status is ToolCallStatus.RESUMING:
        extra["resume_input"] = state.resume_input
        extra["suspension_id"] = state.suspension_id
        extra["suspension_reason"] = state.suspension_reason
    return extra


def may_intercept(host: ToolContext) -> bool:
    """Whether :func:`intercept` can decide anything: tool-gate hooks, BeforeToolExecute hooks
    or queued actions exist (else the call runs; no need to await the interception)."""
    return bool(
        host.env.tool_gate_hooks
        or host.hooks.get(_BEFORE_TOOL_EXECUTE)
        or host.store.read_raw(PendingScheduledActions.KEY)
    )


async def intercept(
    host: ToolContext, call: ToolCall, state: ToolCallState | None
) -> ToolInterceptPayload | None:
    """The call's interception decision (``None`` lets it run): gates first, then hooks."""
    decision = await gate(host, call, state)
    if decision is not None:
        return decision
    return await before_execute(host, call, state)


async def gate(
    host: ToolContext, call: ToolCall, state: ToolCallState | None
) -> ToolInterceptPayload | None:
    """The tool-gate hooks' strongest decision for the call on the current state."""
    gates = host.env.tool_gate_hooks
    if not gates:
        return None
    ctx = host.phase_ctx(Phase.TOOL_GATE, **call_extra(call, state))
    decision: ToolInterceptPayload | None = None
    for registered in gates:
        payload = await registered.hook.run(ctx)
        if payload is not None and payload.outranks(decision):
            decision = payload
    return decision


async def before_execute(
    host: ToolContext, call: ToolCall, state: ToolCallState | None
) -> ToolInterceptPayload | None:
    """Run BeforeToolExecute hooks and scheduled actions; the intercept they set, if any."""
    env = host.env
    store = host.store
    before = host.hooks_for(_BEFORE_TOOL_EXECUTE)
    if not before and not store.read_raw(PendingScheduledActions.KEY):
        return None
    ctx = host.phase_ctx(_BEFORE_TOOL_EXECUTE, **call_extra(call, state))
    phase = host.phase
    if before:
        command = await phase.collect_commands(env, ctx, before)
        if not command.is_empty:
            await phase.submit_command(env, command)
    if store.read_raw(PendingScheduledActions.KEY):
        await phase.run_execute_loop(env, ctx)
    current = store.read(ToolInterceptKey)
    if current is None:
        return None
    store.commit(MutationBatch().clear(ToolInterceptKey))
    return current.payload
