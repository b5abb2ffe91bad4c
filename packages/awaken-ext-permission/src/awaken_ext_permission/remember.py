"""Remembering an approval when the human's decision asks for it."""

from __future__ import annotations

from awaken_contract.plugin import PhaseContext, PhaseHook
from awaken_contract.state import StateCommand
from awaken_tool_pattern import PatternSyntaxError

from awaken_ext_permission.decision import PermissionDecision, RememberScope
from awaken_ext_permission.gate import evaluate_call
from awaken_ext_permission.rules import PatternSubject, ToolPermissionBehavior
from awaken_ext_permission.state import (
    AllowTool,
    PermissionAction,
    PermissionOverridesKey,
    PermissionPolicyKey,
    SetRule,
)


class RememberApprovalHook(PhaseHook):
    """At BeforeToolExecute of an approved replay, store an allow rule when the decision says
    ``remember`` — for the thread (``permission_policy``) or the run (``permission_overrides``).

    Only calls that still need permission (evaluated ``ask``) are remembered. The rule allows
    the decision's ``pattern`` when it parses, else the called tool id.
    """

    async def run(self, ctx: PhaseContext) -> StateCommand:
        command = StateCommand()
        decision = PermissionDecision.of(ctx.resume_input)
        if decision is None or not decision.remembers:
            return command
        evaluation = evaluate_call(ctx)
        if evaluation is None or evaluation.behavior is not ToolPermissionBehavior.ASK:
            return command
        action: PermissionAction = AllowTool(evaluation.subject.tool_id)
        if decision.pattern:
            try:
                subject = PatternSubject.of(decision.pattern)
                action = SetRule(subject.pattern, ToolPermissionBehavior.ALLOW)
            except PatternSyntaxError:
                pass
        if decision.scope is RememberScope.SESSION:
            return command.update(PermissionOverridesKey, action)
        return command.update(PermissionPolicyKey, action)
