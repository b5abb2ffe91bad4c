"""The application: ``create_app``, the composition root (routes, middleware, lifespan).

``create_app(state)`` returns a Starlette app with the native routes (health, metrics, threads,
runs, config) plus any extra routes handed in (protocol adapters mount theirs this way)::

    state = AppState.build(runtime, store, config=ServerConfig())
    app = create_app(state, extra_routes=ai_sdk_routes(state))
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Sequence

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from awaken_server.auth import BearerAuth
from awaken_server.config_sync import ConfigSync
from awaken_server.cors import Cors
from awaken_server.errors import ApiError, error_response
from awaken_server.limits import GuardSettings, RequestGuard, route_matcher
from awaken_server.route_table import RouteTable
from awaken_server.routes import native_routes
from awaken_server.security.admin import AdminGate
from awaken_server.state import AppState, MailboxLifecycle, ServerConfig, ShutdownConfig, state_of

__all__ = [
    "AppState",
    "MailboxLifecycle",
    "ServerConfig",
    "ShutdownConfig",
    "create_app",
    "state_of",
]

_log = logging.getLogger("awaken.server")


async def _api_error_handler(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return exc.response()


async def _unexpected_error_handler(_: Request, exc: Exception) -> Response:
    _log.exception("unhandled error", exc_info=exc)
    return error_response(500, f"internal error: {type(exc).__name__}")


def create_app(
    state: AppState,
    *,
    extra_routes: Sequence[BaseRoute] = (),
    middleware: Sequence[Middleware] = (),
) -> Starlette:
    """The Starlette application serving ``state``.

    ``extra_routes`` are added after the native routes (protocol adapters: AI SDK, AG-UI, …);
    they see the same auth/limits/metrics guard and reach the state via
    ``request.app.state.awaken``.
    """
    routes: list[BaseRoute] = [*native_routes(), *extra_routes]
    table = RouteTable(routes)  # matched once per request, by the guard (see route_table)
    config = state.config

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        sync: ConfigSync | None = None
        if state.config_manager is not None:
            sync = ConfigSync(state.config_manager, state.publish_runtime, config.config_sync)
            await sync.start()
            state.extra["config_sync"] = sync
        if config.mailbox_lifecycle is MailboxLifecycle.AUTO:
            await state.mailbox.start()
        try:
            yield
        finally:
            if sync is not None:
                await sync.stop()
            await state.mailbox.stop(float(config.shutdown.timeout_secs))
            for close in state.closers:
                await close()

    admin_token = config.effective_admin_token()
    api_auth = BearerAuth(config.effective_api_keys(), users=config.user_api_keys)
    admin_auth = BearerAuth([admin_token] if admin_token else [], label="admin bearer token")
    hosts = config.host_policy()
    admin_gate = AdminGate(admin_auth, api_auth, hosts, config.effective_cors_origins())
    guard = GuardSettings(
        api_auth=api_auth,
        admin_auth=admin_auth,
        admin_gate=admin_gate,
        hosts=hosts,
        max_concurrent_requests=config.max_concurrent_requests,
        max_concurrent_streams=config.max_concurrent_streams,
        max_body_bytes=config.max_body_bytes,
        auth_health=config.auth_health,
        auth_metrics=config.auth_metrics,
    )
    all_middleware = [
        Middleware(
            Cors,
            allow_origins=config.effective_cors_origins(),
            allow_methods=["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type", "Last-Event-ID"],
        ),
        Middleware(
            RequestGuard, settings=guard, metrics=state.metrics, route_of=route_matcher(table)
        ),
        *middleware,
    ]
    app = Starlette(
        routes=[table],
        middleware=all_middleware,
        lifespan=lifespan,
        exception_handlers={ApiError: _api_error_handler, Exception: _unexpected_error_handler},
    )
    app.state.awaken = state
    app.state.admin_gate = admin_gate
    return app
