"""Cheap token estimates (about 4 UTF-8 bytes per token) for context window decisions.

* message: ``4 + (text bytes + thinking bytes + tool-call bytes + 50 per other block) // 4``;
* tool descriptor: ``(name + description + compact JSON schema bytes) // 4 + 10``.
"""

from __future__ import annotations

from collections.abc import Iterable

from awaken_contract.codec import encode_json
from awaken_contract.contract.content import TextBlock, ThinkingBlock
from awaken_contract.contract.message import Message
from awaken_contract.contract.tool import ToolDescriptor

__all__ = [
    "MESSAGE_OVERHEAD_TOKENS",
    "NON_TEXT_BLOCK_BYTES",
    "estimate_message_tokens",
    "estimate_tokens",
    "estimate_tool_tokens",
    "estimate_tools_tokens",
    "text_tokens",
]

#: Fixed per-message overhead (role, separators).
MESSAGE_OVERHEAD_TOKENS = 4
#: Bytes charged for a non-text block (image, document, tool use …).
NON_TEXT_BLOCK_BYTES = 50


def text_tokens(text: str) -> int:
    """Estimated tokens of a piece of text."""
    return len(text.encode()) // 4


def estimate_message_tokens(message: Message) -> int:
    """Estimated tokens of one message."""
    size = 0
    for block in message.content:
        if isinstance(block, TextBlock):
            size += len(block.text.encode())
        elif isinstance(block, ThinkingBlock):
            size += len(block.thinking.encode())
        else:
            size += NON_TEXT_BLOCK_BYTES
    for call in message.tool_calls or ():
        size += len(call.name.encode()) + len(encode_json(call.arguments))
    return MESSAGE_OVERHEAD_TOKENS + size // 4


def estimate_tokens(messages: Iterable[Message]) -> int:
    """Estimated tokens of a message list."""
    return sum(estimate_message_tokens(m) for m in messages)


def estimate_tool_tokens(tool: ToolDescriptor) -> int:
    """Estimated tokens a tool definition costs in a request."""
    size = len(tool.name.encode()) + len(tool.description.encode())
    size += len(encode_json(tool.parameters))
    return size // 4 + 10


def estimate_tools_tokens(tools: Iterable[ToolDescriptor]) -> int:
    """Estimated tokens of several tool definitions."""
    return sum(estimate_tool_tokens(t) for t in tools)
