from __future__ import annotations

import email.utils
from typing import Any

import pytest
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.inference import (
    ReasoningDeltaChunk,
    StopChunk,
    StopReason,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    ToolCallStartChunk,
)
from awaken_contract.contract.message import Message
from awaken_contract.errors import InferenceTimeout, ProviderAuthError, ProviderError, RateLimited
from awaken_contract.registry_spec import ProviderSpec
from awaken_runtime.engine import (
    GenaiExecutor,
    StreamCollector,
    adapter_defaults,
    infer_adapter,
    provider_from_env,
    resolve_endpoint,
)
from awaken_runtime.engine.errors import (
    classify_http_error,
    classify_message,
    parse_retry_after,
    redact,
)


def test_provider_from_env_order() -> None:
    assert provider_from_env({}) is None
    spec, model = provider_from_env({"OPENAI_API_KEY": "k"}) or (None, "")
    assert spec is not None and spec.adapter == "openai" and spec.api_key_env == "OPENAI_API_KEY"
    assert spec.api_key is None and model == "gpt-4o-mini"
    spec, model = provider_from_env({"ANTHROPIC_API_KEY": "k", "LLM_MODEL": "claude-x"}) or (
        None,
        "",
    )
    assert spec is not None and spec.adapter == "anthropic" and model == "claude-x"
    spec, model = provider_from_env({"DEEPSEEK_API_KEY": "k"}) or (None, "")
    assert spec is not None and spec.adapter == "deepseek" and model == "deepseek-chat"
    spec, model = provider_from_env({"GOOGLE_API_KEY": "k"}) or (None, "")
    assert spec is not None and spec.adapter == "gemini" and spec.api_key_env == "GOOGLE_API_KEY"
    env = {
        "LLM_BASE_URL": "https://open.bigmodel.cn/api/paas/v4/",
        "LLM_API_KEY": "k",
        "LLM_MODEL": "GLM-4.7-Flash",
        "OPENAI_API_KEY": "k2",
    }
    spec, model = provider_from_env(env) or (None, "")
    assert spec is not None and spec.adapter == "openai_compatible"
    assert spec.base_url == env["LLM_BASE_URL"] and model == "GLM-4.7-Flash"


def test_missing_key_fails_at_construction_naming_the_variable() -> None:
    with pytest.raises(ProviderAuthError, match="OPENAI_API_KEY"):
        GenaiExecutor(ProviderSpec(id="openai", adapter="openai"), environ={})
    with pytest.raises(ProviderAuthError, match="MY_ANTHROPIC_KEY"):
        GenaiExecutor(
            ProviderSpec(id="a", adapter="anthropic", api_key_env="MY_ANTHROPIC_KEY"), environ={}
        )
    with pytest.raises(ProviderAuthError, match="GEMINI_API_KEY or GOOGLE_API_KEY"):
        GenaiExecutor(ProviderSpec(id="g", adapter="gemini"), environ={})
    # keyless local servers are fine
    GenaiExecutor(ProviderSpec(id="local", adapter="ollama"), environ={})


def test_auto_mode_checks_models_up_front() -> None:
    exe = GenaiExecutor(environ={"ANTHROPIC_API_KEY": "k"})
    exe.check_model("claude-sonnet-4-20250514")
    with pytest.raises(ProviderAuthError, match="OPENAI_API_KEY"):
        exe.check_model("gpt-4o-mini")
    endpoint, model = exe.endpoint_for("ollama::my-model")
    assert model == "my-model" and endpoint.adapter.kind == "ollama"
    with pytest.raises(ProviderError, match="needs a base_url"):
        GenaiExecutor(environ={}).check_model("openai_compatible::m")


def test_infer_adapter() -> None:
    assert infer_adapter("gpt-4o-mini", {}) == "openai"
    assert infer_adapter("o3-mini", {}) == "openai"
    assert infer_adapter("claude-sonnet-4-20250514", {}) == "anthropic"
    assert infer_adapter("gemini-2.5-flash", {}) == "gemini"
    assert infer_adapter("deepseek-chat", {}) == "deepseek"
    assert infer_adapter("llama3.1", {}) == "ollama"
    assert infer_adapter("gpt-4o", {"LLM_BASE_URL": "http://x"}) == "openai_compatible"


