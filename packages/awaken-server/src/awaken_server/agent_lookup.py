"""Resolve a client-named agent before anything runs: unknown → 404 ``agent not found: <id>``.

Without this, a run for an unknown agent opened its stream (200), reported an error event and
left a dead-lettered mailbox job. Routes call :func:`require_agent` before submitting.
"""

from __future__ import annotations

from awaken_contract.runtime import AgentRuntimeApi

from awaken_server.errors import NotFound

__all__ = ["require_agent"]


def require_agent(runtime: AgentRuntimeApi, agent_id: str | None) -> None:
    """Raise :class:`NotFound` unless ``runtime`` knows ``agent_id`` (``None``: nothing named).

    Other resolve failures (a missing model, say) are left to the run, which reports them.
    """
    if agent_id is not None and agent_id not in runtime.agents():
        raise NotFound(f"agent not found: {agent_id}")
