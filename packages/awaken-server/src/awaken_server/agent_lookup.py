"""Resolve a client-named agent before anything runs: unknown → 404 ``agent not found: <id>``.

Without this, a run for an unknown agent opened its stream (200), reported an error event and
left a dead-lettered mailbox job. Routes call :func:`require_agent` before submitting.
"""

from __future__ import annotations

from typing import Any

from awaken_contract.errors import AgentNotFound, ResolveAgentNotFound

from awaken_server.errors import NotFound

__all__ = ["require_agent"]


def require_agent(runtime: Any, agent_id: str | None) -> None:
    """Raise :class:`NotFound` unless ``runtime`` resolves ``agent_id`` (``None``: nothing named).

    Other resolve failures (a missing model, say) are left to the run, which reports them.
    """
    resolve = getattr(runtime, "resolve", None)
    if agent_id is None or resolve is None:
        return
    try:
        resolve(agent_id)
    except (ResolveAgentNotFound, AgentNotFound):
        raise NotFound(f"agent not found: {agent_id}") from None
    except Exception:  # reported by the run itself, as before
        return
