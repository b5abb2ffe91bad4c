"""Connections of the MCP manager: one slot per server, opening, reconnecting with back-off,
failure budgets and shutdown.

A slot goes ``connecting`` → ``connected``; a request that finds the connection closed (or
:data:`FAILURE_THRESHOLD` consecutive tracked failures) makes it ``disconnected`` and schedules a
reconnect — immediately the first time, then spaced by the server's ``restart_policy`` back-off.
After ``max_attempts`` failed reconnects it is ``permanently_failed`` and its catalog is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from awaken_contract.errors import ExecutionFailed
from awaken_contract.ids import now_ms

from awaken_ext_mcp.config import McpServerConnectionConfig
from awaken_ext_mcp.connection import McpCallFailure, McpConnection, McpFailureKind
from awaken_ext_mcp.errors import McpError
from awaken_ext_mcp.health import FAILURE_THRESHOLD, McpRefreshHealth, McpServerState

__all__ = ["ServerPool", "ServerSlot"]

logger = logging.getLogger("awaken_ext_mcp.manager")


@dataclass(eq=False)
class ServerSlot:
    """One configured server: its connection, catalog and health counters."""

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
        """The server name."""
        return self.config.name

    @property
    def live(self) -> McpConnection | None:
        """The connection when it is open and alive."""
        conn = self.connection
        return conn if conn is not None and conn.alive else None

    @property
    def reconnect_due(self) -> bool:
        """Automatic reconnects are on and the back-off has elapsed."""
        return self.config.restart_policy.enabled and time.monotonic() >= self.next_attempt_at

    def set_catalog(self, catalog: list[dict[str, Any]]) -> None:
        """Publish a freshly listed catalog (sorted by tool name)."""
        self.catalog = sorted(catalog, key=lambda d: str(d.get("name", "")))

    def health(self) -> McpRefreshHealth:
        """The server's health record."""
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


class ServerPool:
    """The slots of every configured server and their connection lifecycle.

    ``on_change`` is called after a background reconnect so the owner can rebuild its tool
    snapshot.
    """

    def __init__(
        self, configs: Sequence[McpServerConnectionConfig], on_change: Callable[[], None]
    ) -> None:
        names: set[str] = set()
        for config in configs:
            if config.name in names:
                raise McpError(f"duplicate server name: {config.name}")
            names.add(config.name)
        self.slots: dict[str, ServerSlot] = {
            c.name: ServerSlot(c) for c in sorted(configs, key=lambda c: c.name)
        }
        self.closed = False
        self._on_change = on_change

    def get(self, name: str) -> ServerSlot:
        """The slot of server ``name`` (``McpError`` for an unknown name)."""
        server = self.slots.get(name)
        if server is None:
            raise McpError(f"unknown mcp server: {name}")
        return server

    def connected(self) -> list[tuple[ServerSlot, McpConnection]]:
        """Every server with a live connection."""
        return [(s, c) for s in self.slots.values() if (c := s.live) is not None]

    # ------------------------------------------------------------------ connecting
    async def initial_connect(self, server: ServerSlot) -> None:
        """First connection attempt; a failure leaves the server disconnected (retried)."""
        async with server.lock:
            try:
                await self._open(server)
            except McpError as exc:
                logger.warning("mcp server %s failed to connect: %s", server.name, exc)
                self._after_failed_attempt(server, str(exc))
        if server.state is McpServerState.DISCONNECTED:
            self.schedule_revive(server)

    async def _open(self, server: ServerSlot) -> None:
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
        server.set_catalog(catalog)
        server.state = McpServerState.CONNECTED
        server.attempts = 0
        server.discovery_failures = 0
        server.rpc_failures = 0
        server.last_success_at = now_ms()
        server.last_error = None

    def _after_failed_attempt(self, server: ServerSlot, error: str) -> None:
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
            self.schedule_revive(server)

    async def reconnect_locked(self, server: ServerSlot) -> None:
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

    def mark_disconnected(self, server: ServerSlot, error: str, *, immediate: bool) -> None:
        """The connection is gone: reconnect (now when ``immediate``)."""
        server.state = McpServerState.DISCONNECTED
        server.last_error = error
        if immediate:
            server.next_attempt_at = 0.0
        self.schedule_revive(server)

    def schedule_revive(self, server: ServerSlot) -> None:
        """Start the background reconnect task unless one runs or reconnects are off."""
        if self.closed or not server.config.restart_policy.enabled:
            return
        if server.revive_task is not None and not server.revive_task.done():
            return
        server.revive_task = asyncio.get_running_loop().create_task(
            self._revive(server), name=f"mcp-revive:{server.name}"
        )

    async def _revive(self, server: ServerSlot) -> None:
        """Reconnect a disconnected server, honouring the back-off, until it is connected,
        disabled or permanently failed."""
        waiting = (McpServerState.DISCONNECTED, McpServerState.RECONNECTING)
        while not self.closed and server.state in waiting:
            delay = server.next_attempt_at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            async with server.lock:
                if self.closed or server.state is not McpServerState.DISCONNECTED:
                    continue
                with contextlib.suppress(McpError):
                    await self.reconnect_locked(server)
            self._on_change()

    async def live_connection(self, server: ServerSlot) -> McpConnection:
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
                        await self.reconnect_locked(server)
                    self._on_change()
            live = server.live
            if live is not None:
                return live
            state: McpServerState = server.state
            if state is McpServerState.PERMANENTLY_FAILED:
                raise ExecutionFailed(f"server '{server.name}' is permanently failed")
        raise ExecutionFailed("mcp transport error: connection closed")

    def record_failure(self, server: ServerSlot, failure: McpCallFailure, *, rpc: bool) -> None:
        """Count a failed request; close and reconnect when the connection is gone or the
        failure budget is spent."""
        if not failure.kind.tracked:
            return
        server.last_error = failure.message
        if failure.kind is McpFailureKind.CLOSED:
            self.mark_disconnected(server, failure.message, immediate=True)
            return
        if rpc:
            server.rpc_failures += 1
            spent = server.rpc_failures >= FAILURE_THRESHOLD
        else:
            server.discovery_failures += 1
            spent = server.discovery_failures >= FAILURE_THRESHOLD
        if spent and server.connection is not None:
            server.connection.mark_dead(failure.message)
            self.mark_disconnected(server, failure.message, immediate=True)

    # ------------------------------------------------------------------ enable / disable
    async def disable(self, server: ServerSlot) -> None:
        """Close the server and drop its catalog (lock held)."""
        server.state = McpServerState.DISABLING
        old, server.connection = server.connection, None
        if old is not None:
            await old.close()
        server.state = McpServerState.DISABLED
        server.catalog = []
        server.discovery_failures = server.rpc_failures = server.attempts = 0

    async def enable(self, server: ServerSlot) -> None:
        """Reset the server's health and reconnect it (lock held); raises ``McpError``."""
        server.attempts = server.discovery_failures = server.rpc_failures = 0
        server.last_error = None
        server.next_attempt_at = 0.0
        server.state = McpServerState.DISCONNECTED
        await self.reconnect_locked(server)

    # ------------------------------------------------------------------ shutdown
    async def close(self) -> None:
        """Stop reconnecting and close every session (stdio children exit)."""
        self.closed = True
        revivers = [s.revive_task for s in self.slots.values() if s.revive_task is not None]
        for task in revivers:
            task.cancel()
        for task in revivers:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        connections = [s.connection for s in self.slots.values() if s.connection is not None]
        for server in self.slots.values():
            server.connection = None
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)
