"""The runtime behind the stdio protocol commands (``awaken acp``, ``awaken mcp``).

Built like ``awaken serve`` builds it — a config file, else the environment's provider, else
the offline demo model — plus the extension plugins shipped with Awaken that the agents
name in ``plugin_ids`` (the permission extension). Logs go to stderr: stdout is the protocol.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from awaken_contract.runtime import AgentRuntimeApi

__all__ = ["run_stdio_command"]


def _extension_plugins() -> list[Any]:
    try:
        from awaken_ext_permission import PermissionPlugin
    except ImportError:
        return []
    return [PermissionPlugin()]


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

    setup = setup_from_file(config_path) if config_path else default_system_config()
    store = open_store(store_url or "memory://")
    try:
        used = {p for a in setup.system.agents for p in a.plugin_ids}
        plugins = [p for p in _extension_plugins() if p.descriptor().name in used]
        runtime = build_runtime(
            setup.system,
            store=store,
            executors=setup.executors,
            tools=setup.tools,
            plugins=plugins,
        )
        await serve(runtime)
    finally:
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
