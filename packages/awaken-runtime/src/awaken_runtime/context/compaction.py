"""LLM compaction: summarize the older part of the history into one summary message.

Runs before an inference when the agent's ``ContextWindowPolicy.autocompact_threshold`` is set
and the visible history (from the latest summary on) is estimated at or above it:

1. the compactable prefix ends at a *safe boundary* — every tool call before it is answered
   and the first kept message is not a tool result. ``keep_recent_raw_suffix`` keeps the last
   ``compaction_raw_suffix_messages`` messages raw; ``compact_to_safe_frontier`` compacts up to
   the latest safe boundary (the newest message always stays raw);
2. prefixes under 1024 estimated tokens, or that cannot save ``min_savings_ratio`` of their
   tokens, are left alone;
3. the transcript (non-internal messages with text, ``[Role]: text``) and the previous summary
   go to the summarizer; the summary message is inserted after the summarized messages, which
   stay in the thread log but are no longer sent to the model.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

import msgspec
from awaken_contract.contract.message import Message, Role, Visibility
from awaken_contract.errors import KeyDecode
from awaken_contract.ids import now_ms
from awaken_contract.plugin import ConfigSchema, Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.registry_spec import (
    AgentSpec,
    CompactionConfig,
    CompactionConfigKey,
    ContextCompactionMode,
    ContextWindowPolicy,
)
from awaken_contract.state import KeyScope, MergeStrategy, StateKey

from awaken_runtime.context.summarizer import DEFAULT_SUMMARY_MAX_TOKENS, ContextSummarizer
from awaken_runtime.context.summary import (
    is_summary_message,
    last_summary_index,
    summary_message,
    summary_text,
)
from awaken_runtime.context.tokens import estimate_message_tokens, estimate_tokens

__all__ = [
    "COMPACTION_PLUGIN_ID",
    "MIN_COMPACTION_GAIN_TOKENS",
    "CompactionBoundary",
    "CompactionPlugin",
    "CompactionState",
    "CompactionStateKey",
    "compact_history",
    "compaction_config",
    "custom_summarizer",
    "find_compaction_boundary",
    "render_transcript",
]

_log = logging.getLogger(__name__)

COMPACTION_PLUGIN_ID = "context_compaction"
MIN_COMPACTION_GAIN_TOKENS = 1024


class CompactionBoundary(msgspec.Struct, gc=False):
    """One compaction: the summary and the estimated tokens before and after."""

    summary: str
    pre_tokens: int
    post_tokens: int
    timestamp_ms: int


class CompactionState(msgspec.Struct):
    """``{"boundaries": [...], "total_compactions": n}``."""

    boundaries: list[CompactionBoundary] = msgspec.field(default_factory=list)
    total_compactions: int = 0


class CompactionStateKey(StateKey[CompactionState, CompactionBoundary]):
    """``__context_compaction``: compactions done in this run (Run scope, Exclusive)."""

    KEY = "__context_compaction"
    MERGE = MergeStrategy.EXCLUSIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: CompactionState, update: CompactionBoundary) -> CompactionState:
        return CompactionState([*value.boundaries, update], value.total_compactions + 1)


def compaction_config(spec: AgentSpec) -> CompactionConfig:
    """The agent's ``compaction`` section (defaults when absent or invalid)."""
    try:
        return spec.config(CompactionConfigKey)
    except KeyDecode as exc:
        _log.warning("agent %s: invalid compaction section, using defaults: %s", spec.id, exc)
        return CompactionConfig()


def find_compaction_boundary(messages: Sequence[Message], search_end: int) -> int | None:
    """The longest safe prefix length ``n`` (2 ≤ n ≤ ``search_end``): every tool call in
    ``messages[:n]`` is answered there and ``messages[n]`` is not a tool result."""
    pending: set[str] = set()
    best: int | None = None
    limit = min(search_end, len(messages) - 1)
    for index in range(limit):
        message = messages[index]
        if message.role is Role.ASSISTANT and message.tool_calls:
            pending.update(call.id for call in message.tool_calls)
        elif message.role is Role.TOOL and message.tool_call_id:
            pending.discard(message.tool_call_id)
        length = index + 1
        if length >= 2 and not pending and messages[length].role is not Role.TOOL:
            best = length
    return best


