"""``McpPlugin``: registers the MCP tools of a manager (or registry) with an agent.

Given a manager or registry in code, it offers that registry's tools. Built with no argument
(the ``awaken.plugins`` entry point), the host starts it with the system config: it connects the
``mcp_servers`` of the YAML / config API (reconnecting when they change), reports each server's
state in ``status()`` and closes the connections at shutdown. An agent's ``mcp`` section may
name the servers it uses (``servers: [files]``); tools of other servers are hidden from it and
refused.
"""

from __future__ import annotations

from awaken_contract.actions import ExcludeTool, InterceptSetResult, ToolInterceptPayload
from awaken_contract.contract.tool import ToolResult
from awaken_contract.host import JsonValue
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    ConfigSchema,
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
    ToolGateHook,
)
from awaken_contract.registry_spec import AgentSpec, AgentSystemConfig, PluginConfigKey
from awaken_contract.state import StateCommand
from pydantic import BaseModel, ConfigDict

from awaken_ext_mcp.config import McpServerConnectionConfig
from awaken_ext_mcp.manager import McpToolRegistryManager
from awaken_ext_mcp.registry import McpToolRegistry

__all__ = ["MCP_PLUGIN_ID", "McpAgentConfig", "McpAgentConfigKey", "McpPlugin"]

MCP_PLUGIN_ID = "mcp"


class McpAgentConfig(BaseModel):
    """Section ``mcp``: the servers whose tools the agent gets (``None``: every server)."""

    model_config = ConfigDict(extra="forbid")

    servers: list[str] | None = None


class McpAgentConfigKey(PluginConfigKey[McpAgentConfig]):
    """Agent-spec section ``mcp`` → :class:`McpAgentConfig`."""

    KEY = "mcp"
    CONFIG = McpAgentConfig


def _hidden(registry: McpToolRegistry | None, spec: AgentSpec) -> set[str]:
    """Tool ids of servers the agent does not name."""
    servers = spec.config(McpAgentConfigKey).servers
    if registry is None or servers is None:
        return set()
    wanted = set(servers)
    return {tool_id for tool_id, tool in registry.snapshot().items() if tool.server not in wanted}


class _HideOtherServers(PhaseHook):
    def __init__(self, plugin: McpPlugin) -> None:
        self.plugin = plugin

    async def run(self, ctx: PhaseContext) -> StateCommand:
        command = StateCommand()
        for tool_id in sorted(_hidden(self.plugin.registry_or_none, ctx.agent_spec)):
            command.schedule_action(ExcludeTool, tool_id)
        return command


class _RefuseOtherServers(ToolGateHook):
    def __init__(self, plugin: McpPlugin) -> None:
        self.plugin = plugin

    async def run(self, ctx: PhaseContext) -> ToolInterceptPayload | None:
        tool = ctx.tool_name
        if tool is None or tool not in _hidden(self.plugin.registry_or_none, ctx.agent_spec):
            return None
        return InterceptSetResult(
            ToolResult.error(tool, f"tool {tool} belongs to an MCP server this agent does not use")
        )


class McpPlugin(Plugin):
    """Plugin ``mcp``: on ``register`` it offers every tool of the registry snapshot taken at
    that moment (each agent resolution takes a fresh one, so a refresh shows up in the next
    run while in-flight runs keep their tools)."""

    def __init__(self, registry: McpToolRegistryManager | McpToolRegistry | None = None) -> None:
        self._manager: McpToolRegistryManager | None = None
        self._owned: tuple[McpServerConnectionConfig, ...] | None = None
        if isinstance(registry, McpToolRegistryManager):
            self._manager = registry
            registry = registry.registry()
        self._registry = registry

    def descriptor(self) -> PluginDescriptor:
        """``mcp``."""
        return PluginDescriptor(MCP_PLUGIN_ID)

    @property
    def registry(self) -> McpToolRegistry:
        """The registry whose tools this plugin registers."""
        if self._registry is None:
            raise RuntimeError("McpPlugin has no registry yet: give one or start() it")
        return self._registry

    @property
    def registry_or_none(self) -> McpToolRegistry | None:
        """The registry, ``None`` before a host started the plugin."""
        return self._registry

    def register(self, registrar: PluginRegistrar) -> None:
        """Register every current MCP tool under its id, and the per-agent server filter."""
        if self._registry is not None:
            for tool_id, tool in sorted(self._registry.snapshot().items()):
                registrar.register_tool(tool_id, tool)
        registrar.register_phase_hook(
            MCP_PLUGIN_ID, Phase.BEFORE_INFERENCE, _HideOtherServers(self)
        )
        registrar.register_tool_gate_hook(MCP_PLUGIN_ID, _RefuseOtherServers(self))

    def config_schemas(self) -> list[ConfigSchema]:
        """The ``mcp`` section."""
        return [ConfigSchema.for_key(McpAgentConfigKey)]

    # ------------------------------------------------------------------ host lifecycle
    async def start(self, system: AgentSystemConfig) -> None:
        """Connect ``system.mcp_servers`` (unless a registry was given in code); reconnects
        only when the server list changed."""
        if self._registry is not None and self._owned is None:
            return
        configs = tuple(McpServerConnectionConfig.from_spec(s) for s in system.mcp_servers)
        if configs == self._owned:
            return
        previous = self._manager
        self._manager = await McpToolRegistryManager.connect(configs)
        self._registry = self._manager.registry()
        self._owned = configs
        if previous is not None:
            await previous.close()

    async def close(self) -> None:
        """Close the connections this plugin opened."""
        if self._owned is not None and self._manager is not None:
            await self._manager.close()
            self._manager = None
            self._registry = None
            self._owned = None

    def status(self) -> dict[str, JsonValue]:
        """``{"servers": [{"id", "transport", "state", "tools", "error"?}], "tools": [{"id",
        "name", "description"}]}``."""
        manager = self._manager
        if manager is None:
            return {"servers": [], "tools": []}
        errors = manager.connect_errors()
        tools = manager.tools()
        servers: list[JsonValue] = []
        for name, transport in manager.servers():
            server_tools: list[JsonValue] = [
                t for t, tool in sorted(tools.items()) if tool.server == name
            ]
            entry: dict[str, JsonValue] = {
                "id": name,
                "transport": transport.value,
                "state": manager.server_state(name).value,
                "tools": server_tools,
            }
            if name in errors:
                entry["error"] = errors[name]
            servers.append(entry)
        listed: list[JsonValue] = [
            {"id": d.id, "name": d.name, "description": d.description}
            for d in (tools[t].descriptor() for t in sorted(tools))
        ]
        return {"servers": servers, "tools": listed}
