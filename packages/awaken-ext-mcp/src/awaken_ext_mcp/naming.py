"""Tool ids of MCP tools: ``mcp__{server}__{tool}`` with both parts sanitised."""

from __future__ import annotations

import re

from awaken_ext_mcp.errors import McpError

__all__ = ["TOOL_ID_PREFIX", "mcp_tool_id", "sanitize_component"]

TOOL_ID_PREFIX = "mcp__"

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]+")


def sanitize_component(raw: str) -> str:
    """Map every non-ASCII-alphanumeric run to one ``_`` and strip ``_`` at both ends.

    Raises :class:`McpError` when nothing is left.
    """
    cleaned = _NOT_ALNUM.sub("_", raw).strip("_")
    if not cleaned:
        raise McpError(f"invalid tool id component after sanitization: {raw}")
    return cleaned


def mcp_tool_id(server: str, tool: str) -> str:
    """``mcp__{sanitised server}__{sanitised tool}``."""
    return f"{TOOL_ID_PREFIX}{sanitize_component(server)}__{sanitize_component(tool)}"
