"""Conversion of MCP ``tools/call`` results into Awaken tool results.

A result is handled as JSON data (``CallToolResult`` dumped by alias), so the conversion does not
depend on the SDK's model classes:

* ``isError: true`` → :class:`ExecutionFailed` (``Server error: <text>``), or
  :class:`ToolNotFound` when the server reports ``Unknown tool: <name>``;
* content made only of plain text items (no ``annotations`` / ``_meta``) → ``data`` is the texts
  joined by ``\\n`` (``structuredContent``, when present, is kept in metadata);
* anything else (images, audio, embedded resources, resource links) → ``data`` is the whole
  result JSON (``content``, ``structuredContent``, ``isError``), items kept in MCP's shape.

Every success carries metadata ``mcp.server`` / ``mcp.tool`` plus ``mcp.result.content`` and
``mcp.result.structuredContent`` when present.
"""

from __future__ import annotations

import json
from typing import Any

from awaken_contract.contract.tool import ToolResult
from awaken_contract.errors import ExecutionFailed, ToolError, ToolNotFound

__all__ = [
    "META_RESULT_CONTENT",
    "META_RESULT_STRUCTURED",
    "META_SERVER",
    "META_TOOL",
    "META_TRANSPORT",
    "call_result_to_tool_result",
    "error_text",
    "is_plain_text",
    "tool_error_for",
]

META_SERVER = "mcp.server"
META_TOOL = "mcp.tool"
META_TRANSPORT = "mcp.transport"
META_RESULT_CONTENT = "mcp.result.content"
META_RESULT_STRUCTURED = "mcp.result.structuredContent"

_UNKNOWN_TOOL_PREFIX = "Unknown tool:"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def is_plain_text(item: Any) -> bool:
    """A ``text`` content item without ``annotations`` or ``_meta``."""
    return (
        isinstance(item, dict)
        and item.get("type") == "text"
        and isinstance(item.get("text"), str)
        and not item.get("annotations")
        and not item.get("_meta")
    )


def error_text(result: dict[str, Any]) -> str:
    """The text of an ``isError`` result: its text items joined by ``\\n``, else the JSON of
    ``structuredContent``, else the JSON of ``content``, else ``Unknown error``."""
    content = result.get("content") or []
    texts = [
        item["text"]
        for item in content
        if isinstance(item, dict)
        and item.get("type") == "text"
        and isinstance(item.get("text"), str)
    ]
    if texts:
        return "\n".join(texts)
    if result.get("structuredContent") is not None:
        return _compact(result["structuredContent"])
    if content:
        return _compact(content)
    return "Unknown error"


def _result_json(result: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {"content": result.get("content") or []}
    if result.get("structuredContent") is not None:
        data["structuredContent"] = result["structuredContent"]
    if "isError" in result and result["isError"] is not None:
        data["isError"] = result["isError"]
    return data


def call_result_to_tool_result(
    result: dict[str, Any], *, tool_id: str, server: str, tool: str
) -> ToolResult:
    """Turn a ``CallToolResult`` (JSON) into a success :class:`ToolResult` named ``tool_id``.

    Raises a :class:`ToolError` when the server flagged the result with ``isError``.
    """
    if result.get("isError"):
        raise tool_error_for(error_text(result), tool)
    content = result.get("content") or []
    structured = result.get("structuredContent")
    if all(is_plain_text(item) for item in content):
        data: Any = "\n".join(item["text"] for item in content)
    else:
        data = _result_json(result)
    out = ToolResult.success(tool_id, data)
    out.with_metadata(META_SERVER, server).with_metadata(META_TOOL, tool)
    if content:
        out.with_metadata(META_RESULT_CONTENT, content)
    if structured is not None:
        out.with_metadata(META_RESULT_STRUCTURED, structured)
    return out


def tool_error_for(text: str, tool: str) -> ToolError:
    """The tool error for a server-side failure text."""
    if text.startswith(_UNKNOWN_TOOL_PREFIX):
        return ToolNotFound(tool)
    return ExecutionFailed(f"Server error: {text}")
