"""Permission state: the thread's policy, the run's overrides and the actions that edit them.

``permission_policy`` (thread scoped, persisted) holds the default behaviour and the rules a
thread has accumulated — configured rules and remembered approvals. ``permission_overrides``
(run scoped, not persisted) holds grants that last for the current run only. The effective
ruleset of a call is the policy with the override rules inserted (an override replaces a policy
rule only when both have the same key).
"""

from __future__ import annotations

from typing import Any

import msgspec
from awaken_contract.state import KeyScope, MergeStrategy, StateCommand, StateKey
from awaken_tool_pattern import PatternSyntaxError, ToolCallPattern

from awaken_ext_permission.rules import (
    PatternSubject,
    PermissionRule,
    PermissionRuleScope,
    PermissionRuleset,
    PermissionRuleSource,
    ToolPermissionBehavior,
    ToolSubject,
)

# --------------------------------------------------------------------------- actions


class SetDefault(msgspec.Struct, frozen=True, tag="set_default", tag_field="type"):
    """Set the policy's default behaviour (no effect on overrides)."""

    behavior: ToolPermissionBehavior


class SetTool(msgspec.Struct, frozen=True, tag="set_tool", tag_field="type"):
    """Upsert the exact-id rule ``tool:<tool_id>``."""

    tool_id: str
    behavior: ToolPermissionBehavior


class SetRule(msgspec.Struct, frozen=True, tag="set_rule", tag_field="type"):
    """Upsert the rule of a DSL pattern (an unparsable pattern changes nothing)."""

    pattern: str
    behavior: ToolPermissionBehavior


class PutRule(msgspec.Struct, frozen=True, tag="put_rule", tag_field="type"):
    """Upsert a complete rule, keeping its scope and source."""

    rule: PermissionRule


class ReplaceDefinitionRules(
    msgspec.Struct, frozen=True, tag="replace_definition_rules", tag_field="type"
):
    """Drop every rule whose source is ``definition`` and insert ``rules`` (configured rules).

    Applied when an agent activates so rules removed from the configuration stop applying,
    while rules added at run time (remembered approvals) stay.
    """

    rules: list[PermissionRule]


class RemoveTool(msgspec.Struct, frozen=True, tag="remove_tool", tag_field="type"):
    """Delete ``tool:<tool_id>``."""

    tool_id: str


class RemoveRule(msgspec.Struct, frozen=True, tag="remove_rule", tag_field="type"):
    """Delete the rule of a DSL pattern."""

    pattern: str


class ClearTools(msgspec.Struct, frozen=True, tag="clear_tools", tag_field="type"):
    """Delete every rule (the default behaviour stays)."""


class AllowTool(msgspec.Struct, frozen=True, tag="allow_tool", tag_field="type"):
    """Upsert ``tool:<tool_id>`` with allow."""

    tool_id: str


class DenyTool(msgspec.Struct, frozen=True, tag="deny_tool", tag_field="type"):
    """Upsert ``tool:<tool_id>`` with deny."""

    tool_id: str


PermissionAction = (
    SetDefault
    | SetTool
    | SetRule
    | PutRule
    | ReplaceDefinitionRules
    | RemoveTool
    | RemoveRule
    | ClearTools
    | AllowTool
    | DenyTool
)


def _pattern_subject(pattern: str) -> PatternSubject | None:
    try:
        return PatternSubject.of(pattern)
    except PatternSyntaxError:
        return None


def apply_to_rules(
    rules: dict[str, PermissionRule], action: PermissionAction, source: PermissionRuleSource
) -> dict[str, PermissionRule]:
    """The rules after ``action`` (a new dict; upserted rules get scope thread and ``source``)."""

    def upsert(subject: ToolSubject | PatternSubject, behavior: ToolPermissionBehavior) -> None:
        rule = PermissionRule(subject, behavior, PermissionRuleScope.THREAD, source)
        updated[rule.key] = rule

    updated = dict(rules)
    if isinstance(action, SetTool):
        upsert(ToolSubject(action.tool_id), action.behavior)
    elif isinstance(action, AllowTool):
        upsert(ToolSubject(action.tool_id), ToolPermissionBehavior.ALLOW)
    elif isinstance(action, DenyTool):
        upsert(ToolSubject(action.tool_id), ToolPermissionBehavior.DENY)
    elif isinstance(action, SetRule):
        subject = _pattern_subject(action.pattern)
        if subject is not None:
            upsert(subject, action.behavior)
    elif isinstance(action, PutRule):
        updated[action.rule.key] = action.rule
    elif isinstance(action, ReplaceDefinitionRules):
        for rule_key, rule in rules.items():
            if rule.source is PermissionRuleSource.DEFINITION:
                del updated[rule_key]
        updated.update((rule.key, rule) for rule in action.rules)
    elif isinstance(action, RemoveTool):
        updated.pop(ToolSubject(action.tool_id).key, None)
    elif isinstance(action, RemoveRule):
        removed = _pattern_subject(action.pattern)
        if removed is not None:
            updated.pop(removed.key, None)
    elif isinstance(action, ClearTools):
        updated.clear()
    return updated


