"""Collecting streamed ``LlmStreamEvent``s into a ``StreamResult``."""

from __future__ import annotations

from collections.abc import AsyncIterable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from awaken_contract.contract.content import AnyContentBlock, TextBlock, ThinkingBlock
from awaken_contract.contract.inference import (
    LlmStreamEvent,
    ReasoningDeltaChunk,
    StopChunk,
    StopReason,
    StreamResult,
    TextDeltaChunk,
    TokenUsage,
    ToolCallDeltaChunk,
    ToolCallStartChunk,
    UsageChunk,
)
from awaken_contract.contract.message import ToolCall

__all__ = ["StreamCollector", "collect_stream", "parse_tool_arguments"]


def parse_tool_arguments(fragments: list[str]) -> Any:
    """A tool call's streamed argument fragments as JSON (``{}`` when blank); raises
    ``msgspec.DecodeError`` when they are not valid JSON (the stream was cut off)."""
    raw = "".join(fragments)
    return msgspec.json.decode(raw) if raw.strip() else {}


@dataclass
class _CallBuffer:
    id: str
    name: str
    args: list[str] = field(default_factory=list)


class StreamCollector:
    """Accumulates stream events: text and reasoning runs become blocks, tool-call argument
    fragments are joined per call id. A call whose arguments are not valid JSON is dropped
    and marks the result ``has_incomplete_tool_calls`` (a token limit cut it off)."""

    def __init__(self) -> None:
        self._blocks: list[AnyContentBlock] = []
        self._text: list[str] = []
        self._kind: type[TextBlock] | type[ThinkingBlock] | None = None
        self._calls: dict[str, _CallBuffer] = {}
        self.usage: TokenUsage | None = None
        self.stop_reason: StopReason | None = None

    def push(self, event: LlmStreamEvent) -> None:
        """Add one event."""
        if isinstance(event, TextDeltaChunk):
            self._append(TextBlock, event.delta)
        elif isinstance(event, ReasoningDeltaChunk):
            self._append(ThinkingBlock, event.delta)
        elif isinstance(event, ToolCallStartChunk):
            self._calls.setdefault(event.id, _CallBuffer(event.id, event.name))
        elif isinstance(event, ToolCallDeltaChunk):
            buffer = self._calls.setdefault(event.id, _CallBuffer(event.id, ""))
            buffer.args.append(event.args_delta)
        elif isinstance(event, UsageChunk):
            self.usage = event.usage
        elif isinstance(event, StopChunk):
            self.stop_reason = event.stop_reason

    def _append(self, kind: type[TextBlock] | type[ThinkingBlock], delta: str) -> None:
        if self._kind is not kind:
            self._flush()
            self._kind = kind
        self._text.append(delta)

    def _flush(self) -> None:
        if self._kind is not None and self._text:
            text = "".join(self._text)
            if self._kind is TextBlock:
                self._blocks.append(TextBlock(text=text))
            else:
                self._blocks.append(ThinkingBlock(thinking=text))
        self._text = []
        self._kind = None

    def result(self) -> StreamResult:
        """The collected result."""
        self._flush()
        calls: list[ToolCall] = []
        incomplete = False
        for buffer in self._calls.values():
            try:
                arguments = parse_tool_arguments(buffer.args)
            except msgspec.DecodeError:
                incomplete = True
                continue
            if not buffer.name:
                incomplete = True
                continue
            calls.append(ToolCall(buffer.id, buffer.name, arguments))
        return StreamResult(
            content=list(self._blocks),
            tool_calls=calls,
            usage=self.usage,
            stop_reason=self.stop_reason,
            has_incomplete_tool_calls=incomplete,
        )


async def collect_stream(events: AsyncIterable[LlmStreamEvent]) -> StreamResult:
    """Drain ``events`` into a ``StreamResult``."""
    collector = StreamCollector()
    async for event in events:
        collector.push(event)
    return collector.result()
