"""The LLM executor contract: what a provider adapter implements."""

from __future__ import annotations

import abc
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import msgspec

from awaken_contract.codec import encode_json
from awaken_contract.contract.content import AnyContentBlock, TextBlock, ThinkingBlock
from awaken_contract.contract.inference import (
    LlmStreamEvent,
    ReasoningDeltaChunk,
    StopChunk,
    StreamResult,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    ToolCallStartChunk,
    UsageChunk,
)
from awaken_contract.contract.message import Message
from awaken_contract.contract.tool import ToolDescriptor

if TYPE_CHECKING:
    from awaken_contract.registry_spec import InferenceOverride


class ResponseFormat(msgspec.Struct, kw_only=True, frozen=True):
    """Provider-native structured output for one inference: answer with JSON matching
    ``schema`` (an object schema). ``name`` is the schema's name where the API wants one;
    ``strict`` asks for constrained decoding where the API offers it."""

    name: str
    schema: dict[str, Any]
    strict: bool = False


class InferenceRequest(msgspec.Struct, kw_only=True):
    """Everything an executor needs for one inference.

    ``messages`` is the full prompt; the agent's system prompt is ``messages[0]`` when set.
    ``overrides`` holds the remaining :class:`InferenceOverride` (``None`` when empty).
    """

    upstream_model: str
    messages: list[Message]
    tools: list[ToolDescriptor] = msgspec.field(default_factory=list)
    system: list[AnyContentBlock] = msgspec.field(default_factory=list)
    overrides: Any = None  # InferenceOverride | None (pydantic model, in-process only)
    enable_prompt_cache: bool = False
    response_format: ResponseFormat | None = None
    """Ask for a JSON answer in this shape (only set when the executor supports it)."""

    @property
    def override(self) -> InferenceOverride | None:
        """Typed access to ``overrides``."""
        return self.overrides  # type: ignore[no-any-return]


class LlmExecutor(abc.ABC):
    """A model provider. Implement :meth:`execute`; override :meth:`stream` to stream deltas."""

    @abc.abstractmethod
    async def execute(self, request: InferenceRequest) -> StreamResult:
        """Run one inference and return the collected result."""

    def supports_response_format(self, request: InferenceRequest) -> bool:
        """True when this executor honours ``request.response_format`` for ``request``
        (provider-native structured output). Otherwise the loop offers a ``final_result``
        tool instead. Wrapping executors delegate to the executor they wrap."""
        return False

    def streams(self) -> bool:
        """True when :meth:`stream` yields deltas as they arrive; False when it only replays
        the collected result of :meth:`execute` (the default :meth:`stream`), so a caller may
        call :meth:`execute` and take :func:`stream_events_of` directly. Wrapping executors
        delegate to the executor they wrap."""
        return type(self).stream is not LlmExecutor.stream

    async def stream(self, request: InferenceRequest) -> AsyncIterator[LlmStreamEvent]:
        """Stream one inference as events. The default wraps :meth:`execute`."""
        result = await self.execute(request)
        for event in stream_events_of(result):
            yield event

    def name(self) -> str:
        """A short name for logs and events."""
        return type(self).__name__


def stream_events_of(result: StreamResult) -> list[LlmStreamEvent]:
    """The events the default :meth:`LlmExecutor.stream` yields for a collected result."""
    events: list[LlmStreamEvent] = []
    for block in result.content:
        if isinstance(block, TextBlock) and block.text:
            events.append(TextDeltaChunk(block.text))
        elif isinstance(block, ThinkingBlock) and block.thinking:
            events.append(ReasoningDeltaChunk(block.thinking))
    for call in result.tool_calls:
        events.append(ToolCallStartChunk(call.id, call.name))
        events.append(ToolCallDeltaChunk(call.id, encode_json(call.arguments).decode()))
    if result.usage is not None:
        events.append(UsageChunk(result.usage))
    if result.stop_reason is not None:
        events.append(StopChunk(result.stop_reason))
    return events
