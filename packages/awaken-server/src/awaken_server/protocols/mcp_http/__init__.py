"""MCP: the server's agents as MCP tools, over Streamable HTTP at ``/v1/mcp`` and over stdio
(``awaken mcp``).

Mount with ``create_app(state, extra_routes=mcp_routes())``.
"""

from awaken_server.protocols.mcp_http.agent_tools import agent_tools, call_agent, tool_description
from awaken_server.protocols.mcp_http.routes import McpHttp, mcp_routes, origin_allowed
from awaken_server.protocols.mcp_http.server import SERVER_NAME, build_mcp_server
from awaken_server.protocols.mcp_http.stdio import mcp_main, serve_mcp_stdio

__all__ = [
    "SERVER_NAME",
    "McpHttp",
    "agent_tools",
    "build_mcp_server",
    "call_agent",
    "mcp_main",
    "mcp_routes",
    "origin_allowed",
    "serve_mcp_stdio",
    "tool_description",
]
