"""``McpToolRegistryManager``: connects MCP servers, keeps their tool catalogs fresh and
reconnects servers that went away.

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
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from types import TracebackType
from typing import Any

from awaken_contract.contract.tool import ToolCallContext, ToolResult
from awaken_contract.errors import ExecutionFailed
from awaken_contract.ids import now_ms

from awaken_ext_mcp.config import McpServerConnectionConfig, McpTransportKind
from awaken_ext_mcp.connection import McpCallFailure, McpConnection, McpFailureKind
from awaken_ext_mcp.convert import call_result_to_tool_result
from awaken_ext_mcp.errors import McpError
from awaken_ext_mcp.health import (
    FAILURE_THRESHOLD,
    McpPromptEntry,
    McpRefreshHealth,
    McpResourceEntry,
    McpServerState,
)
from awaken_ext_mcp.naming import mcp_tool_id
from awaken_ext_mcp.progress import ProgressForwarder
from awaken_ext_mcp.registry import McpToolRegistry
from awaken_ext_mcp.tool import McpTool

__all__ = ["McpToolRegistryManager"]

logger = logging.getLogger(__name__)

META_UI_RESOURCE_URI = "mcp.ui.resourceUri"
META_UI_CONTENT = "mcp.ui.content"
META_UI_MIME_TYPE = "mcp.ui.mimeType"


@dataclass(eq=False)
class _Server:
    config: McpServerConnectionConfig
    state: McpServerState = McpServerState.CONNECTING
    connection: McpConnection | None = None
    catalog: list[dict[str, Any]] = field(default_factory=list)
    discovery_failures: int = 0
    rpc_failures: int = 0
    attempts: int = 0
    next_attempt_at: float = 0.0
    last_attempt_at: int | None = None
    last_success_at: int | None = None
    last_error: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    revive_task: asyncio.Task[None] | None = None

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def live(self) -> McpConnection | None:
        conn = self.connection
        return conn if conn is not None and conn.alive else None

    def health(self) -> McpRefreshHealth:
        return McpRefreshHealth(
            state=self.state,
            consecutive_failures=max(self.discovery_failures, self.rpc_failures),
            reconnect_attempts=self.attempts,
            reconnecting=self.state is McpServerState.RECONNECTING,
            permanently_failed=self.state is McpServerState.PERMANENTLY_FAILED,
            last_attempt_at=self.last_attempt_at,
            last_success_at=self.last_success_at,
            last_error=self.last_error,
        )


def _ui_resource_uri(definition: dict[str, Any]) -> str | None:
    meta = definition.get("_meta")
    if isinstance(meta, dict):
        ui = meta.get("ui")
        if isinstance(ui, dict) and isinstance(ui.get("resourceUri"), str):
            return str(ui["resourceUri"])
    return None


class McpToolRegistryManager:
    """Owns the connections to a set of MCP servers and the registry of their tools.

    Create it with :meth:`connect`; close it with :meth:`close` (or ``async with``).
    """

    def __init__(self, configs: Sequence[McpServerConnectionConfig]) -> None:
        names: set[str] = set()
        for config in configs:
            if config.name in names:
                raise McpError(f"duplicate server name: {config.name}")
            names.add(config.name)
        self._servers: dict[str, _Server] = {
            c.name: _Server(c) for c in sorted(configs, key=lambda c: c.name)
        }
        self._tools: dict[str, McpTool] = {}
        self._version = 0
        self._closed = False
        self._refresh_task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ construction
    @classmethod
    async def connect(
        cls, configs: Iterable[McpServerConnectionConfig | dict[str, Any]]
    ) -> McpToolRegistryManager:
        """Connect every server in parallel and list its tools.

        A server that cannot be reached does not fail the others: it is left ``disconnected``
        with the error in :meth:`connect_errors` / :meth:`server_health` and retried in the
        background according to its ``restart_policy``. Invalid configurations (blank or
        duplicate names) raise :class:`McpError`; so does a tool-id collision.
        """
        parsed = [
            c if isinstance(c, McpServerConnectionConfig) else McpServerConnectionConfig(**c)
            for c in configs
        ]
        manager = cls(parsed)
        await asyncio.gather(*(manager._initial_connect(s) for s in manager._servers.values()))
        try:
            manager._rebuild()
        except McpError:
            await manager.close()
            raise
        return manager

    async def _initial_connect(self, server: _Server) -> None:
        async with server.lock:
            try:
                await self._open(server)
            except McpError as exc:
                logger.warning("mcp server %s failed to connect: %s", server.name, exc)
                self._after_failed_attempt(server, str(exc))
        if server.state is McpServerState.DISCONNECTED:
            self._schedule_revive(server)

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

    def servers(self) -> list[tuple[str, McpTransportKind]]:
        """``(name, transport)`` of every configured server, sorted by name."""
        return [(s.name, s.config.transport) for s in self._servers.values()]

    def _server(self, name: str) -> _Server:
        server = self._servers.get(name)
        if server is None:
            raise McpError(f"unknown mcp server: {name}")
        return server

    def server_health(self, name: str) -> McpRefreshHealth:
        """Health of one server (``McpError`` for an unknown name)."""
        return self._server(name).health()

    def server_state(self, name: str) -> McpServerState:
        """Lifecycle state of one server."""
        return self._server(name).state

    def connect_errors(self) -> dict[str, str]:
        """Servers that are not connected, with their last error."""
        return {
            s.name: s.last_error or s.state.value
            for s in self._servers.values()
            if s.state is not McpServerState.CONNECTED
        }

    # ------------------------------------------------------------------ snapshot
    def _rebuild(self) -> None:
        tools: dict[str, McpTool] = {}
        for server in self._servers.values():
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

    # ------------------------------------------------------------------ connecting
    async def _open(self, server: _Server) -> None:
        """Open a fresh connection and list its tools (lock held)."""
        server.last_attempt_at = now_ms()
        connection = McpConnection(server.config)
        await connection.open()
        try:
            catalog = await connection.list_tools()
        except McpError:
            await connection.close()
            raise
        server.connection = connection
        server.catalog = sorted(catalog, key=lambda d: str(d.get("name", "")))
        server.state = McpServerState.CONNECTED
        server.attempts = 0
        server.discovery_failures = 0
        server.rpc_failures = 0
        server.last_success_at = now_ms()
        server.last_error = None

    def _after_failed_attempt(self, server: _Server, error: str) -> None:
        server.attempts += 1
        server.last_error = error
        if server.attempts >= server.config.max_reconnect_attempts:
            server.state = McpServerState.PERMANENTLY_FAILED
            server.catalog = []
            server.connection = None
        else:
            server.state = McpServerState.DISCONNECTED
            server.next_attempt_at = time.monotonic() + server.config.reconnect_delay(
                server.attempts - 1
            )
            self._schedule_revive(server)

    async def _reconnect_locked(self, server: _Server) -> None:
        """Close the old session and open a new one (lock held); raises ``McpError``."""
        if server.state in (McpServerState.DISABLED, McpServerState.DISABLING):
            raise McpError(f"server '{server.name}' is disabled")
        if server.state is McpServerState.PERMANENTLY_FAILED:
            raise McpError(f"server '{server.name}' is permanently failed")
        server.state = McpServerState.RECONNECTING
        old, server.connection = server.connection, None
        if old is not None:
            await old.close()
        try:
            await self._open(server)
        except McpError as exc:
            self._after_failed_attempt(server, str(exc))
            if server.state is McpServerState.PERMANENTLY_FAILED:
                raise McpError(f"server '{server.name}' is permanently failed") from exc
            raise

    def _mark_disconnected(self, server: _Server, error: str, *, immediate: bool) -> None:
        server.state = McpServerState.DISCONNECTED
        server.last_error = error
        if immediate:
            server.next_attempt_at = 0.0
        self._schedule_revive(server)

    def _schedule_revive(self, server: _Server) -> None:
        if self._closed or not server.config.restart_policy.enabled:
            return
        if server.revive_task is not None and not server.revive_task.done():
            return
        server.revive_task = asyncio.get_running_loop().create_task(
            self._revive(server), name=f"mcp-revive:{server.name}"
        )

    async def _revive(self, server: _Server) -> None:
        """Reconnect a disconnected server, honouring the back-off, until it is connected,
        disabled or permanently failed."""
        waiting = (McpServerState.DISCONNECTED, McpServerState.RECONNECTING)
        while not self._closed and server.state in waiting:
            delay = server.next_attempt_at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            async with server.lock:
                if self._closed or server.state is not McpServerState.DISCONNECTED:
                    continue
                with contextlib.suppress(McpError):
                    await self._reconnect_locked(server)
            self._rebuild_logged()

    async def _live_connection(self, server: _Server) -> McpConnection:
        """The server's live connection, reconnecting once when it is dead and a reconnect is
        due; raises ``ExecutionFailed`` when there is none."""
        if server.state in (McpServerState.DISABLED, McpServerState.DISABLING):
            raise ExecutionFailed(f"server '{server.name}' is disabled")
        if server.state is McpServerState.PERMANENTLY_FAILED:
            raise ExecutionFailed(f"server '{server.name}' is permanently failed")
        live = server.live
        if live is not None:
            return live
        if server.config.restart_policy.enabled:
            async with server.lock:
                if server.live is None and time.monotonic() >= server.next_attempt_at:
                    with contextlib.suppress(McpError):
                        await self._reconnect_locked(server)
                    self._rebuild_logged()
            live = server.live
            if live is not None:
                return live
            state: McpServerState = server.state
            if state is McpServerState.PERMANENTLY_FAILED:
                raise ExecutionFailed(f"server '{server.name}' is permanently failed")
        raise ExecutionFailed("mcp transport error: connection closed")

    def _record_failure(self, server: _Server, failure: McpCallFailure, *, rpc: bool) -> None:
        """Count a failed request; close and reconnect when the connection is gone or the
        failure budget is spent."""
        if not failure.kind.tracked:
            return
        server.last_error = failure.message
        if failure.kind is McpFailureKind.CLOSED:
            self._mark_disconnected(server, failure.message, immediate=True)
            return
        if rpc:
            server.rpc_failures += 1
            spent = server.rpc_failures >= FAILURE_THRESHOLD
        else:
            server.discovery_failures += 1
            spent = server.discovery_failures >= FAILURE_THRESHOLD
        if spent and server.connection is not None:
            server.connection.mark_dead(failure.message)
            self._mark_disconnected(server, failure.message, immediate=True)

    # ------------------------------------------------------------------ tool calls
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
        server = self._servers.get(server_name)
        if server is None:
            raise ExecutionFailed(f"unknown mcp server: {server_name}")
        definition = next((d for d in server.catalog if d.get("name") == tool_name), None)
        tool_id = mcp_tool_id(server_name, tool_name)
        result: dict[str, Any] | None = None
        for attempt in range(2):
            connection = await self._live_connection(server)
            forwarder = ProgressForwarder(ctx) if ctx is not None else None
            try:
                result = await connection.call_tool(tool_name, arguments, forwarder)
            except McpCallFailure as failure:
                self._record_failure(server, failure, rpc=True)
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

    async def _enrich_ui(self, server: _Server, uri: str, result: ToolResult) -> None:
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

    # ------------------------------------------------------------------ refresh
    async def refresh(self) -> None:
        """Re-list every connected server's tools (added and removed tools are reflected),
        reconnect disconnected servers whose back-off elapsed, and rebuild the snapshot.

        Raises :class:`McpError` on a tool-id collision (the snapshot is then unchanged).
        """
        await asyncio.gather(*(self._refresh_server(s) for s in self._servers.values()))
        self._rebuild()

    async def _refresh_server(self, server: _Server) -> None:
        if server.lock.locked():
            return
        async with server.lock:
            if server.state is McpServerState.DISCONNECTED:
                if (
                    server.config.restart_policy.enabled
                    and time.monotonic() >= server.next_attempt_at
                ):
                    with contextlib.suppress(McpError):
                        await self._reconnect_locked(server)
                return
            if server.state is not McpServerState.CONNECTED:
                return
            connection = server.live
            server.last_attempt_at = now_ms()
            if connection is None:
                self._mark_disconnected(
                    server, server.last_error or "connection closed", immediate=True
                )
                return
            try:
                catalog = await connection.list_tools()
            except McpCallFailure as failure:
                self._record_failure(server, failure, rpc=False)
                return
            server.catalog = sorted(catalog, key=lambda d: str(d.get("name", "")))
            server.discovery_failures = 0
            server.last_success_at = now_ms()

    def start_periodic_refresh(self, interval: float | timedelta) -> None:
        """Call :meth:`refresh` every ``interval`` (seconds or timedelta) in the background."""
        seconds = interval.total_seconds() if isinstance(interval, timedelta) else float(interval)
        if not seconds > 0:
            raise McpError("periodic refresh interval must be > 0")
        if self.periodic_refresh_running():
            raise McpError("periodic refresh loop is already running")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise McpError("event loop unavailable") from None
        self._refresh_task = loop.create_task(self._refresh_loop(seconds), name="mcp-refresh")

    async def _refresh_loop(self, seconds: float) -> None:
        while not self._closed:
            await asyncio.sleep(seconds)
            try:
                await self.refresh()
            except McpError as exc:
                logger.warning("mcp periodic refresh: %s", exc)
            except Exception:
                logger.exception("mcp periodic refresh failed")

    async def stop_periodic_refresh(self) -> None:
        """Stop the periodic refresh loop (no-op when not running)."""
        task, self._refresh_task = self._refresh_task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def periodic_refresh_running(self) -> bool:
        """Whether the periodic refresh loop runs."""
        return self._refresh_task is not None and not self._refresh_task.done()

    # ------------------------------------------------------------------ lifecycle operations
    async def reconnect(self, name: str) -> None:
        """Reconnect one server now and rebuild the snapshot (``McpError`` on failure)."""
        server = self._server(name)
        async with server.lock:
            try:
                await self._reconnect_locked(server)
            finally:
                self._rebuild_logged()
        if server.state is McpServerState.DISCONNECTED:
            self._schedule_revive(server)

    async def toggle(self, name: str, enabled: bool) -> None:
        """Disable a server (close it, drop its tools) or re-enable it (reset its health,
        reconnect, publish its tools)."""
        server = self._server(name)
        async with server.lock:
            if not enabled:
                server.state = McpServerState.DISABLING
                old, server.connection = server.connection, None
                if old is not None:
                    await old.close()
                server.state = McpServerState.DISABLED
                server.catalog = []
                server.discovery_failures = server.rpc_failures = server.attempts = 0
                self._rebuild_logged()
                return
            server.attempts = server.discovery_failures = server.rpc_failures = 0
            server.last_error = None
            server.next_attempt_at = 0.0
            server.state = McpServerState.DISCONNECTED
            try:
                await self._reconnect_locked(server)
            finally:
                self._rebuild_logged()
                if server.state is McpServerState.DISCONNECTED:
                    self._schedule_revive(server)

    # ------------------------------------------------------------------ prompts / resources
    def _connected(self) -> list[tuple[_Server, McpConnection]]:
        return [(s, c) for s in self._servers.values() if (c := s.live) is not None]

    async def _from_every(
        self, capability: str, fetch: Callable[[McpConnection], Awaitable[list[dict[str, Any]]]]
    ) -> list[tuple[str, dict[str, Any]]]:
        """``(server, item)`` for what ``fetch`` lists on every connected server supporting
        ``capability``; a server whose call fails is recorded and skipped."""
        found: list[tuple[str, dict[str, Any]]] = []
        for server, connection in self._connected():
            if not connection.supports(capability):
                continue
            try:
                items = await fetch(connection)
            except McpCallFailure as failure:
                self._record_failure(server, failure, rpc=True)
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

    async def _call_capable(
        self,
        name: str,
        capability: str,
        call: Callable[[McpConnection], Awaitable[dict[str, Any]]],
    ) -> dict[str, Any]:
        """``call`` on server ``name``, which must be connected and support ``capability``;
        a failed call is recorded and re-raised."""
        server = self._server(name)
        connection = server.live
        if connection is None:
            raise McpError("mcp transport error: connection closed")
        if not connection.supports(capability):
            raise McpError(f"mcp server '{name}' does not support {capability}")
        try:
            return await call(connection)
        except McpCallFailure as failure:
            self._record_failure(server, failure, rpc=True)
            raise

    async def get_prompt(
        self, server_name: str, name: str, arguments: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """``prompts/get`` on one server; the raw result JSON."""
        return await self._call_capable(
            server_name, "prompts", lambda c: c.get_prompt(name, arguments)
        )

    async def read_resource(self, server_name: str, uri: str) -> dict[str, Any]:
        """``resources/read`` on one server; the raw result JSON."""
        return await self._call_capable(server_name, "resources", lambda c: c.read_resource(uri))

    # ------------------------------------------------------------------ shutdown
    async def close(self) -> None:
        """Stop refreshing and reconnecting, close every session (stdio children exit)."""
        self._closed = True
        await self.stop_periodic_refresh()
        revivers = [s.revive_task for s in self._servers.values() if s.revive_task is not None]
        for task in revivers:
            task.cancel()
        for task in revivers:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        connections = [s.connection for s in self._servers.values() if s.connection is not None]
        for server in self._servers.values():
            server.connection = None
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)

    async def __aenter__(self) -> McpToolRegistryManager:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
