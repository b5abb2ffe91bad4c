"""Tool execution: executors, decision replay policy and the per-step tool pipeline."""

from awaken_contract.contract.tool import ToolExecutionMode

from awaken_runtime.execution.executor import (
    DecisionReplayPolicy,
    ParallelToolExecutor,
    SequentialToolExecutor,
    ToolExecutionResult,
    ToolExecutor,
    execute_single_tool,
    executor_for_mode,
)
from awaken_runtime.execution.pipeline import (
    INTERRUPTED_MESSAGE,
    ToolHost,
    ToolPipeline,
    prepare_resume,
)

__all__ = [
    "INTERRUPTED_MESSAGE",
    "DecisionReplayPolicy",
    "ParallelToolExecutor",
    "SequentialToolExecutor",
    "ToolExecutionMode",
    "ToolExecutionResult",
    "ToolExecutor",
    "ToolHost",
    "ToolPipeline",
    "execute_single_tool",
    "executor_for_mode",
    "prepare_resume",
]
