"""Summarizers for LLM compaction: the :class:`ContextSummarizer` interface and
:class:`DefaultSummarizer`, which asks an LLM executor (by default the agent's own model).

With a previous summary the prompt asks the model to update that cumulative summary with the
new conversation instead of starting over.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.message import Message
from awaken_contract.registry_spec import CompactionConfig, InferenceOverride

__all__ = ["DEFAULT_SUMMARY_MAX_TOKENS", "ContextSummarizer", "DefaultSummarizer", "EmptySummary"]

#: ``max_tokens`` of a summary request when the config sets none.
DEFAULT_SUMMARY_MAX_TOKENS = 1024


class EmptySummary(ValueError):
    """The summarizer returned no text."""

    def __init__(self) -> None:
        super().__init__("the summarizer returned an empty summary")


class ContextSummarizer(ABC):
    """Turns a conversation transcript (and the previous summary) into a new summary."""

    @abstractmethod
    async def summarize(self, transcript: str, previous_summary: str | None) -> str:
        """Return the summary text (non-empty)."""


class DefaultSummarizer(ContextSummarizer):
    """Summarizes with ``executor`` and ``upstream_model`` following a :class:`CompactionConfig`
    (``summary_model`` replaces ``upstream_model`` when set)."""

    def __init__(
        self, executor: LlmExecutor, upstream_model: str, config: CompactionConfig | None = None
    ) -> None:
        self.executor = executor
        self.config = config or CompactionConfig()
        self.upstream_model = self.config.summary_model or upstream_model

    def request(self, transcript: str, previous_summary: str | None) -> InferenceRequest:
        """The inference request for one summary (no tools)."""
        config = self.config
        transcript = transcript.strip()
        if previous_summary and previous_summary.strip():
            prompt = (
                "Update the cumulative summary of this conversation: merge the existing summary "
                "with the new part of the conversation, keeping every fact, decision, tool "
                "result and open action item that still matters.\n\n"
                f"<existing-summary>\n{previous_summary.strip()}\n</existing-summary>\n\n"
                f"<new-conversation>\n{transcript}\n</new-conversation>"
            )
        else:
            prompt = config.render_user_prompt(transcript)
        max_tokens = config.summary_max_tokens or DEFAULT_SUMMARY_MAX_TOKENS
        return InferenceRequest(
            upstream_model=self.upstream_model,
            messages=[Message.system(config.summarizer_system_prompt), Message.user(prompt)],
            overrides=InferenceOverride(max_tokens=max_tokens),
        )

    async def summarize(self, transcript: str, previous_summary: str | None) -> str:
        result = await self.executor.execute(self.request(transcript, previous_summary))
        text = result.text.strip()
        if not text:
            raise EmptySummary()
        return text
