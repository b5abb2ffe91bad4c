"""``McpTool``: an Awaken :class:`Tool` that forwards calls to one tool of an MCP server."""

from __future__ import annotations

from typing import Any, Protocol

from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.errors import InvalidArguments
from awaken_contract.registry_spec import McpTransport

from awaken_ext_mcp.convert import META_SERVER, META_TOOL, META_TRANSPORT
from awaken_ext_mcp.naming import mcp_tool_id

__all__ = ["McpTool", "ToolCaller", "descriptor_from_definition"]


class ToolCaller(Protocol):
    """What an :class:`McpTool` calls through (the ``McpToolRegistryManager``)."""

    async def call_tool(
        self,
        server_name: str,
        tool_name: str,
        arguments: dict[str, Any],
        ctx: ToolCallContext | None = None,
    ) -> ToolResult:
        """Call ``tool_name`` on ``server_name``; the converted result."""
        ...


def descriptor_from_definition(
    server: str, definition: dict[str, Any], transport: McpTransport
) -> ToolDescriptor:
    """Build the descriptor of an MCP tool definition (``name``, ``title``, ``description``,
    ``inputSchema``, ``group``)."""
    raw_name = str(definition["name"])
    schema = definition.get("inputSchema")
    descriptor = ToolDescriptor(
        mcp_tool_id(server, raw_name),
        str(definition.get("title") or raw_name),
        str(definition.get("description") or f"MCP tool {raw_name}"),
    ).with_parameters(schema if isinstance(schema, dict) else {"type": "object"})
    descriptor.with_metadata(META_SERVER, server).with_metadata(META_TOOL, raw_name)
    descriptor.with_metadata(META_TRANSPORT, transport.value)
    group = definition.get("group")
    if isinstance(group, str) and group:
        descriptor.with_category(group)
    return descriptor


class McpTool(Tool):
    """One MCP tool. Calls go through the manager, so they use the server's current session
    (after a reconnect too)."""

    def __init__(
        self,
        manager: ToolCaller,
        server: str,
        definition: dict[str, Any],
        transport: McpTransport,
    ) -> None:
        self._manager = manager
        self.server = server
        self.tool_name = str(definition["name"])
        self.definition = definition
        self._descriptor = descriptor_from_definition(server, definition, transport)

    @property
    def id(self) -> str:
        """The tool id ``mcp__{server}__{tool}``."""
        return self._descriptor.id

    def descriptor(self) -> ToolDescriptor:
        """The descriptor built from the MCP definition."""
        return self._descriptor

    def validate_args(self, args: Any) -> None:
        """Arguments must be a JSON object (or absent)."""
        if args is not None and not isinstance(args, dict):
            raise InvalidArguments(f"expected a JSON object, got {type(args).__name__}")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        """Call the tool on its server; progress notifications become tool progress."""
        self.validate_args(args)
        return await self._manager.call_tool(self.server, self.tool_name, dict(args or {}), ctx)

    def __repr__(self) -> str:
        return f"McpTool({self.id!r})"
