"""``McpToolRegistry``: a read view of the tools an :class:`McpToolRegistryManager` publishes."""

from __future__ import annotations

from typing import Protocol

from awaken_contract.registry_spec import McpTransport

from awaken_ext_mcp.health import McpRefreshHealth
from awaken_ext_mcp.tool import McpTool

__all__ = ["McpToolRegistry", "ToolSource"]


class ToolSource(Protocol):
    """What an :class:`McpToolRegistry` reads (the ``McpToolRegistryManager``)."""

    @property
    def version(self) -> int:
        """Snapshot version."""
        ...

    def tools(self) -> dict[str, McpTool]:
        """The current tools by id."""
        ...

    def servers(self) -> list[tuple[str, McpTransport]]:
        """``(name, transport)`` of every server."""
        ...

    def server_health(self, name: str) -> McpRefreshHealth:
        """Health of one server."""
        ...


class McpToolRegistry:
    """The manager's current tool snapshot; every read sees the latest refresh."""

    def __init__(self, manager: ToolSource) -> None:
        self._manager = manager

    def __len__(self) -> int:
        return len(self._manager.tools())

    @property
    def is_empty(self) -> bool:
        """No tools."""
        return len(self) == 0

    def get(self, tool_id: str) -> McpTool | None:
        """The tool with this id, or ``None``."""
        return self._manager.tools().get(tool_id)

    def ids(self) -> list[str]:
        """Tool ids, sorted."""
        return sorted(self._manager.tools())

    def snapshot(self) -> dict[str, McpTool]:
        """``{id: tool}`` at this moment."""
        return self._manager.tools()

    @property
    def version(self) -> int:
        """Snapshot version (increments on every rebuild)."""
        return self._manager.version

    def server_health(self, name: str) -> McpRefreshHealth:
        """Health of one server."""
        return self._manager.server_health(name)

    def servers(self) -> list[tuple[str, McpTransport]]:
        """``(name, transport)`` of every server."""
        return self._manager.servers()

    def __contains__(self, tool_id: object) -> bool:
        return isinstance(tool_id, str) and tool_id in self._manager.tools()
