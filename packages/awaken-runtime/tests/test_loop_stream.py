"""The loop's stream collector: a non-streaming executor's result is taken directly
(``take_result``) and must give exactly what replaying ``stream_events_of(result)`` through
``take`` gives — the same events to the sink and the same collected ``StreamResult``."""

from __future__ import annotations

import pytest
from awaken_contract.contract.content import TextBlock, ThinkingBlock
from awaken_contract.contract.event import AgentEvent
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.executor import stream_events_of
from awaken_contract.contract.inference import StopReason, StreamResult, TokenUsage
from awaken_contract.contract.message import ToolCall
from awaken_runtime.loop_runner.stream import StreamCollector, collected_result

RESULTS = [
    StreamResult(content=[TextBlock(text="Sunny.")], stop_reason=StopReason.END_TURN),
    StreamResult(
        content=[
            ThinkingBlock(thinking="hm"),
            TextBlock(text=""),
            TextBlock(text="a"),
            ThinkingBlock(thinking=""),
            TextBlock(text="b"),
        ],
        usage=TokenUsage(prompt_tokens=3, completion_tokens=4, total_tokens=7),
    ),
    StreamResult(
        tool_calls=[
            ToolCall("c1", "get_weather", {"city": "Tokyo", "days": [1, 2]}),
            ToolCall("c2", "noop", {}),
            ToolCall("c3", "none", None),
        ],
        stop_reason=StopReason.TOOL_USE,
    ),
    # the same id twice: the buffers join into invalid JSON → an incomplete call
    StreamResult(tool_calls=[ToolCall("c1", "a", {"x": 1}), ToolCall("c1", "b", {"y": 2})]),
    StreamResult(),
]


async def _via_stream(result: StreamResult) -> tuple[list[AgentEvent], StreamResult]:
    collector, sink = StreamCollector(), VecEventSink()
    for chunk in stream_events_of(result):
        event = collector.take(chunk)
        if event is not None:
            await sink.emit(event)
    collected = await collector.finish(sink, cancelled=False)
    return sink.take(), collected


async def _direct(result: StreamResult) -> tuple[list[AgentEvent], StreamResult]:
    collector, sink = StreamCollector(), VecEventSink()
    for event in collector.take_result(result):
        await sink.emit(event)
    collected = await collector.finish(sink, cancelled=False)
    return sink.take(), collected


@pytest.mark.parametrize("result", RESULTS)
async def test_a_collected_result_is_taken_as_its_replayed_stream(result: StreamResult) -> None:
    assert await _direct(result) == await _via_stream(result)


async def test_without_forwarding_no_event_is_built_and_the_result_is_the_same() -> None:
    result = RESULTS[2]
    collector = StreamCollector()
    assert collector.take_result(result, forward=False) == []
    collected = await collector.finish(VecEventSink(), cancelled=False)
    assert collected == (await _via_stream(result))[1]
    assert collected.tool_calls[0].arguments == {"city": "Tokyo", "days": [1, 2]}


_USAGE = TokenUsage(prompt_tokens=1, completion_tokens=2, total_tokens=3)


@pytest.mark.parametrize(
    "result",
    [
        StreamResult(
            tool_calls=[ToolCall("c", "weather", {"city": "Oslo", "days": (1, 2)})],
            usage=_USAGE,
            stop_reason=StopReason.TOOL_USE,
        ),
        StreamResult(content=[TextBlock(text="Sunny.")], stop_reason=StopReason.END_TURN),
        StreamResult(content=[TextBlock(text="")]),
        StreamResult(tool_calls=[ToolCall("a", "x", None), ToolCall("b", "y", "")]),
        StreamResult(
            content=[TextBlock(text="a"), ThinkingBlock(thinking="z"), TextBlock(text="b")]
        ),
        StreamResult(content=[ThinkingBlock(thinking="z")]),
        StreamResult(tool_calls=[ToolCall("a", "x", {}), ToolCall("a", "y", {"q": 1})]),
        StreamResult(
            tool_calls=[ToolCall("a", "x", {"f": float("nan")})],
            stop_reason=StopReason.MAX_TOKENS,
        ),
    ],
    ids=["call", "text", "blank", "two-calls", "blocks", "reasoning", "same-id", "nan"],
)
def test_a_collected_result_built_directly_is_the_one_the_collector_makes(
    result: StreamResult,
) -> None:
    collector = StreamCollector()
    collector.take_result(result, forward=False)
    assert collected_result(result) == collector.result(False)
