"""The registry manager against a real Streamable HTTP MCP server (MCPServer over uvicorn)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.tool import ToolCallContext
from awaken_contract.errors import ExecutionFailed
from awaken_contract.registry_spec import McpRestartPolicy
from awaken_ext_mcp import McpServerConnectionConfig, McpServerState, McpToolRegistryManager

Until = Callable[..., Awaitable[None]]

FAST = McpRestartPolicy(
    enabled=True, max_attempts=50, delay_ms=50, backoff_multiplier=1.5, max_delay_ms=300
)


async def call(manager: McpToolRegistryManager, tool_id: str, args: dict[str, Any]) -> Any:
    tool = manager.registry().get(tool_id)
    assert tool is not None, tool_id
    return await tool.execute(args, ToolCallContext("c", tool_id, RunIdentity.for_test()))


async def test_http_server_tools_and_calls(http_server: Any) -> None:
    config = McpServerConnectionConfig.http("remote", http_server.url, restart_policy=FAST)
    config = config.with_header("X-Awaken-Test", "yes")
    async with await McpToolRegistryManager.connect([config]) as manager:
        tool = manager.registry().get("mcp__remote__echo")
        assert tool is not None
        assert tool.descriptor().metadata["mcp.transport"] == "http"
        result = await call(manager, "mcp__remote__echo", {"text": "over http"})
        assert result.data == "over http" and result.metadata["mcp.server"] == "remote"
        picture = await call(manager, "mcp__remote__picture", {})
        assert picture.data["content"][1]["type"] == "image"
        with pytest.raises(ExecutionFailed, match="boom"):
            await call(manager, "mcp__remote__fail", {"msg": "boom"})


async def test_http_server_killed_mid_session_is_reconnected(
    http_server: Any, until: Until
) -> None:
    config = McpServerConnectionConfig.http("remote", http_server.url, restart_policy=FAST)
    manager = await McpToolRegistryManager.connect([config])
    try:
        first = int((await call(manager, "mcp__remote__pid", {})).data)
        http_server.kill()
        with pytest.raises(ExecutionFailed, match="mcp transport error"):
            await call(manager, "mcp__remote__echo", {"text": "lost"})
        assert manager.server_state("remote") is not McpServerState.CONNECTED
        # tools stay listed while the server is away
        assert "mcp__remote__echo" in manager.registry()
        http_server.start()  # same port, new process
        await until(lambda: manager.server_state("remote") is McpServerState.CONNECTED)
        second = int((await call(manager, "mcp__remote__pid", {})).data)
        assert second != first
        assert (await call(manager, "mcp__remote__echo", {"text": "back"})).data == "back"
    finally:
        await manager.close()


async def test_stdio_and_http_servers_side_by_side(
    http_server: Any, make_stdio_config: Callable[..., McpServerConnectionConfig]
) -> None:
    configs = [
        McpServerConnectionConfig.http("remote", http_server.url),
        make_stdio_config("local"),
    ]
    async with await McpToolRegistryManager.connect(configs) as manager:
        assert manager.servers() == [("local", "stdio"), ("remote", "http")]
        ids = manager.registry().ids()
        assert "mcp__local__echo" in ids and "mcp__remote__echo" in ids
        prompts = await manager.list_prompts()
        assert [(p.server, p.name) for p in prompts] == [("local", "greet"), ("remote", "greet")]


async def test_legacy_sse_server(sse_server: Any) -> None:
    config = McpServerConnectionConfig.sse("legacy", sse_server.url)
    async with await McpToolRegistryManager.connect([config]) as manager:
        assert manager.connect_errors() == {}
        tool = manager.registry().get("mcp__legacy__echo")
        assert tool is not None and tool.descriptor().metadata["mcp.transport"] == "sse"
        assert (await call(manager, "mcp__legacy__echo", {"text": "via sse"})).data == "via sse"
