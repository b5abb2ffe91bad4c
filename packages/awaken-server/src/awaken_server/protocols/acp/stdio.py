"""``awaken acp``: serve one agent over the Agent Client Protocol on stdin/stdout."""

from __future__ import annotations

from typing import Any

from acp import run_agent
from awaken_contract.runtime import AgentRuntimeApi

from awaken_server.protocols.acp.agent import AwakenAcpAgent
from awaken_server.protocols.cli_runtime import run_stdio_command

__all__ = ["acp_main", "serve_acp_stdio"]


async def serve_acp_stdio(runtime: AgentRuntimeApi, agent_id: str | None = None) -> None:
    """Speak ACP on this process's stdin/stdout until stdin closes."""
    agent: Any = AwakenAcpAgent(runtime, agent_id)  # structurally an ``acp.Agent``
    await run_agent(agent)


def acp_main(config_path: str | None, store_url: str | None, agent_id: str | None) -> int:
    """Entry point of ``awaken acp [--config FILE] [--store URL] [--agent ID]``."""

    async def serve(runtime: AgentRuntimeApi) -> None:
        await serve_acp_stdio(runtime, agent_id)

    return run_stdio_command("acp", config_path, store_url, serve)