def render_transcript(messages: Sequence[Message]) -> str:
    """``[Role]: text`` of every non-internal message with text, blank-line separated."""
    lines = []
    for message in messages:
        if message.visibility is Visibility.INTERNAL:
            continue
        text = message.text().strip()
        if text:
            lines.append(f"[{message.role.value.capitalize()}]: {text}")
    return "\n\n".join(lines)


async def compact_history(
    messages: list[Message],
    policy: ContextWindowPolicy,
    config: CompactionConfig,
    summarizer: ContextSummarizer,
) -> tuple[int, CompactionBoundary] | None:
    """Compact ``messages`` (the thread history, no system prompt) in place when the policy
    calls for it; returns ``(index of the inserted summary message, boundary)`` or ``None``.

    Summarizer failures propagate.
    """
    threshold = policy.autocompact_threshold
    if threshold is None:
        return None
    start = last_summary_index(messages) or 0
    view = messages[start:]
    if len(view) < 2 or estimate_tokens(view) < threshold:
        return None
    if policy.compaction_mode is ContextCompactionMode.COMPACT_TO_SAFE_FRONTIER:
        search_end = len(view) - 1
    else:
        search_end = len(view) - min(policy.compaction_raw_suffix_messages, len(view))
    if search_end < 2:
        return None
    length = find_compaction_boundary(view, search_end)
    if length is None:
        return None
    prefix = view[:length]
    pre_tokens = estimate_tokens(prefix)
    if pre_tokens < MIN_COMPACTION_GAIN_TOKENS:
        return None
    ratio = config.min_savings_ratio
    budget = config.summary_max_tokens or DEFAULT_SUMMARY_MAX_TOKENS
    if 1 - (budget + 8) / pre_tokens < ratio:
        return None
    transcript = render_transcript(prefix)
    if not transcript:
        return None
    previous = summary_text(view[0]) if is_summary_message(view[0]) else None
    summary = await summarizer.summarize(transcript, previous)
    message = summary_message(summary)
    post_tokens = estimate_message_tokens(message)
    if 1 - post_tokens / pre_tokens < ratio:
        _log.info(
            "compaction discarded: %d → %d tokens saves less than %.0f%%",
            pre_tokens,
            post_tokens,
            ratio * 100,
        )
        return None
    index = start + length
    messages.insert(index, message)
    return index, CompactionBoundary(summary, pre_tokens, post_tokens, now_ms())


class CompactionPlugin(Plugin):
    """``context_compaction``: registers ``__context_compaction`` and the ``compaction``
    section schema; holds the agent's :class:`CompactionConfig`.

    The resolver adds one to every agent with a context policy. To summarize with your own
    :class:`ContextSummarizer`, register ``CompactionPlugin(summarizer=...)`` under some id and
    list that id in the agent's ``plugin_ids``.
    """

    def __init__(
        self,
        config: CompactionConfig | None = None,
        *,
        summarizer: ContextSummarizer | None = None,
    ) -> None:
        self.config = config or CompactionConfig()
        self.summarizer = summarizer

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(COMPACTION_PLUGIN_ID)

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(CompactionStateKey)

    def config_schemas(self) -> list[ConfigSchema]:
        return [ConfigSchema.for_key(CompactionConfigKey)]


def custom_summarizer(plugins: Iterable[Plugin]) -> ContextSummarizer | None:
    """The summarizer of the first :class:`CompactionPlugin` that carries one."""
    for plugin in plugins:
        if isinstance(plugin, CompactionPlugin) and plugin.summarizer is not None:
            return plugin.summarizer
    return None
