"""Token estimates of the context window logic (defined in ``awaken_contract.contract.tokens``,
shared with extensions such as compaction)."""

from awaken_contract.contract.tokens import (
    MESSAGE_OVERHEAD_TOKENS,
    NON_TEXT_BLOCK_BYTES,
    estimate_message_tokens,
    estimate_tokens,
    estimate_tool_tokens,
    estimate_tools_tokens,
    text_tokens,
)

__all__ = [
    "MESSAGE_OVERHEAD_TOKENS",
    "NON_TEXT_BLOCK_BYTES",
    "estimate_message_tokens",
    "estimate_tokens",
    "estimate_tool_tokens",
    "estimate_tools_tokens",
    "text_tokens",
]
