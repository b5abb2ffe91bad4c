"""Inference results and the streaming events an LLM executor produces."""

from __future__ import annotations

import enum

import msgspec

from awaken_contract.contract.content import AnyContentBlock, text_of
from awaken_contract.contract.message import ToolCall


class TokenUsage(msgspec.Struct, omit_defaults=True, gc=False):
    """Token counts of one inference (every field omitted when unknown)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_creation_tokens: int | None = None
    thinking_tokens: int | None = None

    def __add__(self, other: TokenUsage) -> TokenUsage:
        # Each count: unknown (None) when unknown on both sides, else the sum (None as 0);
        # written out per field (no helper call per field: the loop adds once per inference).
        a1, b1 = self.prompt_tokens, other.prompt_tokens
        a2, b2 = self.completion_tokens, other.completion_tokens
        a3, b3 = self.total_tokens, other.total_tokens
        a4, b4 = self.cache_read_tokens, other.cache_read_tokens
        a5, b5 = self.cache_creation_tokens, other.cache_creation_tokens
        a6, b6 = self.thinking_tokens, other.thinking_tokens
        return TokenUsage(
            None if a1 is None and b1 is None else (a1 or 0) + (b1 or 0),
            None if a2 is None and b2 is None else (a2 or 0) + (b2 or 0),
            None if a3 is None and b3 is None else (a3 or 0) + (b3 or 0),
            None if a4 is None and b4 is None else (a4 or 0) + (b4 or 0),
            None if a5 is None and b5 is None else (a5 or 0) + (b5 or 0),
            None if a6 is None and b6 is None else (a6 or 0) + (b6 or 0),
        )


class StopReason(enum.StrEnum):
    """Why the model stopped generating (wire values are Pascal case)."""

    END_TURN = "EndTurn"
    MAX_TOKENS = "MaxTokens"
    TOOL_USE = "ToolUse"
    STOP_SEQUENCE = "StopSequence"


# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_MAX_TOKENS = StopReason.MAX_TOKENS


class StreamResult(msgspec.Struct, kw_only=True):
    """The collected output of one inference."""

    content: list[AnyContentBlock] = msgspec.field(default_factory=list)
    tool_calls: list[ToolCall] = msgspec.field(default_factory=list)
    usage: TokenUsage | None = None
    stop_reason: StopReason | None = None
    has_incomplete_tool_calls: bool = False

    @property
    def needs_tools(self) -> bool:
        """True when the model requested tool calls."""
        return bool(self.tool_calls)

    @property
    def text(self) -> str:
        """Concatenated text of the text blocks."""
        return text_of(self.content)

    @property
    def needs_truncation_recovery(self) -> bool:
        """Output was cut by the token limit mid tool call or mid text."""
        if self.stop_reason is not _MAX_TOKENS:
            return False
        return self.has_incomplete_tool_calls or (not self.tool_calls and bool(self.text))


class LlmStreamEvent(msgspec.Struct, frozen=True, gc=False):
    """Base of the incremental events an executor streams to the loop."""


class TextDeltaChunk(LlmStreamEvent, frozen=True, gc=False):
    """A piece of assistant text."""

    delta: str


class ReasoningDeltaChunk(LlmStreamEvent, frozen=True, gc=False):
    """A piece of reasoning text."""

    delta: str


class ToolCallStartChunk(LlmStreamEvent, frozen=True, gc=False):
    """A tool call begins."""

    id: str
    name: str


class ToolCallDeltaChunk(LlmStreamEvent, frozen=True, gc=False):
    """A piece of a tool call's JSON arguments."""

    id: str
    args_delta: str


class ContentBlockStopChunk(LlmStreamEvent, frozen=True, gc=False):
    """The current content block ended."""


class UsageChunk(LlmStreamEvent, frozen=True, gc=False):
    """Token usage of the inference."""

    usage: TokenUsage


class StopChunk(LlmStreamEvent, frozen=True, gc=False):
    """The model stopped."""

    stop_reason: StopReason


AnyLlmStreamEvent = (
    TextDeltaChunk
    | ReasoningDeltaChunk
    | ToolCallStartChunk
    | ToolCallDeltaChunk
    | ContentBlockStopChunk
    | UsageChunk
    | StopChunk
)
