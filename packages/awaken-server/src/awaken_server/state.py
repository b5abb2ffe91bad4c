"""What every route shares: :class:`ServerConfig`, :class:`AppState` and :func:`state_of`.

Routes import this module (and services), never ``app.py``: ``app.py`` is the composition
root that imports the routes.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Awaitable, Callable
from typing import Any

from awaken_contract.contract.mailbox import MailboxStore
from awaken_contract.contract.storage import ConfigStore, ThreadRunStore
from awaken_contract.ids import check_id
from awaken_contract.runtime import AgentRuntimeApi
from awaken_contract.secrets import Secret
from awaken_runtime.registry.resolved import AgentResolver
from awaken_runtime.runtime import AgentRuntime
from awaken_stores import InMemoryMailboxStore
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.requests import Request

from awaken_server.auth import ADMIN_TOKEN_ENV, api_keys_from_env
from awaken_server.config_manager import ConfigRuntimeManager
from awaken_server.config_sync import ConfigSyncConfig
from awaken_server.mailbox import Mailbox, MailboxConfig
from awaken_server.metrics import ServerMetrics
from awaken_server.security import HostPolicy, SecurityConfig
from awaken_server.sse import EventHubRegistry, hub_registry_for
from awaken_server.telemetry import ObservabilityServerConfig

__all__ = [
    "CORS_ENV",
    "AppState",
    "MailboxLifecycle",
    "ServerConfig",
    "ShutdownConfig",
    "state_of",
    "store_mailbox",
]

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
    user_api_keys: dict[str, Secret] = Field(default_factory=dict)
    """User id → API key: a request with that key is accepted on ``/v1`` routes and its runs
    act for that user (their Profile state is the user's; a body naming another user → 403)."""
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
    data_dir: str = ".awaken"
    """Local folder for this instance's persistent identity (relative to the working
    directory); a restarted instance takes its identity back and reclaims its orphaned claims
    at once."""
    heartbeat_interval_secs: float = Field(default=15.0, gt=0)
    """Idle time after which an SSE stream gets a ``: heartbeat`` comment."""
    default_agent_id: str = "default"
    """Agent used when a request names none and the thread has no previous run."""
    mailbox: MailboxConfig = Field(default_factory=MailboxConfig)
    config_sync: ConfigSyncConfig = Field(default_factory=ConfigSyncConfig)
    """How config written by other instances on the same store is picked up."""
    observability: ObservabilityServerConfig = Field(default_factory=ObservabilityServerConfig)
    """Prometheus feed, OTLP export and content capture of the observability plugin."""
    security: SecurityConfig = Field(default_factory=SecurityConfig)
    """Hosts, public URL, ``api_key_env`` allow-list, MCP sessions, A2A push targets."""

    @field_validator("user_api_keys")
    @classmethod
    def _user_ids(cls, value: dict[str, Secret]) -> dict[str, Secret]:
        for user_id in value:
            check_id(user_id, "user id")
        return value

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
        runtime: AgentRuntimeApi,
        mailbox: Mailbox,
        store: ThreadRunStore,
        resolver: AgentResolver | ServerConfig | None = None,
        config: ServerConfig | None = None,
        *,
        config_store: ConfigStore | None = None,
        config_manager: ConfigRuntimeManager | None = None,
        metrics: ServerMetrics | None = None,
        capabilities: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        if isinstance(resolver, ServerConfig):
            # AppState(runtime, mailbox, store, config)
            resolver, config = None, config if config is not None else resolver
        self.mailbox = mailbox
        self.store = store
        if resolver is None and isinstance(runtime, AgentRuntime):
            resolver = runtime.resolver
        self.resolver: AgentResolver | None = resolver
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
        self.closers: list[Callable[[], Awaitable[None]]] = []
        """Awaited at shutdown, after the mailbox stops (e.g. hosted plugins' connections)."""

    @property
    def runtime(self) -> AgentRuntimeApi:
        """The runtime new runs use (the config API swaps it)."""
        return self.mailbox.runtime

    @runtime.setter
    def runtime(self, value: AgentRuntimeApi) -> None:
        self.mailbox.runtime = value

    def publish_runtime(self, runtime: AgentRuntimeApi) -> None:
        """Make ``runtime`` the one new runs use (runs in flight keep theirs)."""
        self.runtime = runtime

    @classmethod
    def build(
        cls,
        runtime: AgentRuntimeApi,
        store: ThreadRunStore,
        *,
        mailbox_store: MailboxStore | None = None,
        config: ServerConfig | None = None,
        consumer_id: str | None = None,
        config_store: ConfigStore | None = None,
        config_manager: ConfigRuntimeManager | None = None,
        metrics: ServerMetrics | None = None,
    ) -> AppState:
        """Wire a mailbox over ``mailbox_store`` (default: ``store.mailbox``, else in-memory)."""
        config = config or ServerConfig()
        if mailbox_store is None:
            mailbox_store = store_mailbox(store)
        metrics = metrics or ServerMetrics()
        mailbox = Mailbox(
            runtime,
            mailbox_store,
            consumer_id,
            config.mailbox,
            run_store=store,
            hubs=hub_registry_for(store, config.replay_buffer_capacity),
            metrics=metrics,
            default_agent_id=config.default_agent_id,
        )
        if config_store is None and config_manager is not None:
            config_store = config_manager.config_store
        return cls(
            runtime,
            mailbox,
            store,
            config=config,
            config_store=config_store,
            config_manager=config_manager,
            metrics=metrics,
        )


def store_mailbox(store: ThreadRunStore) -> MailboxStore:
    """The mailbox store that ships with ``store`` (SQLite, Postgres), else an in-memory one."""
    mailbox = getattr(store, "mailbox", None)  # an optional companion of some stores
    return mailbox if isinstance(mailbox, MailboxStore) else InMemoryMailboxStore()


def state_of(request: Request) -> AppState:
    """The :class:`AppState` of the app serving ``request``."""
    state: AppState = request.app.state.awaken
    return state
