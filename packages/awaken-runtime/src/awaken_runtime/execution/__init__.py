"""Tool execution: executors, decision replay policy and the per-step tool pipeline."""

from awaken_contract.contract.tool import ToolExecutionMode

from awaken_runtime.execution.context import ToolContext
from awaken_runtime.execution.executor import (
    DecisionReplayPolicy,
    ParallelToolExecutor,
    SequentialToolExecutor,
    ToolExecutionResult,
    ToolExecutor,
    execute_single_tool,
    executor_for_mode,
)
from awaken_runtime.execution.pipeline import INTERRUPTED_MESSAGE, ToolPipeline
from awaken_runtime.execution.resume import prepare_resume

__all__ = [
    "INTERRUPTED_MESSAGE",
    "DecisionReplayPolicy",
    "ParallelToolExecutor",
    "SequentialToolExecutor",
    "ToolContext",
    "ToolExecutionMode",
    "ToolExecutionResult",
    "ToolExecutor",
    "ToolPipeline",
    "execute_single_tool",
    "executor_for_mode",
    "prepare_resume",
]
