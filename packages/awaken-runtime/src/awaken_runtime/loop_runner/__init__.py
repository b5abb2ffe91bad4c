"""The agent loop runner: ``run_agent_loop(AgentLoopParams) -> AgentRunResult``."""

from awaken_runtime.loop_runner.loop import run_agent_loop
from awaken_runtime.loop_runner.params import (
    AgentLoopParams,
    AgentRunResult,
    ControlMessage,
    DecisionBatch,
    decisions_message,
    inbox_message,
)
from awaken_runtime.plugins.loop_state import LoopStatePlugin
from awaken_runtime.registry.resolved import build_agent_env

__all__ = [
    "AgentLoopParams",
    "AgentRunResult",
    "ControlMessage",
    "DecisionBatch",
    "LoopStatePlugin",
    "build_agent_env",
    "decisions_message",
    "inbox_message",
    "run_agent_loop",
]