def test_endpoint_resolution() -> None:
    ep = resolve_endpoint(ProviderSpec(id="o", adapter="ollama"), {"OLLAMA_HOST": "gpu:11434"})
    assert ep.base_url == "http://gpu:11434/v1" and ep.api_key is None
    ep = resolve_endpoint(ProviderSpec(id="d", adapter="DeepSeek"), {"DEEPSEEK_API_KEY": "dk"})
    assert ep.base_url == "https://api.deepseek.com/v1" and ep.api_key == "dk"
    assert "dk" not in repr(ep)
    ep = resolve_endpoint(
        ProviderSpec(id="v", adapter="vllm", base_url="http://gpu:8000/v1", timeout_secs=5), {}
    )
    assert ep.adapter.kind == "openai_compatible" and ep.timeout_secs == 5
    with pytest.raises(ProviderError, match="unknown provider adapter 'bedrock'") as info:
        adapter_defaults("bedrock")
    assert not info.value.retryable


def test_error_classification() -> None:
    err = classify_http_error(
        429, b'{"error":{"message":"slow down"}}', {"retry-after-ms": "1500"}, "openai"
    )
    assert isinstance(err, RateLimited) and err.retry_after == 1.5
    when = email.utils.formatdate(1_000_030.0, usegmt=True)
    assert parse_retry_after({"retry-after": when}, now=1_000_000.0) == 30.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert isinstance(classify_http_error(504, b"gateway", {}, "p"), InferenceTimeout)
    bad_request = classify_http_error(400, b'{"error":{"message":"bad"}}', {}, "p")
    assert type(bad_request) is ProviderError and not bad_request.retryable
    assert "p returned HTTP 400: bad" in str(bad_request)
    assert isinstance(classify_message("Too Many Requests"), RateLimited)
    assert isinstance(classify_message("request timed out"), InferenceTimeout)
    assert type(classify_message("boom")) is ProviderError
    assert redact("key sk-123456 leaked", ["sk-123456", None]) == "key *** leaked"


def test_collector_blocks_and_incomplete_calls() -> None:
    collector = StreamCollector()
    for event in [
        ReasoningDeltaChunk("think "),
        ReasoningDeltaChunk("more"),
        TextDeltaChunk("Hello "),
        TextDeltaChunk("there"),
        ToolCallStartChunk("c1", "a"),
        ToolCallDeltaChunk("c1", '{"x": 1}'),
        ToolCallStartChunk("c2", "b"),
        ToolCallStartChunk("c3", "c"),
        ToolCallDeltaChunk("c3", '{"y": '),
        StopChunk(StopReason.MAX_TOKENS),
    ]:
        collector.push(event)
    result = collector.result()
    assert [type(b).__name__ for b in result.content] == ["ThinkingBlock", "TextBlock"]
    assert result.text == "Hello there"
    assert [(c.id, c.arguments) for c in result.tool_calls] == [("c1", {"x": 1}), ("c2", {})]
    assert result.has_incomplete_tool_calls


async def test_llm_base_url_routes_every_model(replay: Any) -> None:
    replay.sse("openai_text.sse")
    exe = GenaiExecutor(environ={"LLM_BASE_URL": replay.url + "/v1"})
    request = InferenceRequest(upstream_model="glm-4", messages=[Message.user("Hi")])
    result = await exe.execute(request)
    assert result.text == "Hello, world!"
    assert replay.requests[0].body["model"] == "glm-4"
    assert "authorization" not in replay.requests[0].headers


async def test_non_sse_body_is_reported(replay: Any) -> None:
    replay.error(200, "openai_500.json")  # a JSON document where SSE was expected
    exe = GenaiExecutor(
        ProviderSpec(id="o", adapter="openai", base_url=replay.url, api_key="k"), environ={}
    )
    with pytest.raises(ProviderError, match="malformed stream line"):
        await exe.execute(InferenceRequest(upstream_model="m", messages=[Message.user("x")]))
