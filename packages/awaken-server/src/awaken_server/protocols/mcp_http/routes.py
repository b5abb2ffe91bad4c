"""MCP Streamable HTTP at ``/v1/mcp``, served by the ``mcp`` SDK's session manager.

Mount with ``create_app(state, extra_routes=mcp_routes())``. The SDK handles JSON-RPC framing,
sessions (``MCP-Session-Id``), protocol-version negotiation, SSE responses and ``DELETE``;
this module adds the Origin check and starts the session manager on first use (it lives as
long as the app's event loop). The SDK's DNS-rebinding protection is on, with the server's
host allow-list; sessions idle for ``security.mcp_session_idle_secs`` are closed and at most
``security.mcp_max_sessions`` are open (more → 503).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urlparse

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute
from starlette.types import Receive, Scope, Send

from awaken_server.protocols.mcp_http.server import build_mcp_server
from awaken_server.security.hosts import LOOPBACK_NAMES, scope_port
from awaken_server.security.streams import StreamRoute
from awaken_server.state import AppState

__all__ = ["McpHttp", "mcp_routes", "origin_allowed"]

_EXTRA_KEY = "mcp_http"
_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})


def origin_allowed(origin: str | None, host_header: str | None) -> str | None:
    """``None`` when the request may proceed, else the reason it is forbidden.

    No ``Origin`` → allowed; otherwise its host must be loopback or the request's own host.
    """
    if origin is None:
        return None
    parsed = urlparse(origin.strip())
    host = parsed.hostname
    if not parsed.scheme or not host:
        return "invalid Origin header"
    if host.lower() in _LOOPBACK:
        return None
    request_host = urlparse(f"//{(host_header or '').strip()}").hostname
    if request_host and request_host.lower() == host.lower():
        return None
    return "Origin header is not allowed for this MCP endpoint"


def transport_security(state: AppState, port: int) -> TransportSecuritySettings:
    """The SDK's DNS-rebinding protection with the server's host allow-list (off only when the
    server accepts any host) and origins: its own, loopback ones and the CORS list."""
    policy = state.config.host_policy()
    if policy.open:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = policy.sdk_patterns(port)
    origins = [f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
    origins += [f"http://{name}:*" for name in LOOPBACK_NAMES]
    origins += state.config.effective_cors_origins()
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


class McpHttp:
    """The SDK session manager of one app, started lazily inside the serving event loop."""

    def __init__(self, state: AppState, port: int = 0) -> None:
        security = state.config.security
        self.manager = StreamableHTTPSessionManager(
            build_mcp_server(lambda: state.runtime),
            json_response=False,
            session_idle_timeout=security.mcp_session_idle_secs,
            max_sessions=security.mcp_max_sessions,
            security_settings=transport_security(state, port),
        )
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def of(cls, state: AppState, port: int = 0) -> McpHttp:
        """The MCP endpoint of ``state`` (created on first use; ``port`` = the local port)."""
        endpoint = state.extra.get(_EXTRA_KEY)
        if not isinstance(endpoint, McpHttp):
            endpoint = cls(state, port)
            state.extra[_EXTRA_KEY] = endpoint
        return endpoint

    async def _run(self) -> None:
        async with self.manager.run():
            self._ready.set()
            await self._stop.wait()

    async def ensure_started(self) -> None:
        """Start the session manager's task group (once)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="awaken-mcp-sessions")
        await self._ready.wait()

    async def close(self) -> None:
        """Stop every session."""
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        reason = origin_allowed(request.headers.get("origin"), request.headers.get("host"))
        if reason is not None:
            body: dict[str, Any] = {
                "jsonrpc": "2.0",
                "error": {"code": -32600, "message": reason},
                "id": None,
            }
            await JSONResponse(body, status_code=403)(scope, receive, send)
            return
        await self.ensure_started()
        await self.manager.handle_request(scope, receive, send)


class _Endpoint:
    """ASGI endpoint resolving the app's :class:`McpHttp` per request."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state: AppState = scope["app"].state.awaken
        await McpHttp.of(state, scope_port(scope))(scope, receive, send)


def mcp_routes() -> list[BaseRoute]:
    """``/v1/mcp`` (POST, GET, DELETE)."""
    return [
        StreamRoute(
            "/v1/mcp",
            _Endpoint(),
            methods=["GET", "POST", "DELETE"],
            when=lambda scope: scope.get("method") == "GET",
        )
    ]
