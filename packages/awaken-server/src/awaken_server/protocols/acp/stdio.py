"""``awaken acp``: serve one agent over the Agent Client Protocol on stdin/stdout.

stdout carries JSON-RPC only; logs go to stderr. The runtime is built like ``awaken serve``
builds it (config file or the environment's provider, else the offline demo model), with the
permission extension registered when installed so ``tool:PermissionConfirm`` suspensions
become ACP permission requests.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from acp import run_agent

from awaken_server.protocols.acp.agent import AwakenAcpAgent

__all__ = ["acp_main", "serve_acp_stdio"]

_log = logging.getLogger("awaken.acp")


async def serve_acp_stdio(runtime: Any, agent_id: str | None = None) -> None:
    """Speak ACP on this process's stdin/stdout until stdin closes."""
    agent: Any = AwakenAcpAgent(runtime, agent_id)  # structurally an ``acp.Agent``
    await run_agent(agent)


def _extension_plugins() -> list[Any]:
    try:
        from awaken_ext_permission import PermissionPlugin
    except ImportError:
        return []
    return [PermissionPlugin()]


async def _run(config_path: str | None, store_url: str | None, agent_id: str | None) -> int:
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
        await serve_acp_stdio(runtime, agent_id)
        return 0
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            await close()


def acp_main(config_path: str | None, store_url: str | None, agent_id: str | None) -> int:
    """Entry point of ``awaken acp [--config FILE] [--store URL] [--agent ID]``."""
    import asyncio

    from awaken_contract.errors import AwakenError

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        return asyncio.run(_run(config_path, store_url, agent_id))
    except AwakenError as exc:
        print(f"awaken acp: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
