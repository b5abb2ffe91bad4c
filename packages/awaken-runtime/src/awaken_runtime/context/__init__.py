"""Context window management: token estimates and truncation.

Agents with a ``ContextWindowPolicy`` get the ``context_transform`` plugin: it keeps every
request within the budget (summary view, tool-output previews, truncation that keeps tool calls
and results together). LLM compaction — summarising older history — is the ``compact``
extension (``awaken-ext-compact``). Truncation recovery — continuing an answer cut off by the
output limit — lives in the loop runner.
"""

from awaken_contract.contract.tokens import (
    estimate_message_tokens,
    estimate_tokens,
    estimate_tool_tokens,
    estimate_tools_tokens,
)

from awaken_runtime.context.summary import (
    SUMMARY_CLOSE,
    SUMMARY_OPEN,
    is_summary_message,
    last_summary_index,
    summary_message,
    summary_text,
    summary_view,
    trim_to_compaction_boundary,
)
from awaken_runtime.context.truncation import (
    CONTEXT_TRANSFORM_PLUGIN_ID,
    INTERRUPTED_TOOL_RESULT,
    ContextTransform,
    ContextTransformPlugin,
    compact_artifact,
    compact_tool_artifacts,
    repair_dangling_tool_calls,
    truncate_messages,
)

__all__ = [
    "CONTEXT_TRANSFORM_PLUGIN_ID",
    "INTERRUPTED_TOOL_RESULT",
    "SUMMARY_CLOSE",
    "SUMMARY_OPEN",
    "ContextTransform",
    "ContextTransformPlugin",
    "compact_artifact",
    "compact_tool_artifacts",
    "estimate_message_tokens",
    "estimate_tokens",
    "estimate_tool_tokens",
    "estimate_tools_tokens",
    "is_summary_message",
    "last_summary_index",
    "repair_dangling_tool_calls",
    "summary_message",
    "summary_text",
    "summary_view",
    "trim_to_compaction_boundary",
    "truncate_messages",
]
