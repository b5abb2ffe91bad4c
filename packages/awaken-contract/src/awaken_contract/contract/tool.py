"""The tool contract: descriptors, results, the Tool base class, the call context and ``@tool``.

The concepts live in their own modules (``tool_result``, ``tool_context``, ``tool_base``,
``typed_tool``); this module is the book's path that gathers them.
"""

from __future__ import annotations

import enum

from awaken_contract.contract.tool_base import FrontEndTool, Tool
from awaken_contract.contract.tool_context import ToolCallContext
from awaken_contract.contract.tool_result import ToolDescriptor, ToolOutput, ToolResult, ToolStatus
from awaken_contract.contract.typed_tool import tool
from awaken_contract.errors import (
    Denied,
    ExecutionFailed,
    InvalidArguments,
    ToolError,
    ToolInternalError,
    ToolNotFound,
)

__all__ = [
    "Denied",
    "ExecutionFailed",
    "FrontEndTool",
    "InvalidArguments",
    "Tool",
    "ToolCallContext",
    "ToolDescriptor",
    "ToolError",
    "ToolExecutionMode",
    "ToolInternalError",
    "ToolNotFound",
    "ToolOutput",
    "ToolResult",
    "ToolStatus",
    "tool",
]


class ToolExecutionMode(enum.StrEnum):
    """How a step's tool calls are executed."""

    SEQUENTIAL = "sequential"
    PARALLEL_BATCH_APPROVAL = "parallel_batch_approval"
    PARALLEL_STREAMING = "parallel_streaming"
