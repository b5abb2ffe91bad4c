"""Which agents a server exposes to protocol clients (A2A cards, MCP tools, ACP sessions).

Reads the runtime's agent registry: local agents are those without an ``endpoint`` (remote
agents are only delegates). "Runnable" means the runtime can resolve the agent.
"""

from __future__ import annotations

from awaken_contract.registry_spec import AgentSpec
from awaken_contract.runtime import AgentRuntimeApi

__all__ = ["agent_spec", "default_agent", "is_runnable", "local_agent_ids"]


def agent_spec(runtime: AgentRuntimeApi, agent_id: str) -> AgentSpec | None:
    """The registered spec of ``agent_id``."""
    return runtime.agents().get(agent_id)


def local_agent_ids(runtime: AgentRuntimeApi) -> list[str]:
    """Ids of the registered local agents, sorted."""
    return sorted(i for i, spec in runtime.agents().items() if spec.endpoint is None)


def is_runnable(runtime: AgentRuntimeApi, agent_id: str) -> bool:
    """True when ``agent_id`` is a local agent the runtime resolves."""
    spec = agent_spec(runtime, agent_id)
    if spec is None or spec.endpoint is not None:
        return False
    return runtime.can_resolve(agent_id)


def default_agent(runtime: AgentRuntimeApi, preferred: str = "default") -> str | None:
    """``preferred`` when runnable, else the alphabetically first runnable agent."""
    if is_runnable(runtime, preferred):
        return preferred
    for agent_id in local_agent_ids(runtime):
        if is_runnable(runtime, agent_id):
            return agent_id
    return None
