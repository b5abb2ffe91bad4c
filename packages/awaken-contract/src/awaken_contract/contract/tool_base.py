"""The ``Tool`` base class and ``FrontEndTool`` (a tool the client executes)."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any

from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallResumeMode,
)
from awaken_contract.contract.tool_result import ToolDescriptor, ToolOutput, ToolResult

if TYPE_CHECKING:
    from awaken_contract.contract.tool_context import ToolCallContext

__all__ = ["FrontEndTool", "Tool"]


class Tool(abc.ABC):
    """A capability the model can call.

    Implement :meth:`descriptor` and :meth:`execute`; override :meth:`validate_args` to reject
    bad arguments (raise :class:`InvalidArguments`) before execution.
    """

    @abc.abstractmethod
    def descriptor(self) -> ToolDescriptor:
        """Describe the tool (id, name, description, JSON Schema of arguments)."""

    def validate_args(self, args: Any) -> None:  # noqa: B027 - optional hook
        """Validate arguments before execution; raise :class:`InvalidArguments` to reject."""

    @abc.abstractmethod
    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult | ToolOutput:
        """Run the tool."""


class FrontEndTool(Tool):
    """A tool executed by the client: the run suspends until the client returns a result."""

    def __init__(self, descriptor: ToolDescriptor) -> None:
        self._descriptor = descriptor

    def descriptor(self) -> ToolDescriptor:
        """The frontend-supplied descriptor."""
        return self._descriptor

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        """Suspend, or return the client's result when this is the resumed call."""
        tool_id = self._descriptor.id
        if ctx.resume_input is not None:
            return ToolResult.success(tool_id, ctx.resume_input.result)
        call_id = ctx.call_id.strip() or tool_id
        ticket = SuspendTicket(
            suspension=Suspension(
                id=f"suspend_{call_id}",
                action=f"tool:{tool_id}",
                message=f"Frontend tool '{tool_id}' requires client execution",
                parameters=args,
            ),
            pending=PendingToolCall(id=call_id, name=tool_id, arguments=args),
            resume_mode=ToolCallResumeMode.USE_DECISION_AS_TOOL_RESULT,
        )
        return ToolResult.suspended_with(
            tool_id, f"Tool '{tool_id}' suspended: awaiting decision", ticket
        )
