"""The permission plugin's hooks and registration, driven directly through the contract."""

from __future__ import annotations

from typing import Any

import msgspec
from awaken_contract.actions import ExcludeTool, InterceptBlock, InterceptSuspend
from awaken_contract.contract.suspension import ToolCallResume
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    InferenceRequestTransform,
    PhaseContext,
    PluginRegistrar,
    ToolGateHook,
)
from awaken_contract.registry_spec import AgentSpec
from awaken_contract.state import MutationBatch, Snapshot, StateKeyOptions, StateMap
from awaken_ext_permission import (
    AllowTool,
    PermissionConfigKey,
    PermissionGate,
    PermissionOverridesKey,
    PermissionPlugin,
    PermissionPolicy,
    PermissionPolicyKey,
    PermissionRulesConfig,
    PermissionToolFilter,
    RememberApprovalHook,
    SetRule,
    ToolPermissionBehavior,
    approve,
    deny,
)

RULES = PermissionRulesConfig.from_str(
    '{"default_behavior":"ask","rules":['
    '{"tool":"read_file","behavior":"allow"},'
    '{"tool":"delete_file","behavior":"deny"},'
    '{"tool":"Bash(rm *)","behavior":"deny"},'
    '{"tool":"Bash(npm *)","behavior":"allow"}]}'
)


def policy_state(config: PermissionRulesConfig = RULES, *extra: Any) -> dict[str, Any]:
    plugin = PermissionPlugin()
    batch = MutationBatch()
    plugin.on_activate(AgentSpec("a").with_config(PermissionConfigKey, config), batch)
    return {"permission_policy": apply(batch, {})["permission_policy"], **dict(extra)}


def apply(batch: MutationBatch, values: dict[str, Any]) -> dict[str, Any]:
    values = dict(values)
    for key_cls, key, update in batch.ops:
        assert key_cls is not None
        values[key] = key_cls.apply(values.get(key, key_cls.default()), update)
    return values


def gate_ctx(
    values: dict[str, Any],
    tool: str | None,
    args: Any,
    *,
    call_id: str | None = "c1",
    resume: ToolCallResume | None = None,
    phase: Phase = Phase.TOOL_GATE,
) -> PhaseContext:
    return PhaseContext.test_default(phase).replace(
        snapshot=Snapshot(1, StateMap(values)),
        tool_name=tool,
        tool_call_id=call_id,
        tool_args=args,
        resume_input=resume,
    )


async def test_gate_allow_deny_ask() -> None:
    gate = PermissionGate()
    values = policy_state()
    assert await gate.run(gate_ctx(values, "read_file", {"path": "a"})) is None
    assert await gate.run(gate_ctx(values, "Bash", {"command": "npm i"})) is None
    blocked = await gate.run(gate_ctx(values, "Bash", {"command": "rm -rf /"}))
    assert blocked == InterceptBlock("Tool 'Bash' denied by permission rules")
    suspended = await gate.run(gate_ctx(values, "Bash", {"command": "yarn add x"}))
    assert isinstance(suspended, InterceptSuspend)
    assert suspended.to_json_value() == {
        "Suspend": {
            "suspension": {
                "id": "perm_c1",
                "action": "tool:PermissionConfirm",
                "message": "Permission required for tool 'Bash'",
                "parameters": {"command": "yarn add x"},
            },
            "pending": {
                "id": "perm_c1",
                "name": "permission_confirm",
                "arguments": {"command": "yarn add x"},
            },
            "resume_mode": "replay_tool_call",
        }
    }


async def test_gate_edge_cases() -> None:
    gate = PermissionGate()
    values = policy_state()
    assert await gate.run(gate_ctx(values, None, None)) is None
    no_id = await gate.run(gate_ctx(values, "other", None, call_id=None))
    assert isinstance(no_id, InterceptSuspend) and no_id.ticket.suspension.id == "perm_"
    # without any permission state the default is ask
    assert isinstance(await gate.run(gate_ctx({}, "x", {})), InterceptSuspend)


