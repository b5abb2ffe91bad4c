from __future__ import annotations

from typing import Any

import pytest
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.inference import TextDeltaChunk
from awaken_contract.contract.message import Message
from awaken_contract.errors import ProviderAuthError, ProviderError, RateLimited
from awaken_contract.registry_spec import (
    AgentSpec,
    CircuitBreakerConfig,
    InferenceOverride,
    LlmRetryPolicy,
    ProviderSpec,
)
from awaken_runtime.engine import (
    CircuitBreaker,
    CircuitState,
    GenaiExecutor,
    RetryAttempt,
    RetryConfigKey,
    RetryingExecutor,
    with_retry,
)


class Sleeps:
    """Injected sleep: records the requested delays instead of waiting."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def genai(url: str) -> GenaiExecutor:
    return GenaiExecutor(
        ProviderSpec(id="openai", adapter="openai", base_url=url + "/v1", api_key="sk-x"),
        environ={},
    )


def request(model: str = "gpt-4o-mini", **overrides: Any) -> InferenceRequest:
    return InferenceRequest(
        upstream_model=model,
        messages=[Message.user("Hi")],
        overrides=InferenceOverride(**overrides) if overrides else None,
    )


def models_requested(replay: Any) -> list[str]:
    return [r.body["model"] for r in replay.requests]


async def test_500_then_success(replay: Any) -> None:
    replay.error(500, "openai_500.json").sse("openai_text.sse")
    sleeps = Sleeps()
    failures: list[RetryAttempt] = []
    exe = RetryingExecutor(
        genai(replay.url), LlmRetryPolicy(), sleep=sleeps, on_attempt_failed=failures.append
    )
    result = await exe.execute(request())
    assert result.text == "Hello, world!"
    assert len(replay.requests) == 2
    assert sleeps.calls == [0.5]
    assert [(f.model, f.attempt, f.delay_secs) for f in failures] == [("gpt-4o-mini", 0, 0.5)]
    assert exe.name() == "genai:openai"


async def test_backoff_doubles_and_caps(replay: Any) -> None:
    for _ in range(6):
        replay.error(500, "openai_500.json")
    sleeps = Sleeps()
    policy = LlmRetryPolicy(max_retries=5, backoff_base_ms=1000)
    with pytest.raises(ProviderError, match="HTTP 500"):
        await RetryingExecutor(genai(replay.url), policy, sleep=sleeps).execute(request())
    assert sleeps.calls == [1.0, 2.0, 4.0, 8.0, 8.0]
    assert len(replay.requests) == 6


async def test_retry_after_is_honoured(replay: Any) -> None:
    replay.error(429, "openai_429.json", headers={"retry-after": "3"}).sse("openai_text.sse")
    sleeps = Sleeps()
    exe = RetryingExecutor(genai(replay.url), LlmRetryPolicy(), sleep=sleeps)
    assert (await exe.execute(request())).text == "Hello, world!"
    assert sleeps.calls == [3.0]


async def test_excessive_retry_after_moves_to_fallback(replay: Any) -> None:
    replay.error(429, "openai_429.json", headers={"retry-after": "3600"}).sse("openai_text.sse")
    sleeps = Sleeps()
    policy = LlmRetryPolicy(max_retries=2, fallback_models=["gpt-4o"])
    exe = RetryingExecutor(genai(replay.url), policy, sleep=sleeps)
    assert (await exe.execute(request())).text == "Hello, world!"
    assert sleeps.calls == []
    assert models_requested(replay) == ["gpt-4o-mini", "gpt-4o"]


async def test_fallback_models_in_order(replay: Any) -> None:
    for _ in range(4):
        replay.error(500, "openai_500.json")
    replay.sse("openai_text.sse")
    policy = LlmRetryPolicy(max_retries=1, fallback_models=["m2", "m3"], backoff_base_ms=0)
    sleeps = Sleeps()
    result = await RetryingExecutor(genai(replay.url), policy, sleep=sleeps).execute(request())
    assert result.text == "Hello, world!"
    assert models_requested(replay) == ["gpt-4o-mini", "gpt-4o-mini", "m2", "m2", "m3"]
    assert sleeps.calls == []


async def test_request_fallbacks_override_policy(replay: Any) -> None:
    replay.error(500, "openai_500.json").sse("openai_text.sse")
    policy = LlmRetryPolicy(max_retries=0, fallback_models=["policy-model"])
    exe = RetryingExecutor(genai(replay.url), policy, sleep=Sleeps())
    await exe.execute(request(fallback_models=["override-model"]))
    assert models_requested(replay) == ["gpt-4o-mini", "override-model"]

    replay.error(500, "openai_500.json")
    with pytest.raises(ProviderError):
        await exe.execute(request(fallback_models=[]))  # explicit empty list: no fallback


async def test_auth_error_is_not_retried(replay: Any) -> None:
    replay.error(401, "openai_401.json")
    sleeps = Sleeps()
    policy = LlmRetryPolicy(max_retries=3, fallback_models=["other"])
    with pytest.raises(ProviderAuthError):
        await RetryingExecutor(genai(replay.url), policy, sleep=sleeps).execute(request())
    assert len(replay.requests) == 1 and sleeps.calls == []


async def test_exhausted_returns_last_error(replay: Any) -> None:
    replay.error(500, "openai_500.json").error(429, "openai_429.json")
    policy = LlmRetryPolicy(max_retries=0, fallback_models=["m2"])
    with pytest.raises(RateLimited):
        await RetryingExecutor(genai(replay.url), policy, sleep=Sleeps()).execute(request())


async def test_stream_retries_opening_only(replay: Any) -> None:
    replay.error(500, "openai_500.json").sse("openai_text.sse")
    exe = RetryingExecutor(genai(replay.url), LlmRetryPolicy(), sleep=Sleeps())
    events = [e async for e in exe.stream(request())]
    assert events[:3] == [TextDeltaChunk("Hello"), TextDeltaChunk(", world"), TextDeltaChunk("!")]

    replay.sse("openai_cut.sse", cut=True)
    seen: list[Any] = []
    with pytest.raises(ProviderError, match="stream broken"):
        async for event in exe.stream(request()):
            seen.append(event)
    assert len(seen) == 2
    assert len(replay.requests) == 3  # the broken stream was not retried


async def test_circuit_breaker_opens_half_opens_and_closes() -> None:
    clock = Clock()
    breaker = CircuitBreaker(
        CircuitBreakerConfig(failure_threshold=2, cooldown=10, half_open_max=1), clock=clock
    )
    assert breaker.state("m") is CircuitState.CLOSED and breaker.allow("m")
    breaker.record_failure("m")
    assert breaker.state("m") is CircuitState.CLOSED
    breaker.record_failure("m")
    assert breaker.state("m") is CircuitState.OPEN
    assert not breaker.allow("m")
    with pytest.raises(ProviderError, match="circuit breaker open for model m") as info:
        breaker.check("m")
    assert info.value.retryable
    clock.now += 10
    assert breaker.allow("m") and breaker.state("m") is CircuitState.HALF_OPEN
    assert not breaker.allow("m")  # only half_open_max probes
    breaker.record_failure("m")
    assert breaker.state("m") is CircuitState.OPEN
    clock.now += 9
    assert not breaker.allow("m")
    clock.now += 1
    assert breaker.allow("m")
    breaker.record_success("m")
    assert breaker.state("m") is CircuitState.CLOSED and breaker.consecutive_failures("m") == 0
    assert breaker.state("other") is CircuitState.CLOSED


async def test_breaker_with_retrying_executor_skips_open_model(replay: Any) -> None:
    clock = Clock()
    breaker = CircuitBreaker(CircuitBreakerConfig(failure_threshold=2, cooldown=30), clock=clock)
    policy = LlmRetryPolicy(max_retries=1, fallback_models=["backup"], backoff_base_ms=0)
    exe = RetryingExecutor(genai(replay.url), policy, breaker=breaker, sleep=Sleeps())

    replay.error(500, "openai_500.json").error(500, "openai_500.json").sse("openai_text.sse")
    await exe.execute(request())
    assert models_requested(replay) == ["gpt-4o-mini", "gpt-4o-mini", "backup"]
    assert breaker.state("gpt-4o-mini") is CircuitState.OPEN

    # primary is open: go straight to the fallback without calling the provider
    replay.sse("openai_text.sse")
    await exe.execute(request())
    assert models_requested(replay)[3:] == ["backup"]

    # after the cooldown one probe reaches the primary again and closes the breaker
    clock.now += 30
    replay.sse("openai_text.sse")
    await exe.execute(request())
    assert models_requested(replay)[4:] == ["gpt-4o-mini"]
    assert breaker.state("gpt-4o-mini") is CircuitState.CLOSED


async def test_with_retry_uses_the_agent_retry_section() -> None:
    inner = genai("http://127.0.0.1:1")
    spec = AgentSpec("a").with_config(
        RetryConfigKey, LlmRetryPolicy(max_retries=0, fallback_models=[])
    )
    assert with_retry(inner, spec.config(RetryConfigKey)) is inner
    wrapped = with_retry(inner, AgentSpec("b").config(RetryConfigKey))
    assert isinstance(wrapped, RetryingExecutor) and wrapped.policy == LlmRetryPolicy()
