"""McpPlugin registers the registry's tools on a registrar."""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.tool import Tool, ToolCallContext, ToolResult
from awaken_contract.plugin import PluginRegistrar
from awaken_ext_mcp import MCP_PLUGIN_ID, McpPlugin, McpToolRegistryManager


class RecordingRegistrar(PluginRegistrar):
    """Collects what a plugin registers."""

    def __init__(self) -> None:
        self.tools: dict[str, Tool] = {}
        self.other: list[str] = []

    def register_key(self, key: Any, options: Any = None) -> None:
        self.other.append("key")

    def register_profile_key(self, key: Any) -> None:
        self.other.append("profile_key")

    def register_scheduled_action(self, action: Any, handler: Any) -> None:
        self.other.append("action")

    def register_effect(self, effect: Any, handler: Any) -> None:
        self.other.append("effect")

    def register_phase_hook(self, plugin_id: str, phase: Any, hook: Any) -> None:
        self.other.append("hook")

    def register_tool_gate_hook(self, plugin_id: str, hook: Any) -> None:
        self.other.append("gate")

    def register_tool(self, tool_id: str, tool: Tool) -> None:
        assert tool_id not in self.tools
        self.tools[tool_id] = tool

    def register_request_transform(self, plugin_id: str, transform: Any) -> None:
        self.other.append("transform")


async def test_plugin_registers_every_tool_of_the_snapshot(
    stdio_manager: McpToolRegistryManager,
) -> None:
    plugin = McpPlugin(stdio_manager)
    assert plugin.plugin_id == MCP_PLUGIN_ID == "mcp"
    registrar = RecordingRegistrar()
    plugin.register(registrar)
    assert sorted(registrar.tools) == stdio_manager.registry().ids()
    assert registrar.other == ["hook", "gate"]  # the per-agent server filter, no keys
    for tool_id, tool in registrar.tools.items():
        assert tool.descriptor().id == tool_id
    result = await registrar.tools["mcp__local__echo"].execute(
        {"text": "via plugin"}, ToolCallContext.test_default()
    )
    assert isinstance(result, ToolResult) and result.data == "via plugin"
    # a plugin over the registry view sees the same tools
    assert sorted(McpPlugin(stdio_manager.registry()).registry.ids()) == sorted(registrar.tools)


def _system(*servers: dict[str, Any]) -> Any:
    from awaken_contract.registry_spec import AgentSystemConfig

    return AgentSystemConfig.model_validate({"mcp_servers": list(servers)})


def _stdio(name: str) -> dict[str, Any]:
    import sys

    from .conftest import SERVER_SCRIPT

    return {"id": name, "transport": "stdio", "command": sys.executable, "args": [SERVER_SCRIPT]}


async def test_a_hosted_plugin_connects_the_system_servers_and_reports_them() -> None:
    from awaken_contract.host import HostedPlugin

    plugin = McpPlugin()
    assert isinstance(plugin, HostedPlugin)
    assert plugin.status() == {"servers": [], "tools": []}
    registrar = RecordingRegistrar()
    plugin.register(registrar)  # before start: no tools, the filter only
    assert registrar.tools == {}
    try:
        await plugin.start(_system(_stdio("local")))
        first = plugin.registry
        await plugin.start(_system(_stdio("local")))  # unchanged: same connections
        assert plugin.registry is first
        (server,) = plugin.status()["servers"]  # type: ignore[misc]
        assert server["state"] == "connected" and "mcp__local__echo" in server["tools"]
        await plugin.start(_system(_stdio("local"), _stdio("second")))  # changed: reconnect
        assert [s["id"] for s in plugin.status()["servers"]] == ["local", "second"]  # type: ignore[index, union-attr]
        assert "mcp__second__echo" in plugin.registry.ids()
    finally:
        await plugin.close()
    assert plugin.status() == {"servers": [], "tools": []}


async def test_an_agent_naming_servers_sees_and_may_call_only_their_tools(
    stdio_manager: McpToolRegistryManager,
) -> None:
    from awaken_contract.actions import ExcludeTool
    from awaken_contract.model import Phase
    from awaken_contract.plugin import PhaseContext
    from awaken_contract.registry_spec import AgentSpec
    from awaken_ext_mcp import McpAgentConfig, McpAgentConfigKey
    from awaken_ext_mcp.plugin import _HideOtherServers, _RefuseOtherServers

    plugin = McpPlugin(stdio_manager)
    everyone = AgentSpec("a")
    elsewhere = AgentSpec("b").with_config(McpAgentConfigKey, McpAgentConfig(servers=["other"]))
    local = AgentSpec("c").with_config(McpAgentConfigKey, McpAgentConfig(servers=["local"]))
    ctx = PhaseContext.test_default(Phase.BEFORE_INFERENCE)

    async def excluded(spec: AgentSpec) -> list[str]:
        command = await _HideOtherServers(plugin).run(ctx.replace(agent_spec=spec))
        return [a.payload for a in command.scheduled_actions if a.key == ExcludeTool.KEY]

    assert await excluded(everyone) == [] and await excluded(local) == []
    assert await excluded(elsewhere) == stdio_manager.registry().ids()
    gate = _RefuseOtherServers(plugin)
    call = ctx.replace(agent_spec=elsewhere, tool_name="mcp__local__echo")
    refused = await gate.run(call)
    assert refused is not None and "does not use" in str(refused)
    assert await gate.run(call.replace(agent_spec=local)) is None
