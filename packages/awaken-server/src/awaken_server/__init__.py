"""Awaken's HTTP server: native thread/run API over SSE, durable mailbox, config API.

``create_app(AppState.build(runtime, store))`` gives a Starlette app; ``awaken serve`` runs it.
"""

from awaken_server.app import create_app
from awaken_server.config_manager import ConfigRuntimeManager
from awaken_server.mailbox import (
    Mailbox,
    MailboxConfig,
    ReconnectableEventSink,
    RunSubmission,
    SubmitHandle,
    SubmitResult,
    SubmitStatus,
)
from awaken_server.metrics import ServerMetrics
from awaken_server.security import SecurityConfig
from awaken_server.sse import EventHubRegistry, RunEventHub
from awaken_server.state import AppState, MailboxLifecycle, ServerConfig, ShutdownConfig

__all__ = [
    "AppState",
    "ConfigRuntimeManager",
    "EventHubRegistry",
    "Mailbox",
    "MailboxConfig",
    "MailboxLifecycle",
    "ReconnectableEventSink",
    "RunEventHub",
    "RunSubmission",
    "SecurityConfig",
    "ServerConfig",
    "ServerMetrics",
    "ShutdownConfig",
    "SubmitHandle",
    "SubmitResult",
    "SubmitStatus",
    "create_app",
]
