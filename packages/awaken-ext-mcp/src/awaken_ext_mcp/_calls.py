"""Calls of the MCP manager: tool calls (with one reconnect-and-retry and MCP-UI enrichment),
prompts and resources."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from awaken_contract.contract.tool import ToolCallContext, ToolResult
from awaken_contract.errors import ExecutionFailed

from awaken_ext_mcp._pool import ServerPool, ServerSlot
from awaken_ext_mcp.connection import McpCallFailure, McpConnection, McpFailureKind
from awaken_ext_mcp.convert import call_result_to_tool_result
from awaken_ext_mcp.errors import McpError
from awaken_ext_mcp.health import McpPromptEntry, McpResourceEntry
from awaken_ext_mcp.naming import mcp_tool_id
from awaken_ext_mcp.progress import ProgressForwarder

__all__ = [
    "META_UI_CONTENT",
    "META_UI_MIME_TYPE",
    "META_UI_RESOURCE_URI",
    "Calls",
]

META_UI_RESOURCE_URI = "mcp.ui.resourceUri"
META_UI_CONTENT = "mcp.ui.content"
META_UI_MIME_TYPE = "mcp.ui.mimeType"


def _ui_resource_uri(definition: dict[str, Any]) -> str | None:
    meta = definition.get("_meta")
    if isinstance(meta, dict):
        ui = meta.get("ui")
        if isinstance(ui, dict) and isinstance(ui.get("resourceUri"), str):
            return str(ui["resourceUri"])
    return None


class Calls:
    """Requests to the servers of a :class:`ServerPool`; failures feed its health counters."""

    def __init__(self, pool: ServerPool) -> None:
        self._pool = pool

    async def call_tool(
        self,
        server_name: str,
        tool_name: str,
        arguments: dict[str, Any],
        ctx: ToolCallContext | None = None,
    ) -> ToolResult:
        """Call ``tool_name`` on ``server_name``; see ``McpToolRegistryManager.call_tool``."""
        server = self._pool.slots.get(server_name)
        if server is None:
            raise ExecutionFailed(f"unknown mcp server: {server_name}")
        definition = next((d for d in server.catalog if d.get("name") == tool_name), None)
        tool_id = mcp_tool_id(server_name, tool_name)
        result: dict[str, Any] | None = None
        for attempt in range(2):
            connection = await self._pool.live_connection(server)
            forwarder = ProgressForwarder(ctx) if ctx is not None else None
            try:
                result = await connection.call_tool(tool_name, arguments, forwarder)
            except McpCallFailure as failure:
                self._pool.record_failure(server, failure, rpc=True)
                if failure.kind is McpFailureKind.CLOSED and attempt == 0:
                    continue
                raise ExecutionFailed(failure.message) from None
            server.rpc_failures = 0
            if forwarder is not None:
                await forwarder.flush()
            break
        assert result is not None
        tool_result = call_result_to_tool_result(
            result, tool_id=tool_id, server=server_name, tool=tool_name
        )
        uri = _ui_resource_uri(definition) if definition is not None else None
        if uri is not None:
            await self._enrich_ui(server, uri, tool_result)
        return tool_result

    async def _enrich_ui(self, server: ServerSlot, uri: str, result: ToolResult) -> None:
        live = server.live
        if live is None:
            return
        try:
            read = await live.read_resource(uri)
        except McpError:
            return
        contents = read.get("contents") or []
        first = contents[0] if contents and isinstance(contents[0], dict) else None
        if first is None or not isinstance(first.get("text"), str):
            return
        result.with_metadata(META_UI_RESOURCE_URI, uri)
        result.with_metadata(META_UI_CONTENT, first["text"])
        result.with_metadata(META_UI_MIME_TYPE, first.get("mimeType") or "text/html")

    # ------------------------------------------------------------------ prompts / resources
    async def _from_every(
        self, capability: str, fetch: Callable[[McpConnection], Awaitable[list[dict[str, Any]]]]
    ) -> list[tuple[str, dict[str, Any]]]:
        """``(server, item)`` for what ``fetch`` lists on every connected server supporting
        ``capability``; a server whose call fails is recorded and skipped."""
        found: list[tuple[str, dict[str, Any]]] = []
        for server, connection in self._pool.connected():
            if not connection.supports(capability):
                continue
            try:
                items = await fetch(connection)
            except McpCallFailure as failure:
                self._pool.record_failure(server, failure, rpc=True)
                continue
            found.extend((server.name, item) for item in items)
        return found

    async def list_prompts(self) -> list[McpPromptEntry]:
        """Prompts of every connected server supporting them, sorted by (server, name)."""
        found = await self._from_every("prompts", lambda c: c.list_prompts())
        entries = [McpPromptEntry(server, prompt) for server, prompt in found]
        return sorted(entries, key=lambda e: (e.server, e.name))

    async def list_resources(self) -> list[McpResourceEntry]:
        """Resources of every connected server supporting them, sorted by (server, uri)."""
        found = await self._from_every("resources", lambda c: c.list_resources())
        entries = [McpResourceEntry(server, resource) for server, resource in found]
        return sorted(entries, key=lambda e: (e.server, e.uri))

    async def call_capable(
        self,
        name: str,
        capability: str,
        call: Callable[[McpConnection], Awaitable[dict[str, Any]]],
    ) -> dict[str, Any]:
        """``call`` on server ``name``, which must be connected and support ``capability``;
        a failed call is recorded and re-raised."""
        server = self._pool.get(name)
        connection = server.live
        if connection is None:
            raise McpError("mcp transport error: connection closed")
        if not connection.supports(capability):
            raise McpError(f"mcp server '{name}' does not support {capability}")
        try:
            return await call(connection)
        except McpCallFailure as failure:
            self._pool.record_failure(server, failure, rpc=True)
            raise
