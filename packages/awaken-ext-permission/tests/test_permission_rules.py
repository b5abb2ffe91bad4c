"""Precedence table of permission evaluation: Deny > Allow > Ask, then the default."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from awaken_ext_permission import (
    PatternSubject,
    PermissionRule,
    PermissionRuleset,
    ToolPermissionBehavior,
    ToolSubject,
    evaluate,
)

ALLOW, ASK, DENY = (
    ToolPermissionBehavior.ALLOW,
    ToolPermissionBehavior.ASK,
    ToolPermissionBehavior.DENY,
)


def ruleset(
    default: ToolPermissionBehavior, *rules: tuple[str, ToolPermissionBehavior]
) -> PermissionRuleset:
    built = [PermissionRule(PatternSubject.of(text), behavior) for text, behavior in rules]
    return PermissionRuleset(default, {rule.key: rule for rule in built})


PRECEDENCE: list[tuple[str, PermissionRuleset, str, Any, ToolPermissionBehavior, str | None]] = [
    (
        "broad deny beats narrow allow",
        ruleset(ASK, ("Bash", ALLOW), ("Bash(rm *)", DENY)),
        "Bash",
        {"command": "rm -rf /"},
        DENY,
        "pattern:Bash(rm *)",
    ),
    (
        "glob deny beats exact allow",
        ruleset(ASK, ("mcp__*", DENY), ("mcp__github__list", ALLOW)),
        "mcp__github__list",
        {},
        DENY,
        "pattern:mcp__*",
    ),
    (
        "allow beats a more specific ask",
        ruleset(ASK, ("Bash", ALLOW), ("Bash(git push*)", ASK)),
        "Bash",
        {"command": "git push"},
        ALLOW,
        "pattern:Bash",
    ),
    (
        "a matching ask rule beats the default",
        ruleset(ALLOW, ("Bash", ASK)),
        "Bash",
        {},
        ASK,
        "pattern:Bash",
    ),
    (
        "missing field: rule does not match, default applies",
        ruleset(ALLOW, ('Edit(file_path ~ "/etc/*")', DENY)),
        "Edit",
        {"path": "/etc/x"},
        ALLOW,
        None,
    ),
    ("no rules, default deny", ruleset(DENY), "anything", {"x": 1}, DENY, None),
    ("no rules, default ask", PermissionRuleset(), "anything", None, ASK, None),
    (
        "within a tier the more specific rule decides",
        ruleset(ASK, ("Bash", ALLOW), ("Bash(npm *)", ALLOW)),
        "Bash",
        {"command": "npm i"},
        ALLOW,
        "pattern:Bash(npm *)",
    ),
    (
        "non-matching allow leaves the default",
        ruleset(ASK, ("Bash(npm *)", ALLOW)),
        "Bash",
        {"command": "yarn"},
        ASK,
        None,
    ),
    (
        "book config: read_file allowed",
        ruleset(ASK, ("read_file", ALLOW), ("file_*", ASK), ("delete_*", DENY)),
        "read_file",
        {"path": "a"},
        ALLOW,
        "pattern:read_file",
    ),
    (
        "book config: file_write asks",
        ruleset(ASK, ("read_file", ALLOW), ("file_*", ASK), ("delete_*", DENY)),
        "file_write",
        {"path": "a"},
        ASK,
        "pattern:file_*",
    ),
    (
        "book config: delete_file denied",
        ruleset(ASK, ("read_file", ALLOW), ("file_*", ASK), ("delete_*", DENY)),
        "delete_file",
        {"path": "a"},
        DENY,
        "pattern:delete_*",
    ),
    (
        "field regex deny",
        ruleset(ALLOW, ('Bash(command =~ "(?i)rm\\s+-rf")', DENY)),
        "Bash",
        {"command": "sudo RM -rf /"},
        DENY,
        'pattern:Bash(command =~ "(?i)rm\\s+-rf")',
    ),
    (
        "regex tool subject",
        ruleset(ASK, ("/^mcp__(gh|gl)__/", ALLOW)),
        "mcp__gl__list",
        {},
        ALLOW,
        "pattern:/^mcp__(gh|gl)__/",
    ),
]


@pytest.mark.parametrize(
    ("case", "rules", "tool_id", "args", "behavior", "matched_key"),
    PRECEDENCE,
    ids=[row[0] for row in PRECEDENCE],
)
def test_precedence_table(
    case: str,
    rules: PermissionRuleset,
    tool_id: str,
    args: Any,
    behavior: ToolPermissionBehavior,
    matched_key: str | None,
) -> None:
    result = evaluate(rules, tool_id, args)
    assert result.behavior is behavior
    assert result.subject == ToolSubject(tool_id)
    assert (result.matched_rule.key if result.matched_rule else None) == matched_key


def test_legacy_tool_subject_matches_exact_id_only() -> None:
    rule = PermissionRule(ToolSubject("Bash"), DENY)
    rules = PermissionRuleset(ALLOW, {rule.key: rule})
    assert rule.key == "tool:Bash"
    assert rules.evaluate("Bash", {"command": "ls"}).behavior is DENY
    assert rules.evaluate("Bash2").behavior is ALLOW


def test_override_and_policy_keys_both_apply() -> None:
    policy = ruleset(ASK, ("Bash", ASK))
    merged = policy.with_rule(PermissionRule(ToolSubject("Bash"), ALLOW))
    assert set(merged.rules) == {"pattern:Bash", "tool:Bash"}
    assert merged.evaluate("Bash").behavior is ALLOW


def test_ties_are_broken_deterministically_by_key() -> None:
    a = PermissionRule(ToolSubject("Bash"), DENY)
    b = PermissionRule(PatternSubject.of("Bash"), DENY)
    for order in ([a, b], [b, a]):
        rules = PermissionRuleset(ASK, {rule.key: rule for rule in order})
        matched = rules.evaluate("Bash").matched_rule
        assert matched is not None and matched.key == "pattern:Bash"


def test_pattern_subject_is_canonical_and_json_tagged() -> None:
    subject = PatternSubject.of("Bash(*)")
    assert subject.pattern == "Bash"
    assert msgspec.to_builtins(subject) == {"kind": "pattern", "pattern": "Bash"}
    assert msgspec.to_builtins(ToolSubject("x")) == {"kind": "tool", "tool_id": "x"}
    rule = msgspec.convert(
        {"subject": {"kind": "pattern", "pattern": "Bash(npm *)"}, "behavior": "allow"},
        PermissionRule,
    )
    assert rule.scope == "thread" and rule.source == "runtime"
    assert rule.subject.match("Bash", {"command": "npm i"}) is not None


def test_a_stored_pattern_that_no_longer_parses_matches_nothing() -> None:
    rule = PermissionRule(PatternSubject("Bash(npm *"), DENY)
    rules = PermissionRuleset(ALLOW, {rule.key: rule})
    assert rules.evaluate("Bash", {"command": "npm i"}).behavior is ALLOW


def test_unconditionally_denied_tools() -> None:
    rules = ruleset(
        ASK,
        ("Bash", DENY),
        ("Bash(rm *)", DENY),
        ("mcp__*", DENY),
        ("/x/", DENY),
        ("read_file", ALLOW),
    ).with_rule(PermissionRule(ToolSubject("delete_all"), DENY))
    assert rules.unconditionally_denied() == ["Bash", "delete_all"]
