"""AG-UI protocol adapter (``@ag-ui/client`` HttpAgent, CopilotKit)."""

from awaken_server.protocols.ag_ui.encoder import AgUiEncoder, AgUiEvent, PendingInterrupt
from awaken_server.protocols.ag_ui.messages import to_ag_ui_message, to_ag_ui_messages
from awaken_server.protocols.ag_ui.request import AgUiRunInput, RunAgentInput, decode_run_input
from awaken_server.protocols.ag_ui.routes import AG_UI_STREAM_HEADERS, ag_ui_routes

__all__ = [
    "AG_UI_STREAM_HEADERS",
    "AgUiEncoder",
    "AgUiEvent",
    "AgUiRunInput",
    "PendingInterrupt",
    "RunAgentInput",
    "ag_ui_routes",
    "decode_run_input",
    "to_ag_ui_message",
    "to_ag_ui_messages",
]
