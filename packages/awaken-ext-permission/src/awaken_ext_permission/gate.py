"""The tool gate: allow the call, block it with a reason the model sees, or ask a human."""

from __future__ import annotations

from awaken_contract.actions import InterceptBlock, InterceptSuspend, ToolInterceptPayload
from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallResumeMode,
)
from awaken_contract.plugin import PhaseContext, ToolGateHook

from awaken_ext_permission.decision import PermissionDecision
from awaken_ext_permission.rules import PermissionEvaluation, ToolPermissionBehavior
from awaken_ext_permission.state import (
    PermissionOverridesKey,
    PermissionPolicyKey,
    effective_ruleset,
)

#: The suspension action label of a permission prompt.
PERMISSION_CONFIRM_ACTION = "tool:PermissionConfirm"
#: The name of the pending call a frontend renders as the permission prompt.
PERMISSION_CONFIRM_TOOL = "permission_confirm"
#: Prefix of permission suspension ids (``perm_<call id>``).
SUSPENSION_ID_PREFIX = "perm_"


def denied_reason(tool_name: str) -> str:
    """The message a denied call's result carries (the model reads it)."""
    return f"Tool '{tool_name}' denied by permission rules"


def rejected_reason(tool_name: str, reason: str | None) -> str:
    """The message of a call whose prompt a human answered with ``approved: false``."""
    suffix = f": {reason}" if reason else ""
    return f"Tool '{tool_name}' was not approved{suffix}"


def permission_ticket(tool_name: str, call_id: str | None, arguments: object) -> SuspendTicket:
    """The suspend ticket asking a human to approve a call (resumed by replaying the call)."""
    suspension_id = SUSPENSION_ID_PREFIX + (call_id or "")
    return SuspendTicket(
        suspension=Suspension(
            id=suspension_id,
            action=PERMISSION_CONFIRM_ACTION,
            message=f"Permission required for tool '{tool_name}'",
            parameters=arguments,
        ),
        pending=PendingToolCall(
            id=suspension_id, name=PERMISSION_CONFIRM_TOOL, arguments=arguments
        ),
        resume_mode=ToolCallResumeMode.REPLAY_TOOL_CALL,
    )


def evaluate_call(ctx: PhaseContext) -> PermissionEvaluation | None:
    """The permission decision for the context's tool call (``None`` without a tool call)."""
    if ctx.tool_name is None:
        return None
    ruleset = effective_ruleset(ctx.state(PermissionPolicyKey), ctx.state(PermissionOverridesKey))
    return ruleset.evaluate(ctx.tool_name, ctx.tool_args)


class PermissionGate(ToolGateHook):
    """Deny → block (the run ends ``blocked``; the call's error result carries the reason);
    ask → suspend with a permission ticket, or let an approved replay through; allow → run."""

    async def run(self, ctx: PhaseContext) -> ToolInterceptPayload | None:
        evaluation = evaluate_call(ctx)
        if evaluation is None or ctx.tool_name is None:
            return None
        if evaluation.behavior is ToolPermissionBehavior.DENY:
            return InterceptBlock(denied_reason(ctx.tool_name))
        if evaluation.behavior is ToolPermissionBehavior.ALLOW:
            return None
        decision = PermissionDecision.of(ctx.resume_input)
        if decision is None:
            return InterceptSuspend(
                permission_ticket(ctx.tool_name, ctx.tool_call_id, ctx.tool_args)
            )
        if not decision.approved:
            reason = ctx.resume_input.reason if ctx.resume_input is not None else None
            return InterceptBlock(rejected_reason(ctx.tool_name, reason))
        return None
