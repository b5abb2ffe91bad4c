"""The runtime control plane: ``AgentRuntime``, active runs and ``run_to_completion``."""

from awaken_contract.runtime import AgentRunResult

from awaken_runtime.runtime.active_registry import ActiveRunRegistry, RunHandle
from awaken_runtime.runtime.agent_runtime import AgentRuntime
from awaken_runtime.runtime.completion import Decider, approve_all, run_to_completion

__all__ = [
    "ActiveRunRegistry",
    "AgentRunResult",
    "AgentRuntime",
    "Decider",
    "RunHandle",
    "approve_all",
    "run_to_completion",
]
