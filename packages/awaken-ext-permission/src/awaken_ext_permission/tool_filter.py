"""Hiding tools the rules deny outright, so the model never sees them."""

from __future__ import annotations

from awaken_contract.actions import ExcludeTool
from awaken_contract.plugin import PhaseContext, PhaseHook
from awaken_contract.state import StateCommand

from awaken_ext_permission.state import (
    PermissionOverridesKey,
    PermissionPolicyKey,
    effective_ruleset,
)


class PermissionToolFilter(PhaseHook):
    """At BeforeInference, exclude every tool denied whatever its arguments.

    Glob, regex and argument-conditioned denies are left to the gate.
    """

    async def run(self, ctx: PhaseContext) -> StateCommand:
        ruleset = effective_ruleset(
            ctx.state(PermissionPolicyKey), ctx.state(PermissionOverridesKey)
        )
        command = StateCommand()
        for tool_id in ruleset.unconditionally_denied():
            command.schedule_action(ExcludeTool, tool_id)
        return command
