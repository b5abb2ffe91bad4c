from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any, cast

import pytest
from awaken_contract.contract.cancellation import CancellationToken
from awaken_contract.contract.content import TextBlock, ThinkingBlock
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.inference import (
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
from awaken_contract.errors import (
    InferenceExecutionError,
    ProviderAuthError,
    ProviderError,
    RateLimited,
)
from awaken_contract.registry_spec import InferenceOverride, ProviderSpec, ReasoningEffort
from awaken_runtime.engine import GenaiExecutor

KEY = "sk-test-SECRET-1234"
GOLDEN = Path(__file__).parent / "fixtures" / "golden"


def executor(url: str, adapter: str = "openai", **kw: Any) -> GenaiExecutor:
    spec = ProviderSpec(id=adapter, adapter=adapter, base_url=url + "/v1", api_key=KEY, **kw)
    return GenaiExecutor(spec, environ={})


def simple(model: str = "gpt-4o-mini") -> InferenceRequest:
    return InferenceRequest(
        upstream_model=model, messages=[Message.system("Be brief."), Message.user("Hi")]
    )


async def events_of(exe: GenaiExecutor, request: InferenceRequest) -> list[Any]:
    return [e async for e in exe.stream(request)]


# --------------------------------------------------------------------------- streams


async def test_plain_text_with_usage_only_final_chunk(replay: Any) -> None:
    replay.sse("openai_text.sse")
    events = await events_of(executor(replay.url), simple())
    assert events == [
        TextDeltaChunk("Hello"),
        TextDeltaChunk(", world"),
        TextDeltaChunk("!"),
        UsageChunk(
            TokenUsage(
                prompt_tokens=42,
                completion_tokens=7,
                total_tokens=49,
                cache_read_tokens=16,
                thinking_tokens=0,
            )
        ),
        StopChunk(StopReason.END_TURN),
    ]
    req = replay.requests[0]
    assert req.method == "POST" and req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {KEY}"
    assert req.headers["accept"] == "text/event-stream"


async def test_execute_collects_text(replay: Any) -> None:
    replay.sse("openai_text.sse")
    result = await executor(replay.url).execute(simple())
    assert result.content == [TextBlock(text="Hello, world!")]
    assert result.tool_calls == [] and result.stop_reason is StopReason.END_TURN
    assert result.usage is not None and result.usage.cache_read_tokens == 16
    assert not result.has_incomplete_tool_calls


async def test_reasoning_content(replay: Any) -> None:
    replay.sse("openai_reasoning.sse")
    exe = executor(replay.url, adapter="deepseek")
    events = await events_of(exe, simple("deepseek-reasoner"))
    assert events[:3] == [
        ReasoningDeltaChunk("The user "),
        ReasoningDeltaChunk("wants 2+2."),
        TextDeltaChunk("4"),
    ]
    usage = events[3].usage
    assert usage.cache_read_tokens == 8 and usage.thinking_tokens == 15
    replay.sse("openai_reasoning.sse")
    result = await exe.execute(simple("deepseek-reasoner"))
    assert result.content == [ThinkingBlock(thinking="The user wants 2+2."), TextBlock(text="4")]


async def test_tool_call_split_across_chunks(replay: Any) -> None:
    replay.sse("openai_tool_split.sse")
    events = await events_of(executor(replay.url), simple())
    assert events[0] == ToolCallStartChunk("call_abc", "get_weather")
    deltas = [e.args_delta for e in events if isinstance(e, ToolCallDeltaChunk)]
    assert len(deltas) == 5 and "".join(deltas) == '{"city": "Tokyo"}'
    assert events[-1] == StopChunk(StopReason.TOOL_USE)
    replay.sse("openai_tool_split.sse")
    result = await executor(replay.url).execute(simple())
    assert result.tool_calls == [ToolCall("call_abc", "get_weather", {"city": "Tokyo"})]
    assert result.needs_tools and result.stop_reason is StopReason.TOOL_USE


async def test_two_parallel_tool_calls(replay: Any) -> None:
    replay.sse("openai_parallel.sse")
    result = await executor(replay.url).execute(simple())
    assert result.tool_calls == [
        ToolCall("call_1", "get_weather", {"city": "Paris"}),
        ToolCall("call_2", "get_time", {"tz": "Europe/Paris"}),
    ]
    assert result.usage is None


async def test_max_tokens_mid_tool_call(replay: Any) -> None:
    replay.sse("openai_max_tokens.sse")
    result = await executor(replay.url).execute(simple())
    assert result.stop_reason is StopReason.MAX_TOKENS
    assert result.has_incomplete_tool_calls
    assert result.tool_calls == []
    assert result.content == [TextBlock(text="Let me check.")]
    assert result.needs_truncation_recovery


# --------------------------------------------------------------------------- errors


async def test_401_is_auth_error_without_key(replay: Any) -> None:
    replay.error(401, "openai_401.json")
    with pytest.raises(ProviderAuthError) as info:
        await executor(replay.url).execute(simple())
    text = str(info.value)
    assert "HTTP 401" in text and "Incorrect API key provided" in text
    assert KEY not in text and "***" in text
    assert not info.value.retryable


async def test_429_carries_retry_after(replay: Any) -> None:
    replay.error(429, "openai_429.json", headers={"retry-after": "7"})
    with pytest.raises(RateLimited) as info:
        await executor(replay.url).execute(simple())
    assert info.value.retry_after == 7.0
    assert str(info.value).startswith("rate limited: ")
    assert "Rate limit reached" in str(info.value)
    assert info.value.retryable


async def test_500_is_retryable_provider_error(replay: Any) -> None:
    replay.error(500, "openai_500.json")
    with pytest.raises(ProviderError) as info:
        await executor(replay.url).execute(simple())
    assert "HTTP 500" in str(info.value) and info.value.retryable
    assert "server had an error" in str(info.value)


async def test_stream_cut_midway(replay: Any) -> None:
    replay.sse("openai_cut.sse", cut=True)
    exe = executor(replay.url)
    seen: list[Any] = []
    with pytest.raises(ProviderError) as info:
        async for event in exe.stream(simple()):
            seen.append(event)
    assert seen == [TextDeltaChunk("Once upon"), TextDeltaChunk(" a time")]
    assert "stream broken" in str(info.value)


async def test_stream_closed_without_finish(replay: Any) -> None:
    replay.sse("openai_cut.sse")
    with pytest.raises(ProviderError, match="ended before the response was complete"):
        await executor(replay.url).execute(simple())


async def test_malformed_stream_names_the_line(replay: Any) -> None:
    replay.sse("openai_malformed.sse")
    with pytest.raises(ProviderError) as info:
        await executor(replay.url).execute(simple())
    assert "malformed stream line" in str(info.value)
    assert '"content":"oops"' in str(info.value)


async def test_error_inside_stream(replay: Any) -> None:
    replay.sse("openai_stream_error.sse")
    with pytest.raises(ProviderError, match="overloaded"):
        await executor(replay.url).execute(simple())


async def test_connection_refused_is_provider_error() -> None:
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    with pytest.raises(ProviderError, match="cannot connect"):
        await executor(f"http://127.0.0.1:{port}").execute(simple())


async def test_read_timeout_is_timeout(replay: Any) -> None:
    from awaken_contract.errors import InferenceTimeout

    replay.sse("openai_slow.sse", hang=True)
    exe = executor(replay.url, timeout_secs=0.2)
    with pytest.raises(InferenceTimeout, match="read timed out"):
        await exe.execute(simple())


async def test_slow_stream_cancelled_by_token(replay: Any) -> None:
    replay.sse("openai_slow.sse", hang=True)
    exe = executor(replay.url)
    token = CancellationToken()
    received: list[Any] = []

    async def consume() -> None:
        async for event in exe.stream(simple()):
            received.append(event)
            token.cancel("user pressed stop")

    with pytest.raises(asyncio.CancelledError):
        await token.race(consume())
    assert received == [TextDeltaChunk("first")]
    await asyncio.wait_for(replay.client_gone.wait(), timeout=10)


async def test_closing_the_iterator_closes_the_connection(replay: Any) -> None:
    replay.sse("openai_slow.sse", hang=True)
    stream = cast(AsyncGenerator[Any, None], executor(replay.url).stream(simple()))
    assert await anext(stream) == TextDeltaChunk("first")
    await stream.aclose()
    await asyncio.wait_for(replay.client_gone.wait(), timeout=10)


# --------------------------------------------------------------------------- requests


def _golden(name: str, body: dict[str, Any]) -> None:
    expected = json.loads((GOLDEN / name).read_text())
    assert body == expected


async def test_golden_request_openai(replay: Any, rich: Any) -> None:
    replay.sse("openai_text.sse")
    request = rich("gpt-4o-mini")
    request.overrides = InferenceOverride(
        temperature=0.3, max_tokens=512, top_p=0.9, reasoning_effort=ReasoningEffort.LOW
    )
    await executor(replay.url).execute(request)
    _golden("openai_request.json", replay.requests[0].body)


async def test_golden_request_openai_compatible(replay: Any, rich: Any) -> None:
    replay.sse("openai_text.sse")
    request = rich("llama3.1")
    request.overrides = InferenceOverride(
        temperature=0.3, max_tokens=512, reasoning_effort=ReasoningEffort.HIGH
    )
    exe = executor(replay.url, adapter="ollama", headers={"x-extra": "1"})
    await exe.execute(request)
    body = replay.requests[0].body
    assert body["max_tokens"] == 512 and "max_completion_tokens" not in body
    assert "reasoning_effort" not in body
    assert replay.requests[0].headers["x-extra"] == "1"
    _golden("openai_compatible_request.json", body)


async def test_errors_are_inference_errors(replay: Any) -> None:
    replay.error(500, "openai_500.json")
    with pytest.raises(InferenceExecutionError):
        await executor(replay.url).execute(simple())


@pytest.mark.parametrize(
    ("effort", "sent"),
    [
        (ReasoningEffort.NONE, None),
        (ReasoningEffort.LOW, "low"),
        (ReasoningEffort.MEDIUM, "medium"),
        (ReasoningEffort.MAX, "high"),
        (ReasoningEffort.budget(1024), "low"),
        (ReasoningEffort.budget(30000), "high"),
    ],
)
def test_reasoning_effort_mapping(effort: Any, sent: str | None) -> None:
    exe = executor("http://127.0.0.1:9")
    endpoint, _ = exe.endpoint_for("o4-mini")
    request = simple("o4-mini")
    request.overrides = InferenceOverride(reasoning_effort=effort)
    body = endpoint.adapter.build_body(request, endpoint)
    assert body.get("reasoning_effort") == sent
