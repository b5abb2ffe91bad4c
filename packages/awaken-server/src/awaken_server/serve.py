"""Running the server with uvicorn (``awaken serve``); ``awaken run`` is in :mod:`.terminal`."""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from awaken_contract.errors import ConfigLoadError
from awaken_contract.log_context import LogFormat
from awaken_contract.log_context import configure_logging as _configure_logging
from awaken_contract.registry_spec import AgentSystemConfig
from awaken_contract.runtime import AgentRuntimeApi
from awaken_runtime.runtime import AgentRuntime

from awaken_server.app import create_app
from awaken_server.bootstrap import ServeSetup, build_runtime, open_store, store_label
from awaken_server.config_manager import ConfigRuntimeManager
from awaken_server.gc_policy import tune_gc_for_serving
from awaken_server.instance import claim_instance_identity
from awaken_server.metrics import ServerMetrics
from awaken_server.playground import playground_routes
from awaken_server.plugin_discovery import discover_plugins, with_plugin_capabilities
from awaken_server.protocols import protocol_routes
from awaken_server.security import is_loopback_host
from awaken_server.state import AppState, ServerConfig
from awaken_server.telemetry import ServerTelemetry
from awaken_server.terminal import run_once
from awaken_server.trace_context import TraceContextMiddleware

__all__ = ["configure_logging", "prepare_app", "run_once", "serve", "served_runtime"]

_log = logging.getLogger("awaken.server")


def configure_logging(level: str = "info", log_format: LogFormat = "text") -> None:
    """One line per record on stderr, carrying the run's ``run_id``/``thread_id``/``agent_id``:
    ``text`` (human readable) or ``json`` (one object per line)."""
    _configure_logging(log_format, level.upper(), sys.stderr)


def listen(host: str, port: int) -> socket.socket:
    """The bound listening socket (before any banner: a taken port is a clear error)."""
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    # IPPROTO_TCP spelled out: asyncio sets TCP_NODELAY on accepted connections only when the
    # socket's proto says TCP; with proto 0 every keep-alive response waited ~40 ms (Nagle +
    # delayed ACK) before the client saw its last bytes.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((bare, port))
    except OSError as exc:
        sock.close()
        raise ConfigLoadError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


async def prepare_app(
    setup: ServeSetup, store: Any, server: ServerConfig, *, consumer_id: str | None = None
) -> tuple[Any, AppState]:
    """Build the runtime (through the config manager when the store has a config store), the
    app state and the Starlette app."""

    metrics = ServerMetrics()
    telemetry = ServerTelemetry(server.observability, metrics)
    catalog = discover_plugins()

    async def factory(system: AgentSystemConfig) -> AgentRuntimeApi:
        await catalog.start(system)
        return build_runtime(
            telemetry.apply(system),
            store=store,
            executors=setup.executors,
            tools=setup.tools,
            plugins=[telemetry.plugin],
            catalog=catalog,
        )

    agent_ids = [a.id for a in setup.system.agents]
    explicit = "default_agent_id" in server.model_fields_set
    if not explicit and agent_ids and server.default_agent_id not in agent_ids:
        server = server.model_copy(update={"default_agent_id": agent_ids[0]})
    config_store = getattr(store, "config", None)
    manager = None
    if config_store is not None:
        tools = [
            {"id": d.id, "name": d.name, "description": d.description}
            for d in (t.descriptor() for t in setup.tools.values())
        ]
        manager = ConfigRuntimeManager(config_store, factory, base=setup.system, tools=tools)
        runtime = await manager.apply()
    else:
        runtime = await factory(setup.system)
    state = AppState.build(
        runtime,
        store,
        config=server,
        config_manager=manager,
        metrics=metrics,
        consumer_id=consumer_id,
    )
    state.closers.append(catalog.close)
    if manager is not None:
        config_manager = manager
        state.capabilities = lambda: with_plugin_capabilities(
            config_manager.capabilities(), catalog
        )
    app = create_app(state, extra_routes=[*protocol_routes(), *playground_routes()])
    app.add_middleware(TraceContextMiddleware)
    app.state.telemetry = telemetry
    return app, state


@asynccontextmanager
async def served_runtime(
    setup: ServeSetup, store: Any, server: ServerConfig
) -> AsyncIterator[AgentRuntime]:
    """The runtime ``awaken serve`` builds from ``setup`` over ``store`` (what ``awaken
    replay`` replays a run with); the app's closers run on exit. ``TypeError`` when the
    configuration builds another kind of runtime."""
    _, state = await prepare_app(setup, store, server)
    try:
        runtime = state.runtime
        if not isinstance(runtime, AgentRuntime):
            raise TypeError(f"cannot replay with a {type(runtime).__name__}")
        yield runtime
    finally:
        for close in reversed(state.closers):
            await close()


async def serve(
    setup: ServeSetup,
    *,
    store_url: str | None,
    server: ServerConfig,
    log_level: str = "info",
    announce: Callable[[str], None] | None = None,
) -> None:
    """Serve until SIGINT/SIGTERM; shutdown drains within ``server.shutdown.timeout_secs``."""
    host, port = server.host_port()
    store = open_store(store_url)
    has_config_api = getattr(store, "config", None) is not None
    if has_config_api and not server.effective_admin_token() and not is_loopback_host(host):
        raise ConfigLoadError(
            f"refusing to serve the config API on non-loopback address {host}: set "
            "AWAKEN_ADMIN_API_BEARER_TOKEN (or server.admin_bearer_token)"
        )
    telemetry: ServerTelemetry | None = None
    identity = claim_instance_identity(server.data_dir)
    try:
        app, _ = await prepare_app(setup, store, server, consumer_id=identity.instance_id)
        telemetry = app.state.telemetry
        tune_gc_for_serving()
        sock = listen(host, port)
        port = sock.getsockname()[1]
        config = uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level=log_level,
            lifespan="on",
            timeout_graceful_shutdown=server.shutdown.timeout_secs,
            access_log=False,
        )
        uv_server = uvicorn.Server(config)
        say = announce or (lambda line: print(line, flush=True))
        say(f"awaken serving on http://{host}:{port}")
        say(f"  playground: http://{host}:{port}/playground")
        say(f"  store: {store_label(store_url)}")
        say(f"  model: {setup.model_label}")
        say(f"  agents: {', '.join(a.id for a in setup.system.agents)}")
        await uv_server.serve(sockets=[sock])
    finally:
        identity.release()
        if telemetry is not None:
            telemetry.shutdown()  # flush the OTLP exporters
        close = getattr(store, "close", None)
        if close is not None:
            await close()


def run_sync(coro: Any) -> Any:
    """``asyncio.run`` that turns Ctrl-C into a clean exit."""
    try:
        return asyncio.run(coro)
    except KeyboardInterrupt:
        return 130
