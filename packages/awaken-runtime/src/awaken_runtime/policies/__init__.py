"""Stop policies: decide after each step whether a run goes on.

``StopConditionPlugin(policies)`` evaluates :class:`StopPolicy` objects (built-in or custom);
``MaxRoundsPlugin(n)`` enforces ``AgentSpec.max_rounds``; :func:`policies_from_specs` builds
policies from declarative :class:`~awaken_contract.contract.lifecycle.StopConditionSpec` values.
"""

from awaken_runtime.policies.builtin import (
    ConsecutiveErrorsPolicy,
    ContentMatchPolicy,
    LoopDetectionPolicy,
    MaxCostPolicy,
    MaxRoundsPolicy,
    StopOnToolPolicy,
    TimeoutPolicy,
    TokenBudgetPolicy,
    policies_from_specs,
)
from awaken_runtime.policies.hook import (
    StopConditionHook,
    stop_termination,
    stopped_reason,
    tool_round_signature,
)
from awaken_runtime.policies.plugin import (
    MAX_ROUNDS_PLUGIN_ID,
    STOP_CONDITION_PLUGIN_ID,
    MaxRoundsPlugin,
    StopConditionPlugin,
)
from awaken_runtime.policies.policy import StopDecision, StopPolicy, StopPolicyStats
from awaken_runtime.policies.section import (
    STOP_CONDITIONS_SECTION,
    section_policies,
    stop_conditions_schema,
)
from awaken_runtime.policies.state import StopConditionStats, StopConditionStatsKey

__all__ = [
    "MAX_ROUNDS_PLUGIN_ID",
    "STOP_CONDITIONS_SECTION",
    "STOP_CONDITION_PLUGIN_ID",
    "ConsecutiveErrorsPolicy",
    "ContentMatchPolicy",
    "LoopDetectionPolicy",
    "MaxCostPolicy",
    "MaxRoundsPlugin",
    "MaxRoundsPolicy",
    "StopConditionHook",
    "StopConditionPlugin",
    "StopConditionStats",
    "StopConditionStatsKey",
    "StopDecision",
    "StopOnToolPolicy",
    "StopPolicy",
    "StopPolicyStats",
    "TimeoutPolicy",
    "TokenBudgetPolicy",
    "policies_from_specs",
    "section_policies",
    "stop_conditions_schema",
    "stop_termination",
    "stopped_reason",
    "tool_round_signature",
]
