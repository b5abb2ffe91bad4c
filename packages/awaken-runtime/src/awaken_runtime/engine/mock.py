"""Executors for tests: :class:`MockLlmExecutor` (canned text) and :class:`ScriptedLlm`.

``MockLlmExecutor`` answers every request with the next canned text (round-robin) and fixed
usage ``10/20/30``; ``ScriptedLlm`` returns prepared :class:`StreamResult` values in order and
records the requests it saw. ``tool_step`` / ``text_step`` build those results.
"""

from __future__ import annotations

from collections.abc import Iterable

from awaken_contract.contract.content import ContentBlock
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StopReason, StreamResult, TokenUsage
from awaken_contract.contract.message import ToolCall

__all__ = ["DEFAULT_MOCK_RESPONSE", "MockLlmExecutor", "ScriptedLlm", "text_step", "tool_step"]

#: What the mock answers when it has no canned responses.
DEFAULT_MOCK_RESPONSE = "Hello! I am a mock assistant used for testing; I have no real model."


class MockLlmExecutor(LlmExecutor):
    """Returns canned text responses round-robin (no tool calls), usage 10/20/30.

    ``MockLlmExecutor().with_responses(["Hello!"])``
    """

    __slots__ = ("_index", "calls", "responses")

    def __init__(self, responses: Iterable[str] | None = None) -> None:
        self.responses: list[str] = list(responses or [])
        self._index = 0
        self.calls = 0

    def with_responses(self, responses: Iterable[str]) -> MockLlmExecutor:
        """Replace the canned responses; returns ``self``."""
        self.responses = list(responses)
        self._index = 0
        return self

    async def execute(self, request: InferenceRequest) -> StreamResult:
        """Answer with the next canned text."""
        self.calls += 1
        if self.responses:
            text = self.responses[self._index % len(self.responses)]
            self._index += 1
        else:
            text = DEFAULT_MOCK_RESPONSE
        return StreamResult(
            content=[ContentBlock.text(text)],
            tool_calls=[],
            usage=TokenUsage(prompt_tokens=10, completion_tokens=20, total_tokens=30),
            stop_reason=StopReason.END_TURN,
            has_incomplete_tool_calls=False,
        )

    def name(self) -> str:
        """``"mock"``."""
        return "mock"


def tool_step(calls: list[ToolCall], text: str = "") -> StreamResult:
    """A result requesting ``calls`` (stop reason ToolUse)."""
    return StreamResult(
        content=[ContentBlock.text(text)] if text else [],
        tool_calls=list(calls),
        usage=None,
        stop_reason=StopReason.TOOL_USE,
        has_incomplete_tool_calls=False,
    )


def text_step(text: str) -> StreamResult:
    """A final text result (stop reason EndTurn)."""
    return StreamResult(
        content=[ContentBlock.text(text)],
        tool_calls=[],
        usage=None,
        stop_reason=StopReason.END_TURN,
        has_incomplete_tool_calls=False,
    )


class ScriptedLlm(LlmExecutor):
    """Returns prepared results in order; when they run out it answers ``"Done."``.

    ``requests`` keeps every :class:`InferenceRequest` received (for assertions).
    """

    def __init__(self, responses: Iterable[StreamResult]) -> None:
        self.responses: list[StreamResult] = list(responses)
        self.requests: list[InferenceRequest] = []

    async def execute(self, request: InferenceRequest) -> StreamResult:
        """Pop the next prepared result."""
        self.requests.append(request)
        if not self.responses:
            return text_step("Done.")
        return self.responses.pop(0)

    def name(self) -> str:
        """``"scripted"``."""
        return "scripted"