async def test_gate_on_replay() -> None:
    gate = PermissionGate()
    values = policy_state()
    # an approved replay of an "ask" call runs
    assert await gate.run(gate_ctx(values, "other", {}, resume=approve())) is None
    assert await gate.run(gate_ctx(values, "other", {}, resume=ToolCallResume.resume(True))) is None
    # deny applies even to a resumed call
    denied = await gate.run(gate_ctx(values, "delete_file", {}, resume=approve()))
    assert isinstance(denied, InterceptBlock)
    # an explicit "approved: false" in a resume blocks with the human's reason
    rejected = await gate.run(
        gate_ctx(values, "other", {}, resume=ToolCallResume.resume({"approved": False}))
    )
    assert rejected == InterceptBlock("Tool 'other' was not approved")
    # a cancel input is not an approval: ask again
    assert isinstance(
        await gate.run(gate_ctx(values, "other", {}, resume=deny("no"))), InterceptSuspend
    )


async def test_run_overrides_grant_for_the_run() -> None:
    values = policy_state()
    overrides = PermissionOverridesKey.apply(PermissionOverridesKey.default(), AllowTool("other"))
    values["permission_overrides"] = overrides
    assert await PermissionGate().run(gate_ctx(values, "other", {})) is None


async def test_tool_filter_excludes_unconditional_denies() -> None:
    values = policy_state()
    command = await PermissionToolFilter().run(
        gate_ctx(values, None, None, phase=Phase.BEFORE_INFERENCE)
    )
    assert [(a.key, a.payload) for a in command.scheduled_actions] == [
        (ExcludeTool.KEY, "delete_file")
    ]
    empty = await PermissionToolFilter().run(gate_ctx({}, None, None))
    assert empty.is_empty


async def test_remembered_approval_for_the_thread() -> None:
    hook = RememberApprovalHook()
    values = policy_state()
    ctx = gate_ctx(values, "other", {"x": 1}, resume=approve(remember=True))
    command = await hook.run(ctx.with_phase(Phase.BEFORE_TOOL_EXECUTE))
    assert [(key, update) for _, key, update in command.patch.ops] == [
        ("permission_policy", AllowTool("other"))
    ]
    after = apply(command.patch, values)
    assert await PermissionGate().run(gate_ctx(after, "other", {"x": 2})) is None


async def test_remembered_pattern_and_session_scope() -> None:
    hook = RememberApprovalHook()
    values = policy_state()
    pattern = await hook.run(
        gate_ctx(
            values,
            "Bash",
            {"command": "git status"},
            resume=approve(remember=True, pattern="Bash(git *)"),
        )
    )
    assert [(k, u) for _, k, u in pattern.patch.ops] == [
        ("permission_policy", SetRule("Bash(git *)", ToolPermissionBehavior.ALLOW))
    ]
    session = await hook.run(
        gate_ctx(values, "other", {}, resume=approve(remember=True, scope="session"))
    )
    assert [(k, u) for _, k, u in session.patch.ops] == [
        ("permission_overrides", AllowTool("other"))
    ]


async def test_nothing_remembered_without_the_flag_or_for_allowed_calls() -> None:
    hook = RememberApprovalHook()
    values = policy_state()
    assert (await hook.run(gate_ctx(values, "other", {}, resume=approve()))).is_empty
    assert (await hook.run(gate_ctx(values, "other", {}, resume=deny()))).is_empty
    assert (await hook.run(gate_ctx(values, "other", {}))).is_empty
    allowed = gate_ctx(values, "read_file", {}, resume=approve(remember=True))
    assert (await hook.run(allowed)).is_empty


async def test_acp_allow_always_is_remembered() -> None:
    values = policy_state()
    result = {"kind": "permission_decision", "approved": True, "policy": "allow_always"}
    ctx = gate_ctx(values, "other", {}, resume=ToolCallResume.resume(result))
    command = await RememberApprovalHook().run(ctx)
    assert [(k, u) for _, k, u in command.patch.ops] == [("permission_policy", AllowTool("other"))]
    once = {"kind": "permission_decision", "approved": True, "policy": "allow_once"}
    ctx = gate_ctx(values, "other", {}, resume=ToolCallResume.resume(once))
    assert (await RememberApprovalHook().run(ctx)).is_empty
    assert await PermissionGate().run(ctx) is None


