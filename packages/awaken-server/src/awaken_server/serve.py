"""Running the server with uvicorn (``awaken serve``) and one-shot runs (``awaken run``)."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import sys
from collections.abc import Callable
from typing import Any, TextIO

import uvicorn
from awaken_contract.contract.event import (
    AgentEvent,
    Error,
    RunFinish,
    TextDelta,
    ToolCallDone,
    ToolCallReady,
)
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.errors import ConfigLoadError
from awaken_contract.registry_spec import AgentSystemConfig

from awaken_server.app import AppState, ServerConfig, create_app
from awaken_server.bootstrap import ServeSetup, build_runtime, open_store, store_label
from awaken_server.config_manager import ConfigRuntimeManager
from awaken_server.plugin_discovery import discover_plugins, with_plugin_capabilities
from awaken_server.protocols import protocol_routes

__all__ = ["configure_logging", "prepare_app", "run_once", "serve"]

_log = logging.getLogger("awaken.server")


def configure_logging(level: str = "info") -> None:
    """Structured one-line logs: ``time level logger key=value…``."""
    logging.basicConfig(
        level=level.upper(),
        format="ts=%(asctime)s level=%(levelname)s logger=%(name)s msg=%(message)r",
        stream=sys.stderr,
    )


def _is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def prepare_app(setup: ServeSetup, store: Any, server: ServerConfig) -> tuple[Any, AppState]:
    """Build the runtime (through the config manager when the store has a config store), the
    app state and the Starlette app."""

    catalog = discover_plugins()

    async def factory(system: AgentSystemConfig) -> Any:
        await catalog.start(system)
        return build_runtime(
            system, store=store, executors=setup.executors, tools=setup.tools, catalog=catalog
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
    state = AppState.build(runtime, store, config=server, config_manager=manager)
    state.closers.append(catalog.close)
    if manager is not None:
        config_manager = manager
        state.capabilities = lambda: with_plugin_capabilities(
            config_manager.capabilities(), catalog
        )
    return create_app(state, extra_routes=protocol_routes()), state


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
    if has_config_api and not server.effective_admin_token() and not _is_loopback(host):
        raise ConfigLoadError(
            f"refusing to serve the config API on non-loopback address {host}: set "
            "AWAKEN_ADMIN_API_BEARER_TOKEN (or server.admin_bearer_token)"
        )
    try:
        app, _ = await prepare_app(setup, store, server)
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
        say(f"  store: {store_label(store_url)}")
        say(f"  model: {setup.model_label}")
        say(f"  agents: {', '.join(a.id for a in setup.system.agents)}")
        await uv_server.serve()
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            await close()


class _TerminalSink(EventSink):
    """Prints a run to a terminal: text as it streams, tool calls in brackets."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    async def emit(self, event: AgentEvent) -> None:
        out = self.out
        if isinstance(event, TextDelta):
            out.write(event.delta)
        elif isinstance(event, ToolCallReady):
            out.write(f"\n[tool {event.name}({event.arguments})]\n")
        elif isinstance(event, ToolCallDone):
            out.write(f"[{event.outcome.value}: {event.result.to_llm_text()}]\n")
        elif isinstance(event, Error):
            out.write(f"\n[error: {event.message}]\n")
        elif isinstance(event, RunFinish):
            out.write(f"\n[{event.termination.type.value}]\n")
        out.flush()


async def run_once(
    setup: ServeSetup,
    prompt: str,
    *,
    store_url: str | None,
    agent_id: str | None = None,
    thread_id: str | None = None,
    out: TextIO | None = None,
) -> int:
    """Stream one run to ``out``; exit code 0 unless the run ended in error."""
    store = open_store(store_url)
    catalog = discover_plugins()
    try:
        await catalog.start(setup.system)
        runtime = build_runtime(
            setup.system,
            store=store,
            executors=setup.executors,
            tools=setup.tools,
            catalog=catalog,
        )
        agent = agent_id or (setup.system.agents[0].id if setup.system.agents else "default")
        request = RunRequest(thread_id or "cli", [Message.user(prompt)]).with_agent_id(agent)
        sink = _TerminalSink(out or sys.stdout)
        result = await runtime.run(request, sink)
        termination = getattr(result, "termination", None)
        return 1 if getattr(getattr(termination, "type", None), "value", "") == "error" else 0
    finally:
        await catalog.close()
        close = getattr(store, "close", None)
        if close is not None:
            await close()


def run_sync(coro: Any) -> Any:
    """``asyncio.run`` that turns Ctrl-C into a clean exit."""
    try:
        return asyncio.run(coro)
    except KeyboardInterrupt:
        return 130
