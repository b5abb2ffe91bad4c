"""MCP over Streamable HTTP: the server's agents as MCP tools at ``/v1/mcp``.

Mount with ``create_app(state, extra_routes=mcp_routes())``.
"""

from awaken_server.protocols.mcp_http.agent_tools import agent_tools, call_agent, tool_description
from awaken_server.protocols.mcp_http.routes import McpHttp, mcp_routes, origin_allowed
from awaken_server.protocols.mcp_http.server import SERVER_NAME, build_mcp_server

__all__ = [
    "SERVER_NAME",
    "McpHttp",
    "agent_tools",
    "build_mcp_server",
    "call_agent",
    "mcp_routes",
    "origin_allowed",
    "tool_description",
]
