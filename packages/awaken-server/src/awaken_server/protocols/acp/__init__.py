"""Agent Client Protocol (ACP) over stdio: ``awaken acp --agent ID``.

:class:`AcpEncoder` maps events to ACP outputs (pure); :class:`AwakenAcpAgent` implements the
agent side with the ``agent-client-protocol`` SDK; :func:`serve_acp_stdio` runs it.
"""

from awaken_server.protocols.acp.agent import PERMISSION_OPTIONS, AwakenAcpAgent, decision_for
from awaken_server.protocols.acp.encoder import (
    AcpEncoder,
    AcpOutput,
    PermissionRequest,
    PromptFailed,
    PromptFinished,
    SessionUpdate,
    stop_reason,
    tool_kind,
)
from awaken_server.protocols.acp.stdio import acp_main, serve_acp_stdio

__all__ = [
    "PERMISSION_OPTIONS",
    "AcpEncoder",
    "AcpOutput",
    "AwakenAcpAgent",
    "PermissionRequest",
    "PromptFailed",
    "PromptFinished",
    "SessionUpdate",
    "acp_main",
    "decision_for",
    "serve_acp_stdio",
    "stop_reason",
    "tool_kind",
]
