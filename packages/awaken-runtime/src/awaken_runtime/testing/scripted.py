"""Step builders for :class:`~awaken_runtime.engine.mock.ScriptedLlm` beyond the engine's."""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.message import ToolCall

from awaken_runtime.engine.mock import tool_step

__all__ = ["tool_call_step"]


def tool_call_step(
    call_id: str, name: str, arguments: dict[str, Any] | None = None, text: str = ""
) -> StreamResult:
    """A step calling one tool: ``tool_call_step("c1", "get_weather", {"city": "Tokyo"})``."""
    return tool_step([ToolCall(call_id, name, dict(arguments or {}))], text)
