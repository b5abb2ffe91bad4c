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
    assert registrar.other == []  # no hooks, no keys
    for tool_id, tool in registrar.tools.items():
        assert tool.descriptor().id == tool_id
    result = await registrar.tools["mcp__local__echo"].execute(
        {"text": "via plugin"}, ToolCallContext.test_default()
    )
    assert isinstance(result, ToolResult) and result.data == "via plugin"
    # a plugin over the registry view sees the same tools
    assert sorted(McpPlugin(stdio_manager.registry()).registry.ids()) == sorted(registrar.tools)
