"""``HandoffPlugin`` (``agent_handoff``): switch agent persona inside one run.

Its sync hook runs at RunStart and StepEnd (safe boundaries): a pending ``requested_agent`` is
promoted to ``active_agent`` and published in ``__runtime.active_agent``; the loop then switches
to that agent before the next step — same thread, run and messages; the target's spec, model,
tools and plugins. A target named in ``overlays`` is the base agent with that
:class:`AgentOverlay` applied; any other target is resolved as a registered agent.
"""

from __future__ import annotations

from collections.abc import Mapping

from awaken_contract.model import Phase
from awaken_contract.plugin import (
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
)
from awaken_contract.state import StateCommand

from awaken_runtime.extensions.handoff.state import (
    ActivateHandoff,
    ActiveAgentIdKey,
    ActiveAgentKey,
)
from awaken_runtime.extensions.handoff.tool import HandoffTool
from awaken_runtime.extensions.handoff.types import AgentOverlay

__all__ = ["HANDOFF_PLUGIN_ID", "HandoffPlugin", "HandoffSyncHook"]

HANDOFF_PLUGIN_ID = "agent_handoff"


class HandoffSyncHook(PhaseHook):
    """Promote a requested agent and keep ``__runtime.active_agent`` in sync."""

    async def run(self, ctx: PhaseContext) -> StateCommand:
        command = StateCommand()
        state = ctx.snapshot.get(ActiveAgentKey)
        published = ctx.snapshot.get(ActiveAgentIdKey)
        if state is None:
            return command
        requested = state.requested_agent
        if requested is not None:
            command.update(ActiveAgentKey, ActivateHandoff(requested))
            if published != requested:
                command.update(ActiveAgentIdKey, requested)
        elif published != state.active_agent:
            command.update(ActiveAgentIdKey, state.active_agent)
        return command


class HandoffPlugin(Plugin):
    """Registers the handoff keys and the sync hook; holds the named overlays.

    ``HandoffPlugin({"researcher": AgentOverlay(system_prompt="…", model="fast")})``; with
    ``expose_tools=True`` the model also gets ``transfer_to_<overlay>`` tools and
    ``transfer_back``.
    """

    def __init__(
        self, overlays: Mapping[str, AgentOverlay] | None = None, *, expose_tools: bool = False
    ) -> None:
        self.overlays: dict[str, AgentOverlay] = dict(overlays or {})
        self.expose_tools = expose_tools

    def overlay(self, agent_id: str) -> AgentOverlay | None:
        """The overlay registered for ``agent_id``."""
        return self.overlays.get(agent_id)

    def with_overlay(self, agent_id: str, overlay: AgentOverlay) -> HandoffPlugin:
        """Add or replace an overlay; returns ``self``."""
        self.overlays[agent_id] = overlay
        return self

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(HANDOFF_PLUGIN_ID)

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(ActiveAgentKey)
        registrar.register_key(ActiveAgentIdKey)
        hook = HandoffSyncHook()
        name = self.descriptor().name
        registrar.register_phase_hook(name, Phase.RUN_START, hook)
        registrar.register_phase_hook(name, Phase.STEP_END, hook)
        if self.expose_tools:
            for target in self.overlays:
                tool = HandoffTool(target)
                registrar.register_tool(tool.tool_id, tool)
            back = HandoffTool(None)
            registrar.register_tool(back.tool_id, back)

    def __repr__(self) -> str:
        return f"HandoffPlugin(overlays={sorted(self.overlays)})"
