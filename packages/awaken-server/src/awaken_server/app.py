"""The application: ServerConfig, AppState and ``create_app``.

``create_app(state)`` returns a Starlette app with the native routes (health, metrics, threads,
runs, config) plus any extra routes handed in (protocol adapters mount theirs this way)::

    state = AppState.build(runtime, store, config=ServerConfig())
    app = create_app(state, extra_routes=ai_sdk_routes(state))
"""

from __future__ import annotations

import contextlib
import enum
import logging
import os
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from awaken_contract.contract.mailbox import MailboxStore
from awaken_contract.contract.storage import ConfigStore, ThreadRunStore
from awaken_contract.secrets import Secret
from pydantic import BaseModel, ConfigDict, Field
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from awaken_server.auth import ADMIN_TOKEN_ENV, BearerAuth, api_keys_from_env
from awaken_server.errors import ApiError, error_response
from awaken_server.limits import GuardSettings, RequestGuard, route_matcher
from awaken_server.mailbox import Mailbox, MailboxConfig
from awaken_server.metrics import ServerMetrics
from awaken_server.security import HostPolicy, SecurityConfig
from awaken_server.security.admin import AdminGate
from awaken_server.sse import EventHubRegistry
from awaken_server.telemetry import ObservabilityServerConfig

__all__ = [
    "AppState",
    "MailboxLifecycle",
    "ServerConfig",
    "ShutdownConfig",
    "create_app",
]

_log = logging.getLogger("awaken.server")

CORS_ENV = "AWAKEN_ADMIN_CORS_ALLOWED_ORIGINS"


class MailboxLifecycle(enum.StrEnum):
    """Whether the server starts mailbox recovery and maintenance itself."""

    AUTO = "auto"
    MANUAL = "manual"


class ShutdownConfig(BaseModel):
    """Graceful shutdown: how long running requests and jobs may take to finish."""

    model_config = ConfigDict(extra="forbid")

    timeout_secs: int = Field(default=30, ge=0)


class ServerConfig(BaseModel):
    """HTTP server configuration (book fields first, then protection and tuning)."""

    model_config = ConfigDict(extra="forbid")

    address: str = "0.0.0.0:3000"
    sse_buffer_size: int = Field(default=64, ge=1)
    """Most frames written to an SSE response in one chunk."""
    replay_buffer_capacity: int = Field(default=1024, ge=1)
    shutdown: ShutdownConfig = Field(default_factory=ShutdownConfig)
    max_concurrent_requests: int = Field(default=100, ge=0)
    """Short requests in flight at once (0 = unlimited); excess requests get 503 + Retry-After.
    Event streams and ``/health`` never count against it."""
    max_concurrent_streams: int = Field(default=64, ge=0)
    """Event streams open at once (0 = unlimited); more → 503 + Retry-After."""
    a2a_extended_card_bearer_token: Secret | None = None
    mailbox_lifecycle: MailboxLifecycle = MailboxLifecycle.AUTO
    api_keys: list[Secret] = Field(default_factory=list)
    """Bearer tokens accepted on every ``/v1`` route (empty = open; ``AWAKEN_API_KEYS`` adds)."""
    auth_health: bool = False
    """Also require an API key on ``/health``."""
    auth_metrics: bool = False
    """Also require an API key on ``/metrics``."""
    admin_bearer_token: Secret | None = None
    """Token for the config/capabilities routes (``AWAKEN_ADMIN_API_BEARER_TOKEN`` wins)."""
    cors_allowed_origins: list[str] = Field(
        default_factory=lambda: ["http://127.0.0.1:3002", "http://localhost:3002"]
    )
    max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=0)
    """Largest accepted request body (0 = unlimited); larger → 413."""
    heartbeat_interval_secs: float = Field(default=15.0, gt=0)
    """Idle time after which an SSE stream gets a ``: heartbeat`` comment."""
    default_agent_id: str = "default"
    """Agent used when a request names none and the thread has no previous run."""
    mailbox: MailboxConfig = Field(default_factory=MailboxConfig)
    observability: ObservabilityServerConfig = Field(default_factory=ObservabilityServerConfig)
    """Prometheus feed, OTLP export and content capture of the observability plugin."""
    security: SecurityConfig = Field(default_factory=SecurityConfig)
    """Hosts, public URL, ``api_key_env`` allow-list, MCP sessions, A2A push targets."""

    def host_port(self) -> tuple[str, int]:
        """``address`` split into host and port."""
        host, _, port = self.address.rpartition(":")
        return host.strip("[]") or "0.0.0.0", int(port or 3000)

    def effective_api_keys(self) -> list[str]:
        """Configured keys plus ``AWAKEN_API_KEYS``."""
        return [*self.api_keys, *api_keys_from_env()]

    def effective_admin_token(self) -> str | None:
        """``AWAKEN_ADMIN_API_BEARER_TOKEN`` (trimmed, non-empty) or the configured token."""
        env = os.environ.get(ADMIN_TOKEN_ENV, "").strip()
        return env or self.admin_bearer_token

    def effective_cors_origins(self) -> list[str]:
        """``AWAKEN_ADMIN_CORS_ALLOWED_ORIGINS`` (comma separated) or the configured list."""
        env = os.environ.get(CORS_ENV)
        if env is not None:
            return [o.strip() for o in env.split(",") if o.strip()]
        return list(self.cors_allowed_origins)

    def host_policy(self) -> HostPolicy:
        """The ``Host`` allow-list of this configuration."""
        host, port = self.host_port()
        return HostPolicy(self.security.allowed_hosts, host, port)


