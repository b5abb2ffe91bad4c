"""Health and refresh of the MCP manager: re-list connected servers' tools, reconnect
disconnected servers whose back-off elapsed, and the periodic refresh loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta

from awaken_contract.ids import now_ms

from awaken_ext_mcp._pool import ServerPool, ServerSlot
from awaken_ext_mcp.connection import McpCallFailure
from awaken_ext_mcp.errors import McpError
from awaken_ext_mcp.health import McpServerState

__all__ = ["Refresher"]

logger = logging.getLogger("awaken_ext_mcp.manager")


class Refresher:
    """Refreshes the catalogs of a :class:`ServerPool`; ``refresh`` is the owner's full refresh
    (servers, then its snapshot rebuild), which the periodic loop calls."""

    def __init__(self, pool: ServerPool, refresh: Callable[[], Awaitable[None]]) -> None:
        self._pool = pool
        self._refresh = refresh
        self._task: asyncio.Task[None] | None = None

    async def refresh_servers(self) -> None:
        """Refresh every server in parallel."""
        await asyncio.gather(*(self._refresh_server(s) for s in self._pool.slots.values()))

    async def _refresh_server(self, server: ServerSlot) -> None:
        if server.lock.locked():
            return
        async with server.lock:
            if server.state is McpServerState.DISCONNECTED:
                if server.reconnect_due:
                    with contextlib.suppress(McpError):
                        await self._pool.reconnect_locked(server)
                return
            if server.state is not McpServerState.CONNECTED:
                return
            connection = server.live
            server.last_attempt_at = now_ms()
            if connection is None:
                self._pool.mark_disconnected(
                    server, server.last_error or "connection closed", immediate=True
                )
                return
            try:
                catalog = await connection.list_tools()
            except McpCallFailure as failure:
                self._pool.record_failure(server, failure, rpc=False)
                return
            server.set_catalog(catalog)
            server.discovery_failures = 0
            server.last_success_at = now_ms()

    # ------------------------------------------------------------------ periodic loop
    def start(self, interval: float | timedelta) -> None:
        """Run the owner's refresh every ``interval`` (seconds or timedelta) in the background."""
        seconds = interval.total_seconds() if isinstance(interval, timedelta) else float(interval)
        if not seconds > 0:
            raise McpError("periodic refresh interval must be > 0")
        if self.running():
            raise McpError("periodic refresh loop is already running")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise McpError("event loop unavailable") from None
        self._task = loop.create_task(self._loop(seconds), name="mcp-refresh")

    async def _loop(self, seconds: float) -> None:
        while not self._pool.closed:
            await asyncio.sleep(seconds)
            try:
                await self._refresh()
            except McpError as exc:
                logger.warning("mcp periodic refresh: %s", exc)
            except Exception:
                logger.exception("mcp periodic refresh failed")

    async def stop(self) -> None:
        """Stop the periodic loop (no-op when not running)."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def running(self) -> bool:
        """Whether the periodic loop runs."""
        return self._task is not None and not self._task.done()
