"""Live provider tests (real network, real keys). Opt-in, from the repository root:

AWAKEN_LIVE_TESTS=1 OPENAI_API_KEY=... uv run pytest -m live packages/awaken-runtime/tests
AWAKEN_LIVE_TESTS=1 ANTHROPIC_API_KEY=... uv run pytest -m live packages/awaken-runtime/tests
AWAKEN_LIVE_TESTS=1 LLM_BASE_URL=... LLM_API_KEY=... LLM_MODEL=... uv run pytest -m live ...
"""

from __future__ import annotations

import os

import pytest
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.inference import StopReason
from awaken_contract.contract.message import Message
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.registry_spec import InferenceOverride, ProviderSpec
from awaken_runtime.engine import GenaiExecutor

pytestmark = pytest.mark.live

LIVE = os.environ.get("AWAKEN_LIVE_TESTS") == "1"


def _need(*variables: str) -> None:
    if not LIVE:
        pytest.skip("set AWAKEN_LIVE_TESTS=1 to run live provider tests")
    missing = [v for v in variables if not os.environ.get(v)]
    if missing:
        pytest.skip(f"set {', '.join(missing)} to run this live test")


WEATHER = ToolDescriptor("get_weather", "Get Weather", "Weather for a city").with_parameters(
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
)


async def _answers_and_calls_tools(exe: GenaiExecutor, model: str) -> None:
    reply = await exe.execute(
        InferenceRequest(
            upstream_model=model,
            messages=[
                Message.system("Answer in one word."),
                Message.user("What is 2+2? Answer with the digit only."),
            ],
            overrides=InferenceOverride(max_tokens=64),
        )
    )
    assert "4" in reply.text and reply.stop_reason is StopReason.END_TURN
    assert reply.usage is not None and (reply.usage.prompt_tokens or 0) > 0

    call = await exe.execute(
        InferenceRequest(
            upstream_model=model,
            messages=[Message.user("Use the tool to get the weather in Tokyo.")],
            tools=[WEATHER],
            overrides=InferenceOverride(max_tokens=256),
        )
    )
    assert call.tool_calls and call.tool_calls[0].name == "get_weather"
    assert "tokyo" in str(call.tool_calls[0].arguments).lower()


async def test_live_openai_compatible() -> None:
    if os.environ.get("LLM_BASE_URL"):
        _need("LLM_BASE_URL")
        spec = ProviderSpec(
            id="live",
            adapter="openai_compatible",
            base_url=os.environ["LLM_BASE_URL"],
            api_key_env="LLM_API_KEY" if os.environ.get("LLM_API_KEY") else None,
        )
    else:
        _need("OPENAI_API_KEY")
        spec = ProviderSpec(id="openai", adapter="openai")
    model = os.environ.get("LLM_MODEL", "gpt-4o-mini")
    exe = GenaiExecutor(spec)
    try:
        await _answers_and_calls_tools(exe, model)
    finally:
        await exe.aclose()


async def test_live_anthropic() -> None:
    _need("ANTHROPIC_API_KEY")
    exe = GenaiExecutor(ProviderSpec(id="anthropic", adapter="anthropic"))
    model = os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-20250514")
    try:
        await _answers_and_calls_tools(exe, model)
    finally:
        await exe.aclose()


async def test_live_gemini() -> None:
    _need("GEMINI_API_KEY")
    exe = GenaiExecutor(ProviderSpec(id="gemini", adapter="gemini"))
    try:
        await _answers_and_calls_tools(exe, os.environ.get("GEMINI_MODEL", "gemini-2.5-flash"))
    finally:
        await exe.aclose()
