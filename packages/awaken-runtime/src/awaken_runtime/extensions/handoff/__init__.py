"""Agent handoff: switch the running agent's persona (prompt, model, tools) inside one run.

``HandoffPlugin(overlays)`` + ``request_handoff(agent)`` / ``activate_handoff(agent)`` /
``clear_handoff()`` updates of :class:`ActiveAgentKey`, applied at safe step boundaries.
"""

from awaken_runtime.extensions.handoff.plugin import (
    HANDOFF_PLUGIN_ID,
    HandoffPlugin,
    HandoffSyncHook,
)
from awaken_runtime.extensions.handoff.state import (
    ActivateHandoff,
    ActiveAgentIdKey,
    ActiveAgentKey,
    ClearHandoff,
    HandoffAction,
    HandoffState,
    RequestHandoff,
    activate_handoff,
    clear_handoff,
    request_handoff,
)
from awaken_runtime.extensions.handoff.switch import (
    find_handoff_plugin,
    handoff_target,
    resolve_handoff,
)
from awaken_runtime.extensions.handoff.tool import (
    TRANSFER_BACK_TOOL_ID,
    HandoffTool,
    handoff_tool_id,
)
from awaken_runtime.extensions.handoff.types import AgentOverlay

__all__ = [
    "HANDOFF_PLUGIN_ID",
    "TRANSFER_BACK_TOOL_ID",
    "ActivateHandoff",
    "ActiveAgentIdKey",
    "ActiveAgentKey",
    "AgentOverlay",
    "ClearHandoff",
    "HandoffAction",
    "HandoffPlugin",
    "HandoffState",
    "HandoffSyncHook",
    "HandoffTool",
    "RequestHandoff",
    "activate_handoff",
    "clear_handoff",
    "find_handoff_plugin",
    "handoff_target",
    "handoff_tool_id",
    "request_handoff",
    "resolve_handoff",
]