def test_decisions_json() -> None:
    assert approve(remember=True).result == {"approved": True, "remember": True}
    assert approve().result == {"approved": True}
    rejected = deny("too risky")
    assert rejected.action == "cancel" and rejected.reason == "too risky"
    assert rejected.result == {"approved": False, "reason": "too risky"}


def test_on_activate_section_then_plugin_config_then_nothing() -> None:
    plugin = PermissionPlugin(PermissionRulesConfig.from_str('{"default_behavior":"deny"}'))
    from_plugin = apply_on_activate(plugin, AgentSpec("a"))
    assert from_plugin["permission_policy"].default_behavior is ToolPermissionBehavior.DENY
    from_section = apply_on_activate(plugin, AgentSpec("a").with_config(PermissionConfigKey, RULES))
    policy: PermissionPolicy = from_section["permission_policy"]
    assert policy.default_behavior is ToolPermissionBehavior.ASK
    assert len(policy.rules) == 4
    assert apply_on_activate(PermissionPlugin(), AgentSpec("a")) == {}


def test_on_activate_replaces_configured_rules_and_keeps_remembered_ones() -> None:
    values = policy_state()
    values = apply(MutationBatch().update(PermissionPolicyKey, AllowTool("other")), values)
    smaller = PermissionRulesConfig.from_str('{"rules":[{"tool":"read_file","behavior":"allow"}]}')
    batch = MutationBatch()
    PermissionPlugin().on_activate(AgentSpec("a").with_config(PermissionConfigKey, smaller), batch)
    policy = apply(batch, values)["permission_policy"]
    assert sorted(policy.rules) == ["pattern:read_file", "tool:other"]


def apply_on_activate(plugin: PermissionPlugin, spec: AgentSpec) -> dict[str, Any]:
    batch = MutationBatch()
    plugin.on_activate(spec, batch)
    return apply(batch, {})


class RecordingRegistrar(PluginRegistrar):
    def __init__(self) -> None:
        self.keys: list[tuple[str, StateKeyOptions | None]] = []
        self.hooks: list[tuple[str, Phase, type]] = []
        self.gates: list[tuple[str, type]] = []

    def register_key(self, key: Any, options: StateKeyOptions | None = None) -> None:
        self.keys.append((key.KEY, options))

    def register_profile_key(self, key: type[Any]) -> None:
        raise AssertionError("not used")

    def register_scheduled_action(self, action: Any, handler: Any) -> None:
        raise AssertionError("not used")

    def register_effect(self, effect: Any, handler: Any) -> None:
        raise AssertionError("not used")

    def register_phase_hook(self, plugin_id: str, phase: Phase, hook: Any) -> None:
        self.hooks.append((plugin_id, phase, type(hook)))

    def register_tool_gate_hook(self, plugin_id: str, hook: ToolGateHook) -> None:
        self.gates.append((plugin_id, type(hook)))

    def register_tool(self, tool_id: str, tool: Any) -> None:
        raise AssertionError("not used")

    def register_request_transform(
        self, plugin_id: str, transform: InferenceRequestTransform
    ) -> None:
        raise AssertionError("not used")


def test_register_declares_keys_hooks_and_schema() -> None:
    plugin = PermissionPlugin()
    registrar = RecordingRegistrar()
    plugin.register(registrar)
    assert plugin.plugin_id == "permission"
    assert [(k, o.persistent if o else None) for k, o in registrar.keys] == [
        ("permission_policy", True),
        ("permission_overrides", False),
    ]
    assert registrar.hooks == [
        ("permission", Phase.BEFORE_INFERENCE, PermissionToolFilter),
        ("permission", Phase.BEFORE_TOOL_EXECUTE, RememberApprovalHook),
    ]
    assert registrar.gates == [("permission", PermissionGate)]
    (schema,) = plugin.config_schemas()
    assert schema.key == "permission"
    assert msgspec.to_builtins(schema)["json_schema"]["title"] == "PermissionRulesConfig"
