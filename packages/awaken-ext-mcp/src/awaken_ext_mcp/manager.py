"""``McpToolRegistryManager``: connects MCP servers, keeps their tool catalogs fresh and
reconnects servers that went away.

The manager composes three parts: the connections (:mod:`awaken_ext_mcp._pool`: lifecycle,
back-off, failure budgets), health and refresh (:mod:`awaken_ext_mcp._refresh`) and calls
(:mod:`awaken_ext_mcp._calls`: tools, prompts, resources); it owns the tool snapshot.

Lifecycle of a server: ``connecting`` → ``connected``; a request that finds the connection closed
(or :data:`FAILURE_THRESHOLD` consecutive timeouts / protocol / transport failures) makes it
``disconnected`` and triggers a reconnect — immediately the first time, then spaced by the
server's ``restart_policy`` back-off. After ``max_attempts`` failed reconnects the server is
``permanently_failed`` and its tools leave the registry. ``toggle(server, False)`` disables a
server; ``toggle(server, True)`` revives it.

A disconnected server keeps its last catalog published, so its tools stay listed; calls fail
with ``mcp transport error: connection closed`` until the reconnect succeeds.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from datetime import timedelta
from types import TracebackType
from typing import Any

from awaken_contract.contract.tool import ToolCallContext, ToolResult
from awaken_contract.registry_spec import McpServerSpec, McpTransport

from awaken_ext_mcp._calls import Calls
from awaken_ext_mcp._pool import ServerPool
from awaken_ext_mcp._refresh import Refresher
from awaken_ext_mcp.config import McpServerConnectionConfig
from awaken_ext_mcp.errors import McpError
from awaken_ext_mcp.health import (
    McpPromptEntry,
    McpRefreshHealth,
    McpResourceEntry,
    McpServerState,
)
from awaken_ext_mcp.registry import McpToolRegistry
from awaken_ext_mcp.tool import McpTool

__all__ = ["McpToolRegistryManager"]

logger = logging.getLogger(__name__)


def _as_config(
    config: McpServerConnectionConfig | McpServerSpec | dict[str, Any],
) -> McpServerConnectionConfig:
    if isinstance(config, McpServerConnectionConfig):
        return config
    if isinstance(config, McpServerSpec):
        return McpServerConnectionConfig.from_spec(config)
    return McpServerConnectionConfig(**config)


class McpToolRegistryManager:
    """Owns the connections to a set of MCP servers and the registry of their tools.

    Create it with :meth:`connect`; close it with :meth:`close` (or ``async with``).
    """

    def __init__(self, configs: Sequence[McpServerConnectionConfig]) -> None:
        self._pool = ServerPool(configs, on_change=self._rebuild_logged)
        self._refresher = Refresher(self._pool, self.refresh)
        self._calls = Calls(self._pool)
        self._tools: dict[str, McpTool] = {}
        self._version = 0

    # ------------------------------------------------------------------ construction
    @classmethod
    async def connect(
        cls, configs: Iterable[McpServerConnectionConfig | McpServerSpec | dict[str, Any]]
    ) -> McpToolRegistryManager:
        """Connect every server in parallel and list its tools.

        A server that cannot be reached does not fail the others: it is left ``disconnected``
        with the error in :meth:`connect_errors` / :meth:`server_health` and retried in the
        background according to its ``restart_policy``. Invalid configurations (blank or
        duplicate names) raise :class:`McpError`; so does a tool-id collision. A managed
        ``McpServerSpec`` keeps its own ``restart_policy``.
        """
        manager = cls([_as_config(c) for c in configs])
        pool = manager._pool
        await asyncio.gather(*(pool.initial_connect(s) for s in pool.slots.values()))
        try:
            manager._rebuild()
        except McpError:
            await manager.close()
            raise
        return manager

    # ------------------------------------------------------------------ read side
    def registry(self) -> McpToolRegistry:
        """A read view of the current tools (reflects later refreshes)."""
        return McpToolRegistry(self)

    @property
    def version(self) -> int:
        """Snapshot version: 1 after connect, +1 on every rebuild."""
        return self._version

    def tools(self) -> dict[str, McpTool]:
        """The current tools by id (a copy)."""
        return dict(self._tools)

    def servers(self) -> list[tuple[str, McpTransport]]:
        """``(name, transport)`` of every configured server, sorted by name."""
        return [(s.name, s.config.transport) for s in self._pool.slots.values()]

    def server_health(self, name: str) -> McpRefreshHealth:
        """Health of one server (``McpError`` for an unknown name)."""
        return self._pool.get(name).health()

    def server_state(self, name: str) -> McpServerState:
        """Lifecycle state of one server."""
        return self._pool.get(name).state

    def connect_errors(self) -> dict[str, str]:
        """Servers that are not connected, with their last error."""
        return {
            s.name: s.last_error or s.state.value
            for s in self._pool.slots.values()
            if s.state is not McpServerState.CONNECTED
        }

    # ------------------------------------------------------------------ snapshot
    def _rebuild(self) -> None:
        tools: dict[str, McpTool] = {}
        for server in self._pool.slots.values():
            if not server.state.publishes_tools:
                continue
            for definition in server.catalog:
                try:
                    tool = McpTool(self, server.name, definition, server.config.transport)
                except McpError as exc:
                    logger.warning("mcp server %s: skipping tool: %s", server.name, exc)
                    continue
                if tool.id in tools:
                    raise McpError(f"tool id already registered: {tool.id}")
                tools[tool.id] = tool
        self._tools = tools
        self._version += 1

    def _rebuild_logged(self) -> None:
        try:
            self._rebuild()
        except McpError as exc:
            logger.warning("mcp registry not rebuilt: %s", exc)

    # ------------------------------------------------------------------ calls
    async def call_tool(
        self,
        server_name: str,
        tool_name: str,
        arguments: dict[str, Any],
        ctx: ToolCallContext | None = None,
    ) -> ToolResult:
        """Call ``tool_name`` on ``server_name``; the converted result.

        A call that finds the connection closed reconnects once and is retried on the new
        session. Failures raise :class:`ToolError` subclasses (``ExecutionFailed``,
        ``ToolNotFound``), which the runtime turns into error results the model sees.
        """
        return await self._calls.call_tool(server_name, tool_name, arguments, ctx)

    async def list_prompts(self) -> list[McpPromptEntry]:
        """Prompts of every connected server supporting them, sorted by (server, name)."""
        return await self._calls.list_prompts()

    async def list_resources(self) -> list[McpResourceEntry]:
        """Resources of every connected server supporting them, sorted by (server, uri)."""
        return await self._calls.list_resources()

    async def get_prompt(
        self, server_name: str, name: str, arguments: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """``prompts/get`` on one server; the raw result JSON."""
        return await self._calls.call_capable(
            server_name, "prompts", lambda c: c.get_prompt(name, arguments)
        )

    async def read_resource(self, server_name: str, uri: str) -> dict[str, Any]:
        """``resources/read`` on one server; the raw result JSON."""
        return await self._calls.call_capable(
            server_name, "resources", lambda c: c.read_resource(uri)
        )

    # ------------------------------------------------------------------ refresh
    async def refresh(self) -> None:
        """Re-list every connected server's tools (added and removed tools are reflected),
        reconnect disconnected servers whose back-off elapsed, and rebuild the snapshot.

        Raises :class:`McpError` on a tool-id collision (the snapshot is then unchanged).
        """
        await self._refresher.refresh_servers()
        self._rebuild()

    def start_periodic_refresh(self, interval: float | timedelta) -> None:
        """Call :meth:`refresh` every ``interval`` (seconds or timedelta) in the background."""
        self._refresher.start(interval)

    async def stop_periodic_refresh(self) -> None:
        """Stop the periodic refresh loop (no-op when not running)."""
        await self._refresher.stop()

    def periodic_refresh_running(self) -> bool:
        """Whether the periodic refresh loop runs."""
        return self._refresher.running()

    # ------------------------------------------------------------------ lifecycle operations
    async def reconnect(self, name: str) -> None:
        """Reconnect one server now and rebuild the snapshot (``McpError`` on failure)."""
        server = self._pool.get(name)
        async with server.lock:
            try:
                await self._pool.reconnect_locked(server)
            finally:
                self._rebuild_logged()
        if server.state is McpServerState.DISCONNECTED:
            self._pool.schedule_revive(server)

    async def toggle(self, name: str, enabled: bool) -> None:
        """Disable a server (close it, drop its tools) or re-enable it (reset its health,
        reconnect, publish its tools)."""
        server = self._pool.get(name)
        async with server.lock:
            if not enabled:
                await self._pool.disable(server)
                self._rebuild_logged()
                return
            try:
                await self._pool.enable(server)
            finally:
                self._rebuild_logged()
                if server.state is McpServerState.DISCONNECTED:
                    self._pool.schedule_revive(server)

    # ------------------------------------------------------------------ shutdown
    async def close(self) -> None:
        """Stop refreshing and reconnecting, close every session (stdio children exit)."""
        self._pool.closed = True
        await self._refresher.stop()
        await self._pool.close()

    async def __aenter__(self) -> McpToolRegistryManager:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
