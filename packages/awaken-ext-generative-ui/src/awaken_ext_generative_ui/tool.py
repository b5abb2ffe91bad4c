"""The ``render_a2ui`` tool: validates A2UI messages and publishes them to the frontend.

The frontend renders from the call's arguments (streamed as tool-call events) or from the
``a2ui-surface`` activity snapshot the tool emits after validation — the AG-UI ecosystem's
convention (``@ag-ui/a2ui-middleware``): message id ``a2ui-surface-<call id>``, content
``{"a2ui_operations": [messages…]}``, ``replace: true``. The result is
``{"rendered": true, "count": <messages>}``; no state changes.
"""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.event import ActivitySnapshot
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult

from awaken_ext_generative_ui.schema import RENDER_A2UI_PARAMETERS
from awaken_ext_generative_ui.types import A2uiMessage
from awaken_ext_generative_ui.validation import validate_arguments

__all__ = [
    "A2UI_ACTIVITY_TYPE",
    "A2UI_OPERATIONS_KEY",
    "RENDER_A2UI_TOOL_ID",
    "RenderA2uiTool",
    "a2ui_activity",
]

#: Tool id and name.
RENDER_A2UI_TOOL_ID = "render_a2ui"
#: Activity type of the published surface operations.
A2UI_ACTIVITY_TYPE = "a2ui-surface"
#: Content key holding the operations.
A2UI_OPERATIONS_KEY = "a2ui_operations"

_DESCRIPTION = (
    "Render declarative UI (A2UI v0.8) in the user's interface. Send one message key per "
    "call — surfaceUpdate, dataModelUpdate, beginRendering or deleteSurface — or `messages` "
    "with several in order (surfaceUpdate, then dataModelUpdate, then beginRendering)."
)


def a2ui_activity(call_id: str, messages: list[A2uiMessage]) -> ActivitySnapshot:
    """The ``a2ui-surface`` activity snapshot carrying ``messages``."""
    return ActivitySnapshot(
        message_id=f"{A2UI_ACTIVITY_TYPE}-{call_id}",
        activity_type=A2UI_ACTIVITY_TYPE,
        content={A2UI_OPERATIONS_KEY: [message.to_json() for message in messages]},
        replace=True,
    )


class RenderA2uiTool(Tool):
    """``render_a2ui``: invalid messages are an ``InvalidArguments`` naming the path."""

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(
            RENDER_A2UI_TOOL_ID, RENDER_A2UI_TOOL_ID, _DESCRIPTION
        ).with_parameters(RENDER_A2UI_PARAMETERS)

    def validate_args(self, args: Any) -> None:
        validate_arguments(args)

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        messages = [A2uiMessage.from_json(m) for m in validate_arguments(args)]
        if ctx.activity_sink is not None:
            await ctx.activity_sink.emit(a2ui_activity(ctx.call_id, messages))
        return ToolResult.success(RENDER_A2UI_TOOL_ID, {"rendered": True, "count": len(messages)})
