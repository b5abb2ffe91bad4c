"""Consuming an executor's stream: events out to the sink, a :class:`StreamResult` collected.

Text and reasoning deltas are forwarded as they arrive; tool-call starts and argument deltas
are forwarded and buffered. When the stream ends each call's buffer is parsed as JSON in
declaration order (``tool_call_ready`` per parsed call); an unparseable buffer drops the call
and marks the result ``has_incomplete_tool_calls``. A cancelled stream keeps its partial text,
drops every tool call and reports ``EndTurn``.
"""

from __future__ import annotations

import msgspec
from awaken_contract.codec import encode_json
from awaken_contract.contract.content import AnyContentBlock, TextBlock, ThinkingBlock
from awaken_contract.contract.event import (
    AgentEvent,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStart,
)
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import (
    ContentBlockStopChunk,
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

from awaken_runtime.engine.collect import parse_tool_arguments

_decode = msgspec.json.decode

__all__ = ["StreamCollector", "collected_result", "consume_stream"]


class StreamCollector:
    """Accumulates one inference's stream (survives cancellation with the partial output)."""

    __slots__ = ("_text", "calls", "content", "stop_reason", "usage")

    def __init__(self) -> None:
        self._text: list[str] = []
        self.content: list[AnyContentBlock] = []
        self.calls: dict[str, tuple[str, list[str]]] = {}  # in declaration order
        self.usage: TokenUsage | None = None
        self.stop_reason: StopReason | None = None

    def flush_text(self) -> None:
        """Close the current text block."""
        if self._text:
            text = "".join(self._text)
            self._text = []
            if text:
                self.content.append(TextBlock(text=text))

    def take(self, event: LlmStreamEvent) -> AgentEvent | None:
        """Collect one stream event; the event to forward for it, if any."""
        if isinstance(event, TextDeltaChunk):
            self._text.append(event.delta)
            return TextDelta(delta=event.delta)
        if isinstance(event, ToolCallDeltaChunk):
            entry = self.calls.get(event.id)
            if entry is None:
                return None
            entry[1].append(event.args_delta)
            return ToolCallDelta(id=event.id, args_delta=event.args_delta)
        if isinstance(event, ToolCallStartChunk):
            if event.id not in self.calls:
                self.calls[event.id] = (event.name, [])
            return ToolCallStart(id=event.id, name=event.name)
        if isinstance(event, ReasoningDeltaChunk):
            return ReasoningDelta(delta=event.delta)
        if isinstance(event, UsageChunk):
            self.usage = event.usage
        elif isinstance(event, StopChunk):
            self.stop_reason = event.stop_reason
        elif isinstance(event, ContentBlockStopChunk):
            self.flush_text()
        return None

    def take_result(self, result: StreamResult, *, forward: bool = True) -> list[AgentEvent]:
        """Collect the collected result of an executor that does not stream: the same state
        and events as :meth:`take` of every event of ``stream_events_of(result)``, without
        building those events (``forward=False``: no events, for a sink that drops them)."""
        events: list[AgentEvent] = []
        for block in result.content:
            if isinstance(block, TextBlock):
                if block.text:
                    self._text.append(block.text)
                    if forward:
                        events.append(TextDelta(delta=block.text))
            elif forward and isinstance(block, ThinkingBlock) and block.thinking:
                events.append(ReasoningDelta(delta=block.thinking))
        calls = self.calls
        for call in result.tool_calls:
            call_id = call.id
            arguments = encode_json(call.arguments).decode()
            entry = calls.get(call_id)
            if entry is None:
                entry = calls[call_id] = (call.name, [])
            entry[1].append(arguments)
            if forward:
                events.append(ToolCallStart(id=call_id, name=call.name))
                events.append(ToolCallDelta(id=call_id, args_delta=arguments))
        if result.usage is not None:
            self.usage = result.usage
        if result.stop_reason is not None:
            self.stop_reason = result.stop_reason
        return events

    async def finish(self, sink: EventSink, cancelled: bool) -> StreamResult:
        """Build the result; emits ``tool_call_ready`` for every parsed call."""
        result = self.result(cancelled)
        if sink.wants_events:
            for call in result.tool_calls:
                await sink.emit(ToolCallReady(id=call.id, name=call.name, arguments=call.arguments))
        return result

    def result(self, cancelled: bool) -> StreamResult:
        """Build the result (:meth:`finish` without its ``tool_call_ready`` events)."""
        self.flush_text()
        if cancelled:
            return StreamResult(
                content=self.content,
                tool_calls=[],
                usage=self.usage,
                stop_reason=StopReason.END_TURN,
                has_incomplete_tool_calls=False,
            )
        tool_calls: list[ToolCall] = []
        incomplete = False
        for call_id, (name, parts) in self.calls.items():
            try:
                arguments = parse_tool_arguments(parts)
            except msgspec.DecodeError:
                incomplete = True
                continue
            tool_calls.append(ToolCall(call_id, name, arguments))
        return StreamResult(
            content=self.content,
            tool_calls=tool_calls,
            usage=self.usage,
            stop_reason=self.stop_reason,
            has_incomplete_tool_calls=incomplete,
        )


def collected_result(result: StreamResult) -> StreamResult:
    """What :meth:`StreamCollector.take_result` then :meth:`StreamCollector.result` make of an
    executor's collected result, built directly for its usual shapes (one text block or none,
    distinct call ids): the text in a new block, each call's arguments through JSON."""
    content = result.content
    calls = result.tool_calls
    first = content[0] if content else None
    if (
        len(content) > 1
        or (first is not None and not isinstance(first, TextBlock))
        or (len(calls) > 1 and len({call.id for call in calls}) != len(calls))
    ):
        collector = StreamCollector()
        collector.take_result(result, forward=False)
        return collector.result(False)
    text = first.text if isinstance(first, TextBlock) else ""
    return StreamResult(
        content=[TextBlock(text=text)] if text else [],
        tool_calls=[
            ToolCall(call.id, call.name, _decode(encode_json(call.arguments))) for call in calls
        ],
        usage=result.usage,
        stop_reason=result.stop_reason,
        has_incomplete_tool_calls=False,
    )


async def consume_stream(
    executor: LlmExecutor, request: InferenceRequest, sink: EventSink, out: StreamCollector
) -> None:
    """Read ``executor.stream(request)`` into ``out``, forwarding deltas to ``sink`` (an
    executor that does not stream is called directly: the same events, no async generator)."""
    emit = sink.emit
    wanted = sink.wants_events
    if not executor.streams():
        for delta in out.take_result(await executor.execute(request), forward=wanted):
            await emit(delta)
        return
    stream = executor.stream(request)
    try:
        take = out.take
        async for event in stream:
            forward = take(event)
            if forward is not None and wanted:
                await emit(forward)
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
