"""The MCP server (``mcp`` SDK low-level ``Server``) exposing the agents of an app as tools."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import mcp_types as types
from awaken_contract.runtime import AgentRuntimeApi
from mcp.server.lowlevel.server import Server

from awaken_server.protocols.mcp_http.agent_tools import agent_tools, call_agent

__all__ = ["SERVER_NAME", "build_mcp_server"]

SERVER_NAME = "awaken-mcp"


def _server_version() -> str:
    try:
        return version("awaken-server")
    except PackageNotFoundError:
        return "0.0.0"


def build_mcp_server(runtime_of: Callable[[], AgentRuntimeApi]) -> Server[Any]:
    """An MCP server whose tools are the agents of ``runtime_of()`` (read on every request,
    so a server whose runtime is swapped by the config API serves the new agents)."""

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=t.name, description=t.description, input_schema=t.input_schema)
                for t in agent_tools(runtime_of())
            ]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        logger = f"agent/{params.name}"

        async def log(level: str, text: str) -> None:
            # Logging is deprecated by the newest MCP revision but part of 2025-11-25, which
            # handshake clients negotiate; the SDK still gates it per protocol version.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await ctx.session.send_log_message(
                    level, text, logger=logger, related_request_id=ctx.request_id
                )

        result = await call_agent(runtime_of(), params.name, params.arguments or {}, log)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result.text)], is_error=result.is_error
        )

    async def set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        return types.EmptyResult()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Server(
            SERVER_NAME,
            version=_server_version(),
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_set_logging_level=set_level,
        )
