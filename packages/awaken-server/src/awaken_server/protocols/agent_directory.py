"""Which agents a server exposes to protocol clients (A2A cards, MCP tools, ACP sessions).

Reads the runtime's agent registry: local agents are those without an ``endpoint`` (remote
agents are only delegates). "Runnable" means the runtime can resolve the agent.
"""

from __future__ import annotations

from typing import Any

from awaken_contract.errors import AwakenError
from awaken_contract.registry_spec import AgentSpec

__all__ = ["agent_spec", "default_agent", "is_runnable", "local_agent_ids"]


def _specs(runtime: Any) -> dict[str, AgentSpec]:
    registries = getattr(runtime, "registries", None)
    agents = getattr(registries, "agents", None)
    if agents is None:
        return {}
    return dict(agents.items())


def agent_spec(runtime: Any, agent_id: str) -> AgentSpec | None:
    """The registered spec of ``agent_id``."""
    return _specs(runtime).get(agent_id)


def local_agent_ids(runtime: Any) -> list[str]:
    """Ids of the registered local agents, sorted."""
    return sorted(i for i, spec in _specs(runtime).items() if spec.endpoint is None)


def is_runnable(runtime: Any, agent_id: str) -> bool:
    """True when ``agent_id`` is a local agent the runtime resolves."""
    spec = agent_spec(runtime, agent_id)
    if spec is None or spec.endpoint is not None:
        return False
    try:
        runtime.resolve(agent_id)
    except AwakenError:
        return False
    return True


def default_agent(runtime: Any, preferred: str = "default") -> str | None:
    """``preferred`` when runnable, else the alphabetically first runnable agent."""
    if is_runnable(runtime, preferred):
        return preferred
    for agent_id in local_agent_ids(runtime):
        if is_runnable(runtime, agent_id):
            return agent_id
    return None
