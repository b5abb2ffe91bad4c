"""The runtime behind the stdio protocol commands (``awaken acp``, ``awaken mcp``).

Built like ``awaken serve`` builds it — a config file, else the environment's provider, else
the offline demo model — with the plugins installed through the ``awaken.plugins`` entry-point
group that the agents name in ``plugin_ids``. Logs go to stderr: stdout is the protocol.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable

from awaken_contract.runtime import AgentRuntimeApi

__all__ = ["run_stdio_command"]


async def _with_runtime(
    config_path: str | None,
    store_url: str | None,
    serve: Callable[[AgentRuntimeApi], Awaitable[None]],
) -> None:
    from awaken_server.bootstrap import (
        build_runtime,
        default_system_config,
        open_store,
        setup_from_file,
    )
    from awaken_server.plugin_discovery import discover_plugins

    setup = setup_from_file(config_path) if config_path else default_system_config()
    store = open_store(store_url or "memory://")
    catalog = discover_plugins()
    try:
        await catalog.start(setup.system)
        runtime = build_runtime(
            setup.system, store=store, executors=setup.executors, tools=setup.tools, catalog=catalog
        )
        await serve(runtime)
    finally:
        await catalog.close()
        close = getattr(store, "close", None)
        if close is not None:
            await close()


def run_stdio_command(
    name: str,
    config_path: str | None,
    store_url: str | None,
    serve: Callable[[AgentRuntimeApi], Awaitable[None]],
) -> int:
    """Build the runtime and ``serve(runtime)`` until stdin closes; the exit code."""
    from awaken_contract.errors import AwakenError

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        asyncio.run(_with_runtime(config_path, store_url, serve))
        return 0
    except AwakenError as exc:
        print(f"awaken {name}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
