"""AI SDK v6 UI message stream adapter (``useChat`` with ``DefaultChatTransport``)."""

from awaken_server.protocols.ai_sdk_v6.encoder import AiSdkEncoder, Part, data_part, finish_reason
from awaken_server.protocols.ai_sdk_v6.history import encode_history
from awaken_server.protocols.ai_sdk_v6.request import (
    ChatInput,
    ChatRequest,
    convert_ui_messages,
    decode_chat_input,
    extract_decisions,
    filter_decisions,
)
from awaken_server.protocols.ai_sdk_v6.routes import UI_MESSAGE_STREAM_HEADERS, ai_sdk_routes

__all__ = [
    "UI_MESSAGE_STREAM_HEADERS",
    "AiSdkEncoder",
    "ChatInput",
    "ChatRequest",
    "Part",
    "ai_sdk_routes",
    "convert_ui_messages",
    "data_part",
    "decode_chat_input",
    "encode_history",
    "extract_decisions",
    "filter_decisions",
    "finish_reason",
]
