"""Tool-call interception: tool-gate hooks first, then the BeforeToolExecute phase (hooks may
schedule :class:`ToolInterceptAction`); the strongest decision wins (Block > Suspend >
SetResult) and ``None`` lets the call run.

When BeforeToolExecute's hooks all only observe and nothing is queued, that phase is
:func:`observe_before`: its observers are called on one context, without the phase engine."""

from __future__ import annotations

from typing import Any

from awaken_contract.actions import ToolInterceptKey, ToolInterceptPayload
from awaken_contract.contract.message import ToolCall
from awaken_contract.contract.suspension import ToolCallState, ToolCallStatus
from awaken_contract.model import PendingScheduledActions, Phase
from awaken_contract.plugin import ToolKind
from awaken_contract.state import MutationBatch

from awaken_runtime.execution.context import ToolContext
from awaken_runtime.phase.immediate import ObservingPhase

__all__ = [
    "before_execute",
    "call_extra",
    "gate",
    "intercept",
    "may_intercept",
    "observe_before",
    "observes_before",
]

# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_BEFORE_TOOL_EXECUTE = Phase.BEFORE_TOOL_EXECUTE
_PENDING = PendingScheduledActions.KEY


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
    that do more than observe, or queued actions exist (else the call runs, after
    :func:`observe_before` when observers hook the phase; no need to await the interception)."""
    return bool(
        host.env.tool_gate_hooks
        or (host.hooks.get(_BEFORE_TOOL_EXECUTE) and _BEFORE_TOOL_EXECUTE not in host.observing)
        or host.store.values.get(_PENDING)
    )


def observes_before(host: ToolContext) -> ObservingPhase | None:
    """BeforeToolExecute's observers when they are all the phase runs (its hooks all observe
    and no action is queued): :func:`observe_before` then runs the phase."""
    observing = host.observing.get(_BEFORE_TOOL_EXECUTE)
    if observing is None or host.store.values.get(_PENDING):
        return None
    return observing


def observe_before(
    host: ToolContext, observing: ObservingPhase, call: ToolCall, state: ToolCallState | None
) -> ToolInterceptPayload | None:
    """BeforeToolExecute run by its observers alone (see :func:`observes_before`), as
    :func:`before_execute` runs it: the intercept the phase leaves, if any."""
    observing.observe(host.phase_ctx(_BEFORE_TOOL_EXECUTE, **call_extra(call, state)))
    return _take_intercept(host)


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
    if not before and not store.read_raw(_PENDING):
        return None
    observing = observes_before(host)
    if observing is not None:
        return observe_before(host, observing, call, state)
    ctx = host.phase_ctx(_BEFORE_TOOL_EXECUTE, **call_extra(call, state))
    phase = host.phase
    if before:
        command = await phase.collect_commands(env, ctx, before)
        if not command.is_empty:
            await phase.submit_command(env, command)
    if store.read_raw(_PENDING):
        await phase.run_execute_loop(env, ctx)
    return _take_intercept(host)


def _take_intercept(host: ToolContext) -> ToolInterceptPayload | None:
    """The intercept BeforeToolExecute left for the call (cleared for the next one)."""
    store = host.store
    current = store.read(ToolInterceptKey)
    if current is None:
        return None
    store.commit(MutationBatch().clear(ToolInterceptKey))
    return current.payload
