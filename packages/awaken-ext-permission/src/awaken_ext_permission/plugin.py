"""The permission plugin: state keys, the tool filter, the gate and remembered approvals."""

from __future__ import annotations

from awaken_contract.model import Phase
from awaken_contract.plugin import ConfigSchema, Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.registry_spec import AgentSpec
from awaken_contract.state import MutationBatch, StateKeyOptions

from awaken_ext_permission.config import PermissionConfigKey, PermissionRulesConfig
from awaken_ext_permission.gate import PermissionGate
from awaken_ext_permission.remember import RememberApprovalHook
from awaken_ext_permission.state import (
    PermissionOverridesKey,
    PermissionPolicyKey,
    ReplaceDefinitionRules,
    SetDefault,
)
from awaken_ext_permission.tool_filter import PermissionToolFilter

#: Plugin id (use it with ``AgentSpec.with_hook_filter``).
PERMISSION_PLUGIN_ID = "permission"


class PermissionPlugin(Plugin):
    """Tool permissions with human approval (HITL).

    Rules come from the agent's ``permission`` section (:class:`PermissionConfigKey`), else
    from the ``config`` given here. When an agent activates they are written into the thread's
    ``permission_policy`` (with the default behaviour); rules added at run time — remembered
    approvals, ``allow_tool``/``set_rule`` commands — stay in the thread.
    """

    def __init__(self, config: PermissionRulesConfig | None = None) -> None:
        self.config = config

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(PERMISSION_PLUGIN_ID)

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(PermissionPolicyKey, StateKeyOptions(persistent=True))
        registrar.register_key(PermissionOverridesKey, StateKeyOptions(persistent=False))
        registrar.register_phase_hook(
            PERMISSION_PLUGIN_ID, Phase.BEFORE_INFERENCE, PermissionToolFilter()
        )
        registrar.register_phase_hook(
            PERMISSION_PLUGIN_ID, Phase.BEFORE_TOOL_EXECUTE, RememberApprovalHook()
        )
        registrar.register_tool_gate_hook(PERMISSION_PLUGIN_ID, PermissionGate())

    def config_schemas(self) -> list[ConfigSchema]:
        return [ConfigSchema.for_key(PermissionConfigKey)]

    def config_for(self, agent_spec: AgentSpec) -> PermissionRulesConfig | None:
        """The agent's ``permission`` section, else this plugin's config (``None``: neither)."""
        if agent_spec.section(PermissionConfigKey.KEY) is not None:
            return agent_spec.config(PermissionConfigKey)
        return self.config

    def on_activate(self, agent_spec: AgentSpec, patch: MutationBatch) -> None:
        config = self.config_for(agent_spec)
        if config is None:
            return
        ruleset = config.into_ruleset()
        patch.update(PermissionPolicyKey, SetDefault(ruleset.default_behavior))
        patch.update(PermissionPolicyKey, ReplaceDefinitionRules(list(ruleset.rules.values())))
