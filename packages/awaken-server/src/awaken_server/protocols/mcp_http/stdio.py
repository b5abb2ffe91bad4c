"""``awaken mcp``: the same MCP server (agents as tools) over stdio, newline-delimited
JSON-RPC on stdin/stdout, served by the ``mcp`` SDK's stdio transport."""

from __future__ import annotations

from awaken_contract.runtime import AgentRuntimeApi
from mcp.server.stdio import stdio_server

from awaken_server.protocols.cli_runtime import run_stdio_command
from awaken_server.protocols.mcp_http.server import build_mcp_server

__all__ = ["mcp_main", "serve_mcp_stdio"]


async def serve_mcp_stdio(runtime: AgentRuntimeApi) -> None:
    """Serve MCP on this process's stdin/stdout until stdin closes."""
    server = build_mcp_server(lambda: runtime)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def mcp_main(config_path: str | None, store_url: str | None) -> int:
    """Entry point of ``awaken mcp [--config FILE] [--store URL]``."""
    return run_stdio_command("mcp", config_path, store_url, serve_mcp_stdio)
