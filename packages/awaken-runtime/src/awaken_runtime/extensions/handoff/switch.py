"""How the loop applies a handoff: :func:`handoff_target` and :func:`resolve_handoff`.

Before each step the loop asks :func:`handoff_target` whether ``__runtime.active_agent`` names
an agent other than the current one (``None`` = the run's base agent), and if so builds the
target with :func:`resolve_handoff`: an overlay of the base agent when the base agent's
:class:`HandoffPlugin` defines one, else the registered agent of that id.
"""

from __future__ import annotations

from awaken_contract.errors import ModelNotFound
from awaken_contract.registry_spec import AgentSpec
from awaken_contract.state import Snapshot

from awaken_runtime.extensions.handoff.plugin import HandoffPlugin
from awaken_runtime.extensions.handoff.state import ActiveAgentIdKey
from awaken_runtime.extensions.handoff.types import AgentOverlay
from awaken_runtime.registry.resolved import AgentResolver, ResolvedAgent

__all__ = ["find_handoff_plugin", "handoff_target", "resolve_handoff"]


def handoff_target(snapshot: Snapshot, base_agent_id: str, current_agent_id: str) -> str | None:
    """The agent to switch to before the next step, or ``None`` to stay."""
    target = snapshot.get(ActiveAgentIdKey) or base_agent_id
    return target if target != current_agent_id else None


def find_handoff_plugin(agent: ResolvedAgent) -> HandoffPlugin | None:
    """The agent's handoff plugin, if it has one."""
    for plugin in agent.env.plugins:
        if isinstance(plugin, HandoffPlugin):
            return plugin
    return None


def resolve_handoff(resolver: AgentResolver, base: ResolvedAgent, target: str) -> ResolvedAgent:
    """Build the handoff target (raises the resolver's ``ResolveError`` on failure)."""
    if target == base.spec.id:
        return base.copy()
    plugin = find_handoff_plugin(base)
    overlay = plugin.overlay(target) if plugin is not None else None
    if overlay is None:
        return resolver.resolve(target)
    spec = overlay.apply(base.spec, target)
    resolve_spec = getattr(resolver, "resolve_spec", None)
    if callable(resolve_spec):
        agent = resolve_spec(spec)
        assert isinstance(agent, ResolvedAgent)
        return agent
    return _overlay_in_place(base, spec, overlay)


def _overlay_in_place(base: ResolvedAgent, spec: AgentSpec, overlay: AgentOverlay) -> ResolvedAgent:
    """Overlay without a registry: same executor and plugins, tools filtered by the overlay."""
    if overlay.model is not None and overlay.model != base.spec.model:
        raise ModelNotFound(overlay.model)
    tools = dict(base.tools)
    if overlay.allowed_tools is not None:
        allowed = set(overlay.allowed_tools)
        tools = {k: v for k, v in tools.items() if k in allowed}
    if overlay.excluded_tools:
        excluded = set(overlay.excluded_tools)
        tools = {k: v for k, v in tools.items() if k not in excluded}
    return ResolvedAgent(
        spec,
        base.upstream_model,
        base.llm_executor,
        tools=tools,
        tool_executor=base.tool_executor,
        env=base.env,
        plugins=base.plugins,
        model=base.model,
    )
