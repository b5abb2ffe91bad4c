"""Permission state keys, their actions (JSON shapes included) and the command helpers."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from awaken_contract.state import KeyScope, MergeStrategy, StateCommand
from awaken_ext_permission import (
    AllowTool,
    ClearTools,
    DenyTool,
    PatternSubject,
    PermissionAction,
    PermissionOverridesKey,
    PermissionPolicy,
    PermissionPolicyKey,
    PermissionRule,
    PermissionRuleScope,
    PermissionRuleSource,
    RemoveRule,
    RemoveTool,
    ReplaceDefinitionRules,
    SetDefault,
    SetRule,
    SetTool,
    ToolPermissionBehavior,
    ToolSubject,
    allow_tool,
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

ALLOW, ASK, DENY = (
    ToolPermissionBehavior.ALLOW,
    ToolPermissionBehavior.ASK,
    ToolPermissionBehavior.DENY,
)


def fold(key: Any, actions: list[PermissionAction], start: Any = None) -> Any:
    value = key.default() if start is None else start
    for action in actions:
        value = key.apply(value, action)
    return value


def test_key_declarations() -> None:
    assert PermissionPolicyKey.KEY == "permission_policy"
    assert PermissionPolicyKey.SCOPE is KeyScope.THREAD
    assert PermissionPolicyKey.MERGE is MergeStrategy.COMMUTATIVE
    assert PermissionOverridesKey.KEY == "permission_overrides"
    assert PermissionOverridesKey.SCOPE is KeyScope.RUN
    assert PermissionOverridesKey.MERGE is MergeStrategy.COMMUTATIVE
    assert PermissionPolicyKey.default() == PermissionPolicy()


def test_policy_actions() -> None:
    policy = fold(
        PermissionPolicyKey,
        [
            SetDefault(DENY),
            SetTool("a", ASK),
            AllowTool("b"),
            DenyTool("c"),
            SetRule("Bash(*)", ALLOW),
            SetRule("Bash(npm *", ALLOW),  # unparsable: ignored
            RemoveTool("a"),
        ],
    )
    assert policy.default_behavior is DENY
    assert list(policy.rules) == ["tool:b", "tool:c", "pattern:Bash"]
    assert policy.rules["pattern:Bash"] == PermissionRule(
        PatternSubject("Bash"), ALLOW, PermissionRuleScope.THREAD, PermissionRuleSource.RUNTIME
    )
    policy = fold(PermissionPolicyKey, [RemoveRule("Bash(*)"), RemoveRule("(")], policy)
    assert list(policy.rules) == ["tool:b", "tool:c"]
    policy = fold(PermissionPolicyKey, [ClearTools()], policy)
    assert policy == PermissionPolicy(DENY, {})


def test_overrides_ignore_set_default_and_mark_source_skill() -> None:
    overrides = fold(PermissionOverridesKey, [SetDefault(DENY), AllowTool("Bash")])
    assert overrides.rules["tool:Bash"].source is PermissionRuleSource.SKILL


def test_replace_definition_rules_keeps_runtime_rules() -> None:
    configured = PermissionRule(
        PatternSubject("old_*"), DENY, PermissionRuleScope.PROJECT, PermissionRuleSource.DEFINITION
    )
    policy = fold(PermissionPolicyKey, [SetRule("ls", ALLOW)])
    policy = PermissionPolicy(policy.default_behavior, {**policy.rules, configured.key: configured})
    new = PermissionRule(
        PatternSubject("new_*"), ASK, PermissionRuleScope.PROJECT, PermissionRuleSource.DEFINITION
    )
    policy = fold(PermissionPolicyKey, [ReplaceDefinitionRules([new])], policy)
    assert list(policy.rules) == ["pattern:ls", "pattern:new_*"]


def test_persisted_shapes_round_trip() -> None:
    policy = fold(PermissionPolicyKey, [SetRule("Bash(npm *)", ALLOW)])
    data = PermissionPolicyKey.encode(policy)
    assert data == {
        "default_behavior": "ask",
        "rules": {
            "pattern:Bash(npm *)": {
                "subject": {"kind": "pattern", "pattern": "Bash(npm *)"},
                "behavior": "allow",
                "scope": "thread",
                "source": "runtime",
            }
        },
    }
    assert PermissionPolicyKey.decode(data) == policy
    overrides = fold(PermissionOverridesKey, [AllowTool("x")])
    assert PermissionOverridesKey.encode(overrides) == {
        "rules": {
            "tool:x": {
                "subject": {"kind": "tool", "tool_id": "x"},
                "behavior": "allow",
                "scope": "thread",
                "source": "skill",
            }
        }
    }


@pytest.mark.parametrize(
    ("data", "action"),
    [
        (
            {"type": "set_rule", "pattern": "Bash(npm *)", "behavior": "allow"},
            SetRule("Bash(npm *)", ALLOW),
        ),
        ({"type": "set_default", "behavior": "deny"}, SetDefault(DENY)),
        ({"type": "allow_tool", "tool_id": "Bash"}, AllowTool("Bash")),
        ({"type": "clear_tools"}, ClearTools()),
    ],
)
def test_action_json(data: dict[str, Any], action: PermissionAction) -> None:
    assert decode_action(data) == action
    assert msgspec.to_builtins(action) == data


def test_effective_ruleset_override_replaces_only_same_key() -> None:
    policy = fold(PermissionPolicyKey, [SetRule("Bash", ASK), SetTool("Edit", DENY)])
    overrides = fold(PermissionOverridesKey, [AllowTool("Bash"), AllowTool("Edit")])
    ruleset = effective_ruleset(policy, overrides)
    assert set(ruleset.rules) == {"pattern:Bash", "tool:Bash", "tool:Edit"}
    assert ruleset.rules["tool:Edit"].behavior is ALLOW
    assert effective_ruleset(None, None).evaluate("x").behavior is ASK


def _single(command: StateCommand) -> tuple[str, Any]:
    ((_, key, update),) = command.patch.ops
    return key, update


def test_command_helpers() -> None:
    assert _single(allow_tool("Bash")) == ("permission_policy", AllowTool("Bash"))
    assert _single(deny_tool("Bash")) == ("permission_policy", DenyTool("Bash"))
    assert _single(set_rule("Bash(*)", "allow")) == ("permission_policy", SetRule("Bash", ALLOW))
    assert _single(remove_tool("x")) == ("permission_policy", RemoveTool("x"))
    assert _single(remove_rule("x")) == ("permission_policy", RemoveRule("x"))
    assert _single(clear_tools()) == ("permission_policy", ClearTools())
    assert _single(set_default_behavior("deny")) == ("permission_policy", SetDefault(DENY))
    assert _single(grant_tool_override("x")) == ("permission_overrides", AllowTool("x"))
    assert _single(grant_rule_override("Edit(*)", DENY)) == (
        "permission_overrides",
        SetRule("Edit", DENY),
    )
    with pytest.raises(ValueError):
        set_rule("Bash(", "allow")
    assert ToolSubject("x").key == "tool:x"