# --------------------------------------------------------------------------- values & keys


class PermissionPolicy(msgspec.Struct, frozen=True):
    """Value of ``permission_policy``: ``{"default_behavior", "rules": {key: rule}}``."""

    default_behavior: ToolPermissionBehavior = ToolPermissionBehavior.ASK
    rules: dict[str, PermissionRule] = msgspec.field(default_factory=dict)

    def ruleset(self) -> PermissionRuleset:
        """The policy as a ruleset."""
        return PermissionRuleset(self.default_behavior, dict(self.rules))


class PermissionOverrides(msgspec.Struct, frozen=True):
    """Value of ``permission_overrides``: ``{"rules": {key: rule}}``."""

    rules: dict[str, PermissionRule] = msgspec.field(default_factory=dict)


class PermissionPolicyKey(StateKey[PermissionPolicy, PermissionAction]):
    """``permission_policy``: thread scoped, persisted, commutative."""

    KEY = "permission_policy"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.THREAD

    @classmethod
    def apply(cls, value: PermissionPolicy, update: PermissionAction) -> PermissionPolicy:
        if isinstance(update, SetDefault):
            return PermissionPolicy(update.behavior, value.rules)
        rules = apply_to_rules(value.rules, update, PermissionRuleSource.RUNTIME)
        return PermissionPolicy(value.default_behavior, rules)


class PermissionOverridesKey(StateKey[PermissionOverrides, PermissionAction]):
    """``permission_overrides``: run scoped, not persisted, commutative."""

    KEY = "permission_overrides"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: PermissionOverrides, update: PermissionAction) -> PermissionOverrides:
        if isinstance(update, SetDefault):
            return value
        return PermissionOverrides(apply_to_rules(value.rules, update, PermissionRuleSource.SKILL))


def effective_ruleset(
    policy: PermissionPolicy | None, overrides: PermissionOverrides | None
) -> PermissionRuleset:
    """The policy's ruleset with the override rules inserted (same keys replaced)."""
    ruleset = (policy or PermissionPolicy()).ruleset()
    return ruleset.with_rules(overrides.rules) if overrides is not None else ruleset


# --------------------------------------------------------------------------- helpers


def _policy(action: PermissionAction) -> StateCommand:
    return StateCommand().update(PermissionPolicyKey, action)


def set_default_behavior(behavior: ToolPermissionBehavior | str) -> StateCommand:
    """A command setting the thread's default behaviour."""
    return _policy(SetDefault(ToolPermissionBehavior(behavior)))


def allow_tool(tool_id: str) -> StateCommand:
    """A command allowing every call of ``tool_id`` for the rest of the thread."""
    return _policy(AllowTool(tool_id))


def deny_tool(tool_id: str) -> StateCommand:
    """A command denying every call of ``tool_id`` for the rest of the thread."""
    return _policy(DenyTool(tool_id))


def set_rule(
    pattern: str | ToolCallPattern, behavior: ToolPermissionBehavior | str
) -> StateCommand:
    """A command adding a thread rule for a DSL pattern (validated now)."""
    subject = PatternSubject.of(pattern)
    return _policy(SetRule(subject.pattern, ToolPermissionBehavior(behavior)))


def remove_tool(tool_id: str) -> StateCommand:
    """A command removing the thread's exact-id rule of ``tool_id``."""
    return _policy(RemoveTool(tool_id))


def remove_rule(pattern: str | ToolCallPattern) -> StateCommand:
    """A command removing the thread rule of a DSL pattern."""
    return _policy(RemoveRule(str(pattern)))


def clear_tools() -> StateCommand:
    """A command removing every thread rule (the default behaviour stays)."""
    return _policy(ClearTools())


def grant_tool_override(tool_id: str) -> StateCommand:
    """A command allowing ``tool_id`` for the current run only."""
    return StateCommand().update(PermissionOverridesKey, AllowTool(tool_id))


def grant_rule_override(
    pattern: str | ToolCallPattern, behavior: ToolPermissionBehavior | str
) -> StateCommand:
    """A command adding a rule for the current run only."""
    subject = PatternSubject.of(pattern)
    action = SetRule(subject.pattern, ToolPermissionBehavior(behavior))
    return StateCommand().update(PermissionOverridesKey, action)


def decode_action(data: Any) -> PermissionAction:
    """A permission action from its JSON form (``{"type": "allow_tool", "tool_id": "Bash"}``)."""
    action: PermissionAction = msgspec.convert(data, PermissionAction)
    return action
