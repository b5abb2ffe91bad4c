"""Context window management: token estimates, truncation and LLM compaction.

Agents with a ``ContextWindowPolicy`` get the ``context_compaction`` and ``context_transform``
plugins: the transform keeps every request within the budget (summary view, tool-output
previews, truncation that keeps tool calls and results together); compaction summarizes older
history with an LLM once ``autocompact_threshold`` is reached. (Truncation recovery — continuing
an answer cut off by the output limit — lives in the loop runner.)
"""

from awaken_runtime.context.compaction import (
    COMPACTION_PLUGIN_ID,
    MIN_COMPACTION_GAIN_TOKENS,
    CompactionBoundary,
    CompactionPlugin,
    CompactionState,
    CompactionStateKey,
    compact_history,
    compaction_config,
    custom_summarizer,
    find_compaction_boundary,
    render_transcript,
)
from awaken_runtime.context.summarizer import (
    ContextSummarizer,
    DefaultSummarizer,
    EmptySummary,
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
from awaken_runtime.context.tokens import (
    estimate_message_tokens,
    estimate_tokens,
    estimate_tool_tokens,
    estimate_tools_tokens,
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
    "COMPACTION_PLUGIN_ID",
    "CONTEXT_TRANSFORM_PLUGIN_ID",
    "INTERRUPTED_TOOL_RESULT",
    "MIN_COMPACTION_GAIN_TOKENS",
    "SUMMARY_CLOSE",
    "SUMMARY_OPEN",
    "CompactionBoundary",
    "CompactionPlugin",
    "CompactionState",
    "CompactionStateKey",
    "ContextSummarizer",
    "ContextTransform",
    "ContextTransformPlugin",
    "DefaultSummarizer",
    "EmptySummary",
    "compact_artifact",
    "compact_history",
    "compact_tool_artifacts",
    "compaction_config",
    "custom_summarizer",
    "estimate_message_tokens",
    "estimate_tokens",
    "estimate_tool_tokens",
    "estimate_tools_tokens",
    "find_compaction_boundary",
    "is_summary_message",
    "last_summary_index",
    "render_transcript",
    "repair_dangling_tool_calls",
    "summary_message",
    "summary_text",
    "summary_view",
    "trim_to_compaction_boundary",
    "truncate_messages",
]
