"""``McpPlugin``: registers the MCP tools of a manager (or registry) with an agent."""

from __future__ import annotations

from awaken_contract.plugin import Plugin, PluginDescriptor, PluginRegistrar

from awaken_ext_mcp.manager import McpToolRegistryManager
from awaken_ext_mcp.registry import McpToolRegistry

__all__ = ["MCP_PLUGIN_ID", "McpPlugin"]

MCP_PLUGIN_ID = "mcp"


class McpPlugin(Plugin):
    """Plugin ``mcp``: on ``register`` it offers every tool of the registry snapshot taken at
    that moment (each agent resolution takes a fresh one, so a refresh shows up in the next
    run while in-flight runs keep their tools). No hooks, no state keys."""

    def __init__(self, registry: McpToolRegistryManager | McpToolRegistry) -> None:
        if isinstance(registry, McpToolRegistryManager):
            registry = registry.registry()
        self._registry = registry

    def descriptor(self) -> PluginDescriptor:
        """``mcp``."""
        return PluginDescriptor(MCP_PLUGIN_ID)

    @property
    def registry(self) -> McpToolRegistry:
        """The registry whose tools this plugin registers."""
        return self._registry

    def register(self, registrar: PluginRegistrar) -> None:
        """Register every current MCP tool under its id."""
        for tool_id, tool in sorted(self._registry.snapshot().items()):
            registrar.register_tool(tool_id, tool)
