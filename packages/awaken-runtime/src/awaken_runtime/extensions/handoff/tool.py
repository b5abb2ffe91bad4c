"""Optional handoff tools: ``transfer_to_<agent>`` and ``transfer_back``.

``HandoffPlugin(overlays, expose_tools=True)`` offers the model one tool per overlay plus
``transfer_back`` (return to the base agent); calling one requests the handoff, which takes
effect at the next step.
"""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.tool import (
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolOutput,
    ToolResult,
)
from awaken_contract.state import StateCommand

from awaken_runtime.extensions.handoff.state import ActiveAgentKey, clear_handoff, request_handoff

__all__ = ["TRANSFER_BACK_TOOL_ID", "HandoffTool", "handoff_tool_id"]

TRANSFER_BACK_TOOL_ID = "transfer_back"

_NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}}


def handoff_tool_id(agent_id: str) -> str:
    """``transfer_to_<agent_id>``."""
    return f"transfer_to_{agent_id}"


class HandoffTool(Tool):
    """Requests a handoff to ``target`` (``None`` = back to the base agent)."""

    def __init__(self, target: str | None, description: str | None = None) -> None:
        self.target = target
        self.tool_id = handoff_tool_id(target) if target is not None else TRANSFER_BACK_TOOL_ID
        self.description = description or (
            f"Hand the conversation over to the agent '{target}'."
            if target is not None
            else "Hand the conversation back to the original agent."
        )

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(self.tool_id, self.tool_id, self.description).with_parameters(
            _NO_ARGS
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolOutput:
        command = StateCommand()
        if self.target is None:
            command.update(ActiveAgentKey, clear_handoff())
        else:
            command.update(ActiveAgentKey, request_handoff(self.target))
        result = ToolResult.success(self.tool_id, {"handoff": self.target})
        return ToolOutput.with_command(result, command)
