from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.content import TextBlock, ThinkingBlock
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.inference import StopReason, TokenUsage
from awaken_contract.contract.message import Message
from awaken_contract.errors import ProviderAuthError, ProviderError, RateLimited
from awaken_contract.registry_spec import ProviderSpec
from awaken_runtime.engine import GenaiExecutor
from awaken_runtime.engine.adapters.gemini import gemini_schema

KEY = "AIza-test-SECRET-77"
HERE = Path(__file__).parent
GOLDEN = HERE / "fixtures" / "golden"


def executor(url: str) -> GenaiExecutor:
    spec = ProviderSpec(id="gemini", adapter="gemini", base_url=url + "/v1beta", api_key=KEY)
    return GenaiExecutor(spec, environ={})


def simple() -> InferenceRequest:
    return InferenceRequest(
        upstream_model="gemini-2.5-flash",
        messages=[Message.system("Be brief."), Message.user("Hi")],
    )


async def test_text_stream(replay: Any) -> None:
    replay.sse("gemini_text.sse")
    result = await executor(replay.url).execute(simple())
    assert result.content == [TextBlock(text="Hello from Gemini.")]
    assert result.stop_reason is StopReason.END_TURN
    assert result.usage == TokenUsage(
        prompt_tokens=8, completion_tokens=5, total_tokens=13, cache_read_tokens=2
    )
    req = replay.requests[0]
    assert req.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert req.headers["x-goog-api-key"] == KEY
    assert req.body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert req.body["contents"] == [{"role": "user", "parts": [{"text": "Hi"}]}]


async def test_thoughts_and_parallel_function_calls(replay: Any) -> None:
    replay.sse("gemini_function_call.sse")
    result = await executor(replay.url).execute(simple())
    assert result.content == [ThinkingBlock(thinking="Need weather data.")]
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", {"city": "Tokyo"}),
        ("get_time", {"tz": "Asia/Tokyo"}),
    ]
    ids = [c.id for c in result.tool_calls]
    assert all(i.startswith("call_") for i in ids) and len(set(ids)) == 2
    assert result.stop_reason is StopReason.TOOL_USE
    assert result.usage is not None
    assert result.usage.completion_tokens == 32 and result.usage.thinking_tokens == 12


async def test_max_tokens(replay: Any) -> None:
    replay.sse("gemini_max_tokens.sse")
    result = await executor(replay.url).execute(simple())
    assert result.stop_reason is StopReason.MAX_TOKENS
    assert result.text == "A very long answer" and result.needs_truncation_recovery


async def test_cut_stream(replay: Any) -> None:
    replay.sse("gemini_cut.sse")
    with pytest.raises(ProviderError, match="ended before"):
        await executor(replay.url).execute(simple())


async def test_errors(replay: Any) -> None:
    replay.error(403, "gemini_403.json")
    with pytest.raises(ProviderAuthError, match="PERMISSION_DENIED"):
        await executor(replay.url).execute(simple())
    replay.error(429, "gemini_429.json")
    with pytest.raises(RateLimited, match="Resource has been exhausted") as info:
        await executor(replay.url).execute(simple())
    assert info.value.retry_after is None


async def test_golden_request(replay: Any, rich: Any) -> None:
    from awaken_contract.registry_spec import InferenceOverride, ReasoningEffort

    replay.sse("gemini_text.sse")
    request = rich("gemini-2.5-flash")
    request.overrides = InferenceOverride(
        temperature=0.3, max_tokens=512, top_p=0.9, reasoning_effort=ReasoningEffort.MEDIUM
    )
    await executor(replay.url).execute(request)
    body = replay.requests[0].body
    assert body == json.loads((GOLDEN / "gemini_request.json").read_text())


def test_schema_reduced_to_gemini_subset() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "name": {"type": ["string", "null"], "description": "n"},
            "tags": {"type": "array", "items": {"type": "string", "examples": ["a"]}},
        },
        "required": ["name"],
    }
    assert gemini_schema(schema) == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "nullable": True, "description": "n"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["name"],
    }
