"""Structured output against each adapter: recorded provider streams on the loopback replay
server, the golden request bodies (OpenAI ``response_format``, Anthropic
``output_config.format``, Gemini ``responseMimeType`` + ``responseSchema``, the
``final_result`` tool where the adapter has no native mode) and the validation retry."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import tool
from awaken_contract.registry_spec import AgentSpec, ModelSpec, ProviderSpec
from awaken_contract.runtime import AgentRunResult
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import GenaiExecutor
from pydantic import BaseModel

GOLDEN = Path(__file__).parent / "fixtures" / "golden"
KEY = "sk-test-structured"


class City(BaseModel):
    """A city and its population."""

    name: str
    population: int


@tool
def lookup(city: str) -> int:
    """Population of a city."""
    return 14000000


def _golden(name: str, body: dict[str, Any]) -> None:
    path = GOLDEN / name
    if os.environ.get("AWAKEN_WRITE_GOLDEN"):  # regenerate deliberately, then review the diff
        path.write_text(json.dumps(body, indent=2, sort_keys=True) + "\n")
    assert body == json.loads(path.read_text())


async def _run(url: str, adapter: str, model: str, *, with_tool: bool = False) -> AgentRunResult:
    spec = ProviderSpec(id=adapter, adapter=adapter, base_url=url + "/v1", api_key=KEY)
    builder = (
        AgentRuntimeBuilder()
        .with_agent_spec(
            AgentSpec("extractor")
            .with_model("m")
            .with_system_prompt("Extract the city.")
            .with_output_schema(City)
        )
        .with_provider("llm", GenaiExecutor(spec, environ={}))
        .with_model("m", ModelSpec(id="m", provider="llm", model=model))
    )
    if with_tool:
        builder = builder.with_tool("lookup", lookup)
    runtime = builder.build()
    return await runtime.run(
        RunRequest("t", [Message.user("Tokyo has 14 million people.")]).with_agent_id("extractor")
    )


def _feedback(body: dict[str, Any]) -> str:
    return json.dumps(body)


@pytest.mark.parametrize(
    ("adapter", "model", "prefix"),
    [
        ("openai", "gpt-4o-mini", "openai"),
        ("anthropic", "claude-sonnet-4-5", "anthropic"),
        ("gemini", "gemini-2.5-flash", "gemini"),
    ],
)
async def test_native_structured_output_with_a_validation_retry(
    replay: Any, adapter: str, model: str, prefix: str
) -> None:
    replay.sse(f"{prefix}_structured_invalid.sse").sse(f"{prefix}_structured.sse")
    result = await _run(replay.url, adapter, model)
    assert result.is_success, result.termination
    assert result.output == City(name="Tokyo", population=14000000)
    assert result.steps == 2
    first, second = (r.body for r in replay.requests)
    _golden(f"{prefix}_structured_request.json", first)
    # the retry shows the model its invalid answer and the validation error
    assert "population" in _feedback(second) and "does not match" in _feedback(second)
    assert "final_result" not in json.dumps(first)


async def test_openai_compatible_server_gets_the_final_result_tool(replay: Any) -> None:
    replay.sse("openai_final_result.sse")
    result = await _run(replay.url, "ollama", "llama3.1")
    assert result.output == City(name="Tokyo", population=14000000)
    body = replay.requests[0].body
    assert "response_format" not in body
    _golden("openai_compatible_final_result_request.json", body)


async def test_gemini_with_tools_falls_back_to_the_final_result_tool(replay: Any) -> None:
    replay.sse("gemini_final_result.sse")
    result = await _run(replay.url, "gemini", "gemini-2.5-flash", with_tool=True)
    assert result.output == City(name="Tokyo", population=14000000)
    body = replay.requests[0].body
    assert "responseSchema" not in body.get("generationConfig", {})
    names = [f["name"] for f in body["tools"][0]["functionDeclarations"]]
    assert names == ["lookup", "final_result"]
    _golden("gemini_final_result_request.json", body)


async def test_anthropic_sends_output_config_with_tools(replay: Any) -> None:
    replay.sse("anthropic_structured.sse")
    result = await _run(replay.url, "anthropic", "claude-sonnet-4-5", with_tool=True)
    assert result.output == City(name="Tokyo", population=14000000)
    body = replay.requests[0].body
    assert [t["name"] for t in body["tools"]] == ["lookup"]
    assert body["output_config"]["format"]["type"] == "json_schema"
    assert body["output_config"]["format"]["schema"]["additionalProperties"] is False
