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

UI_MESSAGE_STREAM_HEADERS = {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache",
    "Connection": "keep-alive",
    "x-vercel-ai-ui-message-stream": "v1",
}
"""Response headers of every AI SDK streaming route."""

__all__ = [
    "UI_MESSAGE_STREAM_HEADERS",
    "AiSdkEncoder",
    "ChatInput",
    "ChatRequest",
    "Part",
    "convert_ui_messages",
    "data_part",
    "decode_chat_input",
    "encode_history",
    "extract_decisions",
    "filter_decisions",
    "finish_reason",
]
