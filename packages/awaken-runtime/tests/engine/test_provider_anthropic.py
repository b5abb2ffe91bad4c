from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.content import TextBlock, ThinkingBlock
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.inference import (
    ContentBlockStopChunk,
    ReasoningDeltaChunk,
    StopChunk,
    StopReason,
    TextDeltaChunk,
    TokenUsage,
    ToolCallDeltaChunk,
    ToolCallStartChunk,
    UsageChunk,
)
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.errors import ProviderAuthError, ProviderError
from awaken_contract.registry_spec import InferenceOverride, ProviderSpec, ReasoningBudget
from awaken_runtime.engine import GenaiExecutor

KEY = "sk-ant-test-SECRET-9"
HERE = Path(__file__).parent
GOLDEN = HERE / "fixtures" / "golden"


def executor(url: str) -> GenaiExecutor:
    spec = ProviderSpec(id="anthropic", adapter="anthropic", base_url=url + "/v1", api_key=KEY)
    return GenaiExecutor(spec, environ={})


def simple() -> InferenceRequest:
    return InferenceRequest(
        upstream_model="claude-sonnet-4-20250514",
        messages=[Message.system("Be brief."), Message.user("Hi")],
    )


async def test_text_stream_and_headers(replay: Any) -> None:
    replay.sse("anthropic_text.sse")
    events = [e async for e in executor(replay.url).stream(simple())]
    assert events == [
        TextDeltaChunk("Hello"),
        TextDeltaChunk(" from Claude."),
        ContentBlockStopChunk(),
        UsageChunk(
            TokenUsage(
                prompt_tokens=170,
                completion_tokens=9,
                total_tokens=179,
                cache_read_tokens=100,
                cache_creation_tokens=50,
            )
        ),
        StopChunk(StopReason.END_TURN),
    ]
    req = replay.requests[0]
    assert req.path == "/v1/messages"
    assert req.headers["x-api-key"] == KEY
    assert req.headers["anthropic-version"] == "2023-06-01"
    assert req.body["system"] == [{"type": "text", "text": "Be brief."}]
    assert req.body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]
    assert req.body["max_tokens"] == 8192 and req.body["stream"] is True


async def test_thinking_text_and_tool_use(replay: Any) -> None:
    replay.sse("anthropic_thinking_tool.sse")
    events = [e async for e in executor(replay.url).stream(simple())]
    assert events[:2] == [
        ReasoningDeltaChunk("I should look up "),
        ReasoningDeltaChunk("the weather."),
    ]
    assert ToolCallStartChunk("toolu_01", "get_weather") in events
    args = "".join(e.args_delta for e in events if isinstance(e, ToolCallDeltaChunk))
    assert args == '{"city": "Tokyo"}'
    assert events[-1] == StopChunk(StopReason.TOOL_USE)

    replay.sse("anthropic_thinking_tool.sse")
    result = await executor(replay.url).execute(simple())
    assert result.content == [
        ThinkingBlock(thinking="I should look up the weather."),
        TextBlock(text="Checking."),
    ]
    assert result.tool_calls == [ToolCall("toolu_01", "get_weather", {"city": "Tokyo"})]
    assert result.usage is not None and result.usage.completion_tokens == 40


async def test_parallel_tool_use(replay: Any) -> None:
    replay.sse("anthropic_parallel.sse")
    result = await executor(replay.url).execute(simple())
    assert result.tool_calls == [
        ToolCall("toolu_a", "get_weather", {"city": "Paris"}),
        ToolCall("toolu_b", "get_time", {"tz": "UTC"}),
    ]
    assert result.stop_reason is StopReason.TOOL_USE


async def test_max_tokens_mid_tool_use(replay: Any) -> None:
    replay.sse("anthropic_max_tokens.sse")
    result = await executor(replay.url).execute(simple())
    assert result.stop_reason is StopReason.MAX_TOKENS
    assert result.has_incomplete_tool_calls and result.tool_calls == []
    assert result.needs_truncation_recovery


async def test_error_event_mid_stream(replay: Any) -> None:
    replay.sse("anthropic_overloaded.sse")
    with pytest.raises(ProviderError, match="Overloaded") as info:
        await executor(replay.url).execute(simple())
    assert info.value.retryable


async def test_stream_without_message_stop(replay: Any) -> None:
    replay.sse("anthropic_cut.sse")
    with pytest.raises(ProviderError, match="ended before"):
        await executor(replay.url).execute(simple())


async def test_401_and_529(replay: Any) -> None:
    replay.error(401, "anthropic_401.json")
    with pytest.raises(ProviderAuthError, match="invalid x-api-key") as info:
        await executor(replay.url).execute(simple())
    assert KEY not in str(info.value)
    replay.error(529, "anthropic_529.json")
    with pytest.raises(ProviderError, match=r"HTTP 529: Overloaded \(overloaded_error\)"):
        await executor(replay.url).execute(simple())


async def test_golden_request_with_prompt_cache(replay: Any, rich: Any) -> None:
    replay.sse("anthropic_text.sse")
    await executor(replay.url).execute(rich("claude-sonnet-4-20250514"))
    body = replay.requests[0].body
    assert body == json.loads((GOLDEN / "anthropic_request.json").read_text())
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "top_p" not in body  # temperature wins when both are set


async def test_golden_request_with_thinking(replay: Any, rich: Any) -> None:
    replay.sse("anthropic_text.sse")
    request = rich("claude-sonnet-4-20250514")
    request.messages.append(Message.user("And tomorrow?"))
    request.overrides = InferenceOverride(
        temperature=0.3, max_tokens=512, reasoning_effort=ReasoningBudget(budget=2048)
    )
    await executor(replay.url).execute(request)
    body = replay.requests[0].body
    assert body == json.loads((GOLDEN / "anthropic_thinking_request.json").read_text())
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] > 2048 and "temperature" not in body


async def test_thinking_is_off_while_continuing_a_tool_loop(replay: Any, rich: Any) -> None:
    replay.sse("anthropic_text.sse")
    request = rich("claude-sonnet-4-20250514")  # ends with a tool result of this turn
    request.overrides = InferenceOverride(reasoning_effort=ReasoningBudget(budget=2048))
    await executor(replay.url).execute(request)
    body = replay.requests[0].body
    assert "thinking" not in body and body["max_tokens"] == 8192


async def test_no_cache_control_without_prompt_cache(replay: Any, rich: Any) -> None:
    replay.sse("anthropic_text.sse")
    request = rich("claude-sonnet-4-20250514")
    request.enable_prompt_cache = False
    await executor(replay.url).execute(request)
    assert "cache_control" not in json.dumps(replay.requests[0].body)


async def test_consecutive_tool_results_share_one_user_turn(replay: Any) -> None:
    replay.sse("anthropic_text.sse")
    request = InferenceRequest(
        upstream_model="claude-sonnet-4-20250514",
        messages=[
            Message.user("Weather and time?"),
            Message.assistant_with_tool_calls(
                "", [ToolCall("a", "get_weather", {}), ToolCall("b", "get_time", {})]
            ),
            Message.tool("a", "sunny"),
            Message.tool("b", "noon"),
            Message.internal_system("Reminder: be brief."),
        ],
    )
    await executor(replay.url).execute(request)
    turns = replay.requests[0].body["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert [b["type"] for b in turns[1]["content"]] == ["tool_use", "tool_use"]
    assert [b.get("tool_use_id") for b in turns[2]["content"]] == ["a", "b", None]
    assert turns[2]["content"][2] == {"type": "text", "text": "Reminder: be brief."}