class AppState:
    """Everything the routes share: runtime, mailbox, stores, config, metrics, SSE hubs.

    Book order: ``AppState(runtime, mailbox, store, resolver, ServerConfig())``; most code uses
    :meth:`build`.

    ``config_store`` enables the read side of the config API; ``config_manager`` (an object
    with ``async apply()`` that rebuilds and publishes the runtime) enables writes.
    """

    def __init__(
        self,
        runtime: Any,
        mailbox: Mailbox,
        store: ThreadRunStore,
        resolver: Any = None,
        config: ServerConfig | None = None,
        *,
        config_store: ConfigStore | None = None,
        config_manager: Any = None,
        metrics: ServerMetrics | None = None,
        capabilities: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        if isinstance(resolver, ServerConfig) and config is None:
            resolver, config = None, resolver  # AppState(runtime, mailbox, store, config)
        self.mailbox = mailbox
        self.store = store
        self.resolver = resolver if resolver is not None else getattr(runtime, "resolver", None)
        """The agent resolver (book: ``runtime.resolver_arc()``); informational."""
        self.config = config or ServerConfig()
        self.config_store = config_store
        self.config_manager = config_manager
        self.metrics = metrics or mailbox.metrics or ServerMetrics()
        if mailbox.metrics is None:
            mailbox.metrics = self.metrics
        self.hubs: EventHubRegistry = mailbox.hubs
        self.capabilities = capabilities
        self.runtime = runtime
        self.extra: dict[str, Any] = {}
        """Free slots for protocol adapters (e.g. their own replay buffers)."""

    @property
    def runtime(self) -> Any:
        """The runtime new runs use (the config API swaps it)."""
        return self.mailbox.runtime

    @runtime.setter
    def runtime(self, value: Any) -> None:
        self.mailbox.runtime = value

    @classmethod
    def build(
        cls,
        runtime: Any,
        store: ThreadRunStore,
        *,
        mailbox_store: MailboxStore | None = None,
        config: ServerConfig | None = None,
        consumer_id: str | None = None,
        config_store: ConfigStore | None = None,
        config_manager: Any = None,
        metrics: ServerMetrics | None = None,
    ) -> AppState:
        """Wire a mailbox over ``mailbox_store`` (default: ``store.mailbox``, else in-memory)."""
        config = config or ServerConfig()
        if mailbox_store is None:
            mailbox_store = getattr(store, "mailbox", None)
        if mailbox_store is None:
            from awaken_stores import InMemoryMailboxStore

            mailbox_store = InMemoryMailboxStore()
        metrics = metrics or ServerMetrics()
        mailbox = Mailbox(
            runtime,
            mailbox_store,
            consumer_id,
            config.mailbox,
            run_store=store,
            hubs=EventHubRegistry(config.replay_buffer_capacity),
            metrics=metrics,
            default_agent_id=config.default_agent_id,
        )
        if config_store is None and config_manager is not None:
            config_store = getattr(config_manager, "config_store", None)
        return cls(
            runtime,
            mailbox,
            store,
            config=config,
            config_store=config_store,
            config_manager=config_manager,
            metrics=metrics,
        )


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
    from awaken_server.routes import native_routes

    routes: list[BaseRoute] = [*native_routes(), *extra_routes]
    config = state.config

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        if config.mailbox_lifecycle is MailboxLifecycle.AUTO:
            await state.mailbox.start()
        try:
            yield
        finally:
            await state.mailbox.stop(float(config.shutdown.timeout_secs))

    admin_token = config.effective_admin_token()
    api_auth = BearerAuth(config.effective_api_keys())
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
            CORSMiddleware,
            allow_origins=config.effective_cors_origins(),
            allow_methods=["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type", "Last-Event-ID"],
        ),
        Middleware(
            RequestGuard, settings=guard, metrics=state.metrics, route_of=route_matcher(routes)
        ),
        *middleware,
    ]
    app = Starlette(
        routes=routes,
        middleware=all_middleware,
        lifespan=lifespan,
        exception_handlers={ApiError: _api_error_handler, Exception: _unexpected_error_handler},
    )
    app.state.awaken = state
    app.state.admin_gate = admin_gate
    return app


def state_of(request: Request) -> AppState:
    """The :class:`AppState` of the app serving ``request``."""
    state: AppState = request.app.state.awaken
    return state


def route(path: str, endpoint: Callable[..., Any], methods: list[str]) -> Route:
    """A Starlette route (helper for route modules)."""
    return Route(path, endpoint, methods=methods)
