"""Compactors: who writes a summary. :class:`AgentCompactor` runs the configured compactor agent.

The compactor agent is an ordinary agent of the same runtime (its own model and system prompt);
each summary is one run on a thread of its own (``<thread>.compact.<id>``, parent = the
summarised thread). Any object with the runtime's ``run(request)`` method can host it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest, RunRequestOrigin
from awaken_contract.host import AgentRunner
from awaken_contract.ids import new_id
from awaken_contract.registry_spec import DEFAULT_COMPACTION_USER_PROMPT

__all__ = ["AgentCompactor", "Compactor", "compactor_prompt"]


class Compactor(ABC):
    """Turns the transcript of an older prefix (and the previous summary) into a summary."""

    @abstractmethod
    async def summarize(self, transcript: str, previous_summary: str | None) -> str:
        """The new cumulative summary (non-empty)."""


def compactor_prompt(transcript: str, previous_summary: str | None) -> str:
    """The user message a compactor agent receives."""
    if previous_summary:
        return (
            "Update the cumulative summary of this conversation: merge the existing summary "
            "with the new part of the conversation, keeping every fact, decision, tool result "
            "and open action item that still matters.\n\n"
            f"<existing-summary>\n{previous_summary}\n</existing-summary>\n\n"
            f"<new-conversation>\n{transcript}\n</new-conversation>"
        )
    return DEFAULT_COMPACTION_USER_PROMPT.replace("{messages}", transcript)


class AgentCompactor(Compactor):
    """Summarises by running ``agent_id`` on ``runner`` (one fresh thread per summary)."""

    def __init__(self, runner: AgentRunner, agent_id: str, thread_id: str) -> None:
        self.runner = runner
        self.agent_id = agent_id
        self.thread_id = thread_id

    async def summarize(self, transcript: str, previous_summary: str | None) -> str:
        request = RunRequest(
            f"{self.thread_id}.compact.{new_id()}",
            [Message.user(compactor_prompt(transcript, previous_summary))],
            agent_id=self.agent_id,
            origin=RunRequestOrigin.INTERNAL,
            parent_thread_id=self.thread_id,
        )
        result = await self.runner.run(request)
        text = result.response.strip()
        if not text:
            raise ValueError(f"compactor agent {self.agent_id!r} returned an empty summary")
        return text
