"""MCP over Streamable HTTP end to end: the official ``mcp`` client against a live server.

The server is real (runtime, SQLite file, Starlette app, uvicorn on a loopback port); the
only mock is the scripted model. The client initialises a session, lists the agents as
tools, pings and calls a tool (receiving the run's logging notifications).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.message import Role, ToolCall
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.testing import text_step, tool_step
from awaken_server.app import AppState, ServerConfig, create_app
from awaken_server.protocols.mcp_http import mcp_routes
from awaken_stores import SqliteStore
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

LONG_PROMPT = "You research things. " * 20


class Weather(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("get_weather", "Get Weather", "Weather for a city")

    async def execute(self, args: dict[str, Any], ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("get_weather", {"forecast": "sunny"})


class Scripted(LlmExecutor):
    """Calls ``get_weather`` once, then answers with the tool result."""

    async def execute(self, request: InferenceRequest) -> StreamResult:
        last = request.messages[-1]
        if last.role is Role.TOOL:
            return text_step(f"All green: {last.text()}")
        return tool_step([ToolCall("call_1", "get_weather", {})])

    def name(self) -> str:
        return "scripted"


def _mcp_app(store: SqliteStore) -> Any:
    """The app with the MCP route: two agents (one with a long prompt) and ``get_weather``."""
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("researcher").with_model("m").with_system_prompt(LONG_PROMPT))
        .with_agent_spec(AgentSpec("writer").with_model("m"))
        .with_tool("get_weather", Weather())
        .with_provider("scripted", Scripted())
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_thread_run_store(store)
        .build()
    )
    state = AppState.build(runtime, store, config=ServerConfig())
    return create_app(state, extra_routes=mcp_routes())


@pytest.fixture(scope="module")
def mcp_url(tmp_path_factory: pytest.TempPathFactory, serve_app: Any) -> str:
    """The MCP endpoint of a live server with a fresh SQLite database."""
    server = serve_app(tmp_path_factory.mktemp("mcp") / "mcp.db", _mcp_app)
    return f"{server.base_url}/v1/mcp"


async def test_official_client_initialises_lists_and_calls(mcp_url: str) -> None:
    logs: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async with (
        streamable_http_client(mcp_url) as (read, write),
        ClientSession(read, write, logging_callback=on_log) as session,
    ):
        init = await session.initialize()
        assert init.server_info.name == "awaken-mcp"
        assert init.capabilities.tools is not None
        await session.send_ping()
        listed = await session.list_tools()
        tools = {t.name: t for t in listed.tools}
        assert sorted(tools) == ["researcher", "writer"]
        assert tools["writer"].description == "Awaken agent: writer"
        assert tools["researcher"].description == LONG_PROMPT.strip()[:200] + "\u2026"
        assert tools["writer"].input_schema["required"] == ["message"]

        result = await session.call_tool("writer", {"message": "status?"})
        assert result.is_error is False
        [content] = result.content
        assert isinstance(content, types.TextContent)
        assert content.text == 'All green: {"forecast":"sunny"}'

        missing = await session.call_tool("writer", {"message": ""})
        assert missing.is_error is True
        assert missing.content[0].text == "'message' parameter is required and must be non-empty"  # type: ignore[union-attr]

        unknown = await session.call_tool("nobody", {"message": "hi"})
        assert unknown.is_error is True

    data = [entry.data for entry in logs if entry.logger == "agent/writer"]
    assert data[0] == "starting agent run"
    assert "step 1" in data and "calling tool: get_weather" in data
    assert "tool get_weather completed: success" in data
    assert data[-1] == "completed"


async def test_session_header_and_origin_check(mcp_url: str) -> None:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=30) as http:
        response = await http.post(mcp_url, json=init, headers=headers)
        assert response.status_code == 200
        session_id = response.headers.get("mcp-session-id")
        assert session_id
        forbidden = await http.post(
            mcp_url, json=init, headers={**headers, "Origin": "https://evil.example"}
        )
        assert forbidden.status_code == 403
        assert forbidden.json()["error"]["code"] == -32600
        local = {**headers, "Origin": "http://localhost:5173"}
        assert (await http.post(mcp_url, json=init, headers=local)).status_code == 200
        unknown = await http.post(
            mcp_url,
            json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            headers={**headers, "mcp-session-id": "nope", "mcp-protocol-version": "2025-11-25"},
        )
        assert unknown.status_code == 404
        closed = await http.delete(
            mcp_url, headers={"mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
        )
        assert closed.status_code in (200, 204)


STDIO_CONFIG = """\
providers:
  - id: demo
    adapter: demo
models:
  - id: demo
    provider: demo
    model: demo-scripted
agents:
  - id: helper
    model: demo
    system_prompt: Helps with the weather.
"""


async def test_stdio_transport_with_the_official_client(tmp_path: Path) -> None:
    import shutil
    import sys

    from mcp.client.stdio import StdioServerParameters, stdio_client

    config = tmp_path / "mcp.yaml"
    config.write_text(STDIO_CONFIG)
    awaken = shutil.which("awaken")
    command, prefix = (awaken, []) if awaken else (sys.executable, ["-m", "awaken.cli"])
    params = StdioServerParameters(command=command, args=[*prefix, "mcp", "--config", str(config)])
    logs: list[Any] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.data)

    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, logging_callback=on_log) as session,
    ):
        init = await session.initialize()
        assert init.server_info.name == "awaken-mcp"
        listed = await session.list_tools()
        assert [(t.name, t.description) for t in listed.tools] == [
            ("helper", "Helps with the weather.")
        ]
        result = await session.call_tool("helper", {"message": "weather in Paris"})
        assert result.is_error is False
        assert "sunny in Paris" in result.content[0].text  # type: ignore[union-attr]
    assert logs[0] == "starting agent run" and logs[-1] == "completed"
