"""Tool permission rules for Awaken agents: allow, deny or ask a human before a tool runs.

```python
from awaken_ext_permission import PermissionPlugin, PermissionRulesConfig, PermissionConfigKey

config = PermissionRulesConfig.from_file("permissions.yaml")
spec = AgentSpec("ops").with_hook_filter("permission").with_config(PermissionConfigKey, config)
builder.with_plugin("permission", PermissionPlugin())
```
"""

from awaken_ext_permission.config import (
    PermissionConfigError,
    PermissionConfigKey,
    PermissionRuleEntry,
    PermissionRulesConfig,
)
from awaken_ext_permission.decision import (
    ALLOW_ALWAYS_POLICY,
    PermissionDecision,
    RememberScope,
    approve,
    deny,
)
from awaken_ext_permission.gate import (
    PERMISSION_CONFIRM_ACTION,
    PERMISSION_CONFIRM_TOOL,
    SUSPENSION_ID_PREFIX,
    PermissionGate,
    denied_reason,
    evaluate_call,
    permission_ticket,
    rejected_reason,
)
from awaken_ext_permission.plugin import PERMISSION_PLUGIN_ID, PermissionPlugin
from awaken_ext_permission.remember import RememberApprovalHook
from awaken_ext_permission.rules import (
    PatternSubject,
    PermissionEvaluation,
    PermissionRule,
    PermissionRuleScope,
    PermissionRuleset,
    PermissionRuleSource,
    PermissionSubject,
    ToolPermissionBehavior,
    ToolSubject,
    evaluate,
)
from awaken_ext_permission.state import (
    AllowTool,
    ClearTools,
    DenyTool,
    PermissionAction,
    PermissionOverrides,
    PermissionOverridesKey,
    PermissionPolicy,
    PermissionPolicyKey,
    PutRule,
    RemoveRule,
    RemoveTool,
    ReplaceDefinitionRules,
    SetDefault,
    SetRule,
    SetTool,
    allow_tool,
    apply_to_rules,
    clear_tools,
    decode_action,
    deny_tool,
    effective_ruleset,
    grant_rule_override,
    grant_tool_override,
    remove_rule,
    remove_tool,
    set_default_behavior,
    set_rule,
)
from awaken_ext_permission.tool_filter import PermissionToolFilter

__all__ = [
    "ALLOW_ALWAYS_POLICY",
    "PERMISSION_CONFIRM_ACTION",
    "PERMISSION_CONFIRM_TOOL",
    "PERMISSION_PLUGIN_ID",
    "SUSPENSION_ID_PREFIX",
    "AllowTool",
    "ClearTools",
    "DenyTool",
    "PatternSubject",
    "PermissionAction",
    "PermissionConfigError",
    "PermissionConfigKey",
    "PermissionDecision",
    "PermissionEvaluation",
    "PermissionGate",
    "PermissionOverrides",
    "PermissionOverridesKey",
    "PermissionPlugin",
    "PermissionPolicy",
    "PermissionPolicyKey",
    "PermissionRule",
    "PermissionRuleEntry",
    "PermissionRuleScope",
    "PermissionRuleSource",
    "PermissionRulesConfig",
    "PermissionRuleset",
    "PermissionSubject",
    "PermissionToolFilter",
    "PutRule",
    "RememberApprovalHook",
    "RememberScope",
    "RemoveRule",
    "RemoveTool",
    "ReplaceDefinitionRules",
    "SetDefault",
    "SetRule",
    "SetTool",
    "ToolPermissionBehavior",
    "ToolSubject",
    "allow_tool",
    "apply_to_rules",
    "approve",
    "clear_tools",
    "decode_action",
    "denied_reason",
    "deny",
    "deny_tool",
    "effective_ruleset",
    "evaluate",
    "evaluate_call",
    "grant_rule_override",
    "grant_tool_override",
    "permission_ticket",
    "rejected_reason",
    "remove_rule",
    "remove_tool",
    "set_default_behavior",
    "set_rule",
]
