"""Structured output over HTTP on a real socket: an agent declared in ``awaken serve`` YAML
with ``output_schema``; the native API's ``run_finish`` carries ``result.output``, the AI SDK
v6 stream a ``data-output`` part, A2A a DataPart in the final message and artifact. The only
mock is the scripted model (it cannot call a provider's native mode, so it gets the
``final_result`` tool)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from awaken_contract.contract.message import ToolCall
from awaken_runtime.engine import ScriptedLlm, tool_step
from awaken_runtime.testing.pytest_plugin import ServeAsgi
from awaken_runtime.testing.sse import parse_sse_text
from awaken_server.app import ServerConfig
from awaken_server.bootstrap import setup_from_file
from awaken_server.serve import prepare_app
from awaken_stores import SqliteStore

YAML = """
models:
  - id: m
    provider_id: scripted
    upstream_model: scripted-1
agents:
  - id: extractor
    model_id: m
    system_prompt: Extract the city.
    output_schema:
      name: city
      max_retries: 1
      schema:
        type: object
        properties:
          name: {type: string}
          population: {type: integer, minimum: 0}
        required: [name, population]
"""

CITY = {"name": "Tokyo", "population": 14000000}


def _final(args: Any, call_id: str) -> Any:
    return tool_step([ToolCall(call_id, "final_result", args)])


def _sse_data(text: str) -> list[dict[str, Any]]:
    return [f.data for f in parse_sse_text(text) if isinstance(f.data, dict)]


@contextlib.asynccontextmanager
async def _serve(
    tmp_path: Path, serve: ServeAsgi, llm: ScriptedLlm
) -> AsyncIterator[httpx.AsyncClient]:
    """The app ``awaken serve`` builds from :data:`YAML` on a real SQLite file."""
    config = tmp_path / "awaken.yaml"
    config.write_text(YAML, encoding="utf-8")
    setup = setup_from_file(config)
    setup.executors["scripted"] = llm
    store = SqliteStore(tmp_path / "awaken.db")
    app, _ = await prepare_app(setup, store, ServerConfig())
    try:
        async with httpx.AsyncClient(base_url=await serve(app), timeout=30) as client:
            yield client
    finally:
        await store.close()


async def test_native_run_finish_carries_the_output_after_a_retry(
    tmp_path: Path, serve: ServeAsgi
) -> None:
    llm = ScriptedLlm([_final({"name": "Tokyo", "population": -1}, "f1"), _final(CITY, "f2")])
    async with _serve(tmp_path, serve, llm) as client:
        payload = {"agentId": "extractor", "messages": [{"role": "user", "content": "Tokyo?"}]}
        response = await client.post("/v1/runs", json=payload)
        assert response.status_code == 200, response.text
        frames = _sse_data(response.text)
        finish = frames[-1]
        assert finish["event_type"] == "run_finish"
        assert finish["result"]["output"] == CITY
        assert json.loads(finish["result"]["response"]) == CITY
        done = [f for f in frames if f["event_type"] == "tool_call_done"]
        assert [d["id"] for d in done] == ["f1", "f2"]
        assert "-1 is less than the minimum of 0" in done[0]["result"]["message"]
        thread = finish["thread_id"]
        messages = (await client.get(f"/v1/threads/{thread}/messages")).json()["messages"]
        assert json.loads(messages[-1]["content"][0]["text"]) == CITY


async def test_exhausted_retries_are_an_error_frame(tmp_path: Path, serve: ServeAsgi) -> None:
    llm = ScriptedLlm([_final({"name": "X"}, "f1"), _final({"name": "X"}, "f2")])
    async with _serve(tmp_path, serve, llm) as client:
        payload = {"agentId": "extractor", "messages": [{"role": "user", "content": "?"}]}
        response = await client.post("/v1/runs", json=payload)
    frames = _sse_data(response.text)
    error = next(f for f in frames if f["event_type"] == "error")
    assert "structured output invalid after 2 attempt(s)" in error["message"]
    assert frames[-1]["termination"]["type"] == "error"
    assert "output" not in (frames[-1].get("result") or {})


async def test_ai_sdk_stream_has_a_data_output_part(tmp_path: Path, serve: ServeAsgi) -> None:
    llm = ScriptedLlm([_final(CITY, "f1")])
    async with _serve(tmp_path, serve, llm) as client:
        body = {
            "id": "chat-1",
            "threadId": "so-ai-sdk",
            "agentId": "extractor",
            "messages": [
                {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Tokyo?"}]}
            ],
        }
        response = await client.post("/v1/ai-sdk/chat", json=body)
    assert response.status_code == 200, response.text
    parts = _sse_data(response.text)
    output = [p for p in parts if p["type"] == "data-output"]
    assert output == [{"type": "data-output", "data": CITY}]
    types = [p["type"] for p in parts]
    assert types.index("data-output") == types.index("finish") - 1


async def test_a2a_task_has_a_data_part(tmp_path: Path, serve: ServeAsgi) -> None:
    llm = ScriptedLlm([_final(CITY, "f1")])
    async with _serve(tmp_path, serve, llm) as client:
        message = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "Tokyo?"}]}
        response = await client.post(
            "/v1/a2a/extractor/message:send",
            json={"message": message},
            headers={"A2A-Version": "1.0"},
        )
    assert response.status_code == 200, response.text
    task = response.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    data_part = {"data": CITY, "mediaType": "application/json"}
    assert task["status"]["message"]["parts"] == [data_part]
    assert task["artifacts"][0]["parts"] == [data_part]


async def test_config_api_validates_output_schema(live: Any) -> None:
    agent = {"id": "typed", "model_id": "demo", "output_schema": {"type": "no-such-type"}}
    refused = await live.client.post("/v1/config/agents", json=agent)
    assert refused.status_code == 400
    assert "invalid JSON Schema" in refused.json()["error"]
    agent["output_schema"] = {"name": "city", "schema": {"type": "object"}, "max_retries": 0}
    created = await live.client.post("/v1/config/agents", json=agent)
    assert created.status_code == 201, created.text
    stored = (await live.client.get("/v1/config/agents/typed")).json()
    assert stored["output_schema"]["schema"] == {"type": "object"}
