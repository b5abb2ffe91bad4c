"""Awaken's agent runtime: builder, resolve, phase loop, tools, HITL and control plane.

The book's ``awaken::X`` runtime names: ``AgentRuntimeBuilder``, ``AgentRuntime``,
``AgentRunResult``, ``CancellationToken``, ``run_to_completion`` …
"""

from awaken_contract.contract.cancellation import CancellationToken
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import ToolExecutionMode
from awaken_contract.plugin import PhaseHook

from awaken_runtime.builder import AgentRuntimeBuilder
from awaken_runtime.execution.executor import (
    DecisionReplayPolicy,
    ParallelToolExecutor,
    SequentialToolExecutor,
    ToolExecutor,
)
from awaken_runtime.loop_runner import (
    AgentLoopParams,
    AgentRunResult,
    LoopStatePlugin,
    build_agent_env,
    run_agent_loop,
)
from awaken_runtime.registry import AgentResolver, ModelEntry, RegistryResolver, ResolvedAgent
from awaken_runtime.runtime import AgentRuntime, approve_all, run_to_completion

__all__ = [
    "AgentLoopParams",
    "AgentResolver",
    "AgentRunResult",
    "AgentRuntime",
    "AgentRuntimeBuilder",
    "CancellationToken",
    "DecisionReplayPolicy",
    "LoopStatePlugin",
    "ModelEntry",
    "ParallelToolExecutor",
    "PhaseHook",
    "RegistryResolver",
    "ResolvedAgent",
    "RunRequest",
    "SequentialToolExecutor",
    "ToolExecutionMode",
    "ToolExecutor",
    "approve_all",
    "build_agent_env",
    "run_agent_loop",
    "run_to_completion",
]
