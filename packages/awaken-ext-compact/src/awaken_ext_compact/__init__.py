"""Context compaction for Awaken agents (``awaken.ext_compact``).

A BeforeInference hook: once the history reaches the trigger (estimated tokens when the
model's context window is known, otherwise a message count), a configured compactor agent
summarises the older prefix in the background, one job per thread. The request then carries
the summary, the bridge not yet covered by it and the recent tail; the transcript keeps every
message. A run waits for a summary only when its request would overflow the window.
"""

from awaken_ext_compact.compactor import (
    AgentCompactor,
    Compactor,
    compactor_prompt,
)
from awaken_ext_compact.config import CompactConfig, CompactConfigKey
from awaken_ext_compact.jobs import SummaryJobs
from awaken_ext_compact.plugin import (
    COMPACT_PLUGIN_ID,
    SUMMARY_CONTEXT_KEY,
    CompactorUnavailable,
    CompactPlugin,
    summary_context_message,
)
from awaken_ext_compact.prefix import find_compaction_boundary, render_transcript
from awaken_ext_compact.state import CompactSummary, CompactSummaryKey
from awaken_ext_compact.view import HistoryCut

__all__ = [
    "COMPACT_PLUGIN_ID",
    "SUMMARY_CONTEXT_KEY",
    "AgentCompactor",
    "CompactConfig",
    "CompactConfigKey",
    "CompactPlugin",
    "CompactSummary",
    "CompactSummaryKey",
    "Compactor",
    "CompactorUnavailable",
    "HistoryCut",
    "SummaryJobs",
    "compactor_prompt",
    "find_compaction_boundary",
    "render_transcript",
    "summary_context_message",
]
