"""Delegation: other agents offered to the model as ``agent_run_<id>`` tools.

The resolver creates one :class:`AgentTool` per id in ``AgentSpec.delegates``; local delegates
run in-process through :class:`LocalBackend`. Sub-runs are linked to their parent by
``parent_run_id`` / ``parent_tool_call_id``; :func:`observe_sub_runs` exposes their events.
"""

from awaken_runtime.extensions.delegation.backend import AgentBackend, LocalBackend
from awaken_runtime.extensions.delegation.sink import (
    ProgressForwardingSink,
    current_sub_run_observer,
    observe_sub_runs,
)
from awaken_runtime.extensions.delegation.tool import (
    AGENT_TOOL_PREFIX,
    MAX_DELEGATION_DEPTH,
    AgentTool,
    agent_tool_id,
    delegate_description,
)
from awaken_runtime.extensions.delegation.types import (
    DelegateOutput,
    DelegateRunResult,
    DelegateRunStatus,
    DelegateStatus,
)

__all__ = [
    "AGENT_TOOL_PREFIX",
    "MAX_DELEGATION_DEPTH",
    "AgentBackend",
    "AgentTool",
    "DelegateOutput",
    "DelegateRunResult",
    "DelegateRunStatus",
    "DelegateStatus",
    "LocalBackend",
    "ProgressForwardingSink",
    "agent_tool_id",
    "current_sub_run_observer",
    "delegate_description",
    "observe_sub_runs",
]
