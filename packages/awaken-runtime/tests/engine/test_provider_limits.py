"""Default retries and per-inference time limits, against a real loopback provider.

A run with no ``retry`` section retries 429/5xx answers (honouring ``Retry-After``) and
``retry: {max_retries: 0}`` turns that off; a provider that sends keep-alive bytes or endless
events is cut off by the idle-progress and total-time limits.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.errors import InferenceTimeout
from awaken_contract.registry_spec import AgentSpec, LlmRetryPolicy, ModelSpec, ProviderSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import GenaiExecutor, RetryConfigKey

from .conftest import ReplayServer, Reply

_CHUNK = (
    b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini",'
    b'"choices":[{"index":0,"delta":{"content":"."},"finish_reason":null}]}\n\n'
)

FAILED_500 = (
    "inference failed: provider error: openai returned HTTP 500: The server had an error while "
    "processing your request. Sorry about that! (server_error)"
)


def provider(url: str, **limits: Any) -> ProviderSpec:
    return ProviderSpec(
        id="openai", adapter="openai", base_url=url + "/v1", api_key="sk-x", **limits
    )


async def run_agent(replay: ReplayServer, spec: AgentSpec) -> Any:
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(spec.with_model("m"))
        .with_provider("openai", GenaiExecutor(provider(replay.url), environ={}))
        .with_model("m", ModelSpec(id="m", provider="openai", model="gpt-4o-mini"))
        .build()
    )
    request = RunRequest("t-1", [Message.user("Hi")]).with_agent_id(spec.id)
    return await runtime.run(request, VecEventSink())


async def test_a_500_is_retried_by_default(replay: ReplayServer) -> None:
    replay.error(500, "openai_500.json").sse("openai_text.sse")
    result = await run_agent(replay, AgentSpec("a"))
    assert result.response == "Hello, world!"
    assert len(replay.requests) == 2


async def test_a_429_waits_for_its_retry_after_by_default(replay: ReplayServer) -> None:
    replay.error(429, "openai_429.json", headers={"retry-after": "2"}).sse("openai_text.sse")
    started = time.monotonic()
    result = await run_agent(replay, AgentSpec("a"))
    assert result.response == "Hello, world!"
    assert len(replay.requests) == 2
    assert time.monotonic() - started >= 2.0  # the provider's Retry-After was honoured


async def test_retries_are_bounded(replay: ReplayServer) -> None:
    for _ in range(5):
        replay.error(500, "openai_500.json")
    result = await run_agent(replay, AgentSpec("a"))
    assert result.termination == TerminationReason.error(FAILED_500)
    assert len(replay.requests) == 3  # the default policy: one call and two retries


async def test_retries_can_be_turned_off(replay: ReplayServer) -> None:
    replay.error(500, "openai_500.json").sse("openai_text.sse")
    spec = AgentSpec("a").with_config(RetryConfigKey, LlmRetryPolicy(max_retries=0))
    result = await run_agent(replay, spec)
    assert result.termination == TerminationReason.error(FAILED_500)
    assert len(replay.requests) == 1


def request() -> InferenceRequest:
    return InferenceRequest(upstream_model="gpt-4o-mini", messages=[Message.user("Hi")])


async def test_keep_alive_bytes_do_not_count_as_progress(replay: ReplayServer) -> None:
    replay.replies.append(
        Reply(headers={"content-type": "text/event-stream"}, drip=b": keep-alive\n\n")
    )
    executor = GenaiExecutor(provider(replay.url, idle_timeout_secs=0.5), environ={})
    with pytest.raises(InferenceTimeout, match=r"sent no stream event for 0\.5s"):
        await executor.execute(request())
    await executor.aclose()


async def test_an_endless_stream_hits_the_total_limit(replay: ReplayServer) -> None:
    replay.replies.append(Reply(headers={"content-type": "text/event-stream"}, drip=_CHUNK))
    spec = provider(replay.url, total_timeout_secs=0.5, idle_timeout_secs=10)
    executor = GenaiExecutor(spec, environ={})
    with pytest.raises(InferenceTimeout, match=r"did not finish the inference within 0\.5s"):
        await executor.execute(request())
    await executor.aclose()


async def test_a_provider_that_never_answers_hits_the_total_limit(replay: ReplayServer) -> None:
    replay.replies.append(Reply(status=200, chunks=[], hang=True))
    executor = GenaiExecutor(provider(replay.url, total_timeout_secs=0.5), environ={})
    with pytest.raises(InferenceTimeout):
        await executor.execute(request())
    await executor.aclose()


def test_limits_are_validated_and_can_be_disabled() -> None:
    with pytest.raises(ValueError, match="greater than 0"):
        ProviderSpec(id="p", adapter="openai", idle_timeout_secs=0)
    spec = ProviderSpec(id="p", adapter="openai", total_timeout_secs=None, idle_timeout_secs=None)
    assert spec.total_timeout_secs is None and spec.idle_timeout_secs is None
    assert ProviderSpec(id="p", adapter="openai").total_timeout_secs == 1800
