"""AG-UI protocol adapter (``@ag-ui/client`` HttpAgent, CopilotKit)."""

from awaken_server.protocols.ag_ui.encoder import AgUiEncoder, AgUiEvent, PendingInterrupt
from awaken_server.protocols.ag_ui.messages import to_ag_ui_message, to_ag_ui_messages
from awaken_server.protocols.ag_ui.request import AgUiRunInput, RunAgentInput, decode_run_input

__all__ = [
    "AgUiEncoder",
    "AgUiEvent",
    "AgUiRunInput",
    "PendingInterrupt",
    "RunAgentInput",
    "decode_run_input",
    "to_ag_ui_message",
    "to_ag_ui_messages",
]
