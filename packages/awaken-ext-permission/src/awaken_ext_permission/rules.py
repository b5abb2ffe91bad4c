"""Permission rules, rulesets and their evaluation (Deny > Allow > Ask, then the default)."""

from __future__ import annotations

import enum
from functools import lru_cache
from typing import Any

import msgspec
from awaken_tool_pattern import (
    AnyArgs,
    ExactTool,
    PatternSyntaxError,
    Specificity,
    ToolCallPattern,
    parse_pattern,
)

_LEGACY_TOOL_SPECIFICITY = Specificity(3, False, 0, 0)


class ToolPermissionBehavior(enum.StrEnum):
    """What happens to a tool call: run it, refuse it, or ask a human first."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"

    @property
    def tier(self) -> int:
        """Precedence among matching rules: deny 2 > allow 1 > ask 0."""
        return _TIERS[self]


_TIERS = {
    ToolPermissionBehavior.DENY: 2,
    ToolPermissionBehavior.ALLOW: 1,
    ToolPermissionBehavior.ASK: 0,
}


class PermissionRuleScope(enum.StrEnum):
    """How long a rule is meant to live (a label: where a rule is stored decides its lifetime)."""

    ONCE = "once"
    SESSION = "session"
    THREAD = "thread"
    PROJECT = "project"
    USER = "user"


class PermissionRuleSource(enum.StrEnum):
    """Where a rule came from."""

    SYSTEM = "system"
    DEFINITION = "definition"
    SKILL = "skill"
    SESSION = "session"
    USER = "user"
    CLI = "cli"
    RUNTIME = "runtime"


@lru_cache(maxsize=1024)
def _parsed(pattern: str) -> ToolCallPattern | None:
    try:
        return parse_pattern(pattern)
    except (PatternSyntaxError, ValueError):
        return None


class ToolSubject(msgspec.Struct, frozen=True, tag="tool", tag_field="kind"):
    """A rule subject naming one tool id exactly: ``{"kind": "tool", "tool_id": "Bash"}``."""

    tool_id: str

    @property
    def key(self) -> str:
        """Rule identity: ``tool:<tool_id>``."""
        return f"tool:{self.tool_id}"

    def match(self, tool_id: str, args: Any) -> Specificity | None:
        """The specificity of a match, ``None`` when the call is not covered."""
        return _LEGACY_TOOL_SPECIFICITY if tool_id == self.tool_id else None


class PatternSubject(msgspec.Struct, frozen=True, tag="pattern", tag_field="kind"):
    """A rule subject written in the tool-pattern DSL: ``{"kind": "pattern", "pattern": "…"}``.

    Build it with :meth:`of` so ``pattern`` is canonical (``Bash(*)`` → ``Bash``).
    """

    pattern: str

    @classmethod
    def of(cls, pattern: str | ToolCallPattern) -> PatternSubject:
        """The subject for a pattern (text is parsed; raises ``PatternSyntaxError``)."""
        parsed = parse_pattern(pattern) if isinstance(pattern, str) else pattern
        return cls(str(parsed))

    @property
    def key(self) -> str:
        """Rule identity: ``pattern:<canonical pattern>``."""
        return f"pattern:{self.pattern}"

    @property
    def parsed(self) -> ToolCallPattern | None:
        """The parsed pattern (``None`` if stored text does not parse)."""
        return _parsed(self.pattern)

    def match(self, tool_id: str, args: Any) -> Specificity | None:
        """The specificity of a match, ``None`` when the call is not covered."""
        parsed = self.parsed
        return None if parsed is None else parsed.matches(tool_id, args).specificity


PermissionSubject = ToolSubject | PatternSubject


class PermissionRule(msgspec.Struct, frozen=True):
    """A subject and the behaviour for the calls it covers (scope and source are metadata)."""

    subject: PermissionSubject
    behavior: ToolPermissionBehavior
    scope: PermissionRuleScope = PermissionRuleScope.THREAD
    source: PermissionRuleSource = PermissionRuleSource.RUNTIME

    @property
    def key(self) -> str:
        """The rule's identity in a ruleset (one rule per key)."""
        return self.subject.key

    @property
    def is_unconditional_deny(self) -> bool:
        """A deny of one exact tool id whatever the arguments (the tool can be hidden)."""
        if self.behavior is not ToolPermissionBehavior.DENY:
            return False
        return self.unconditional_tool_id is not None

    @property
    def unconditional_tool_id(self) -> str | None:
        """The tool id when the subject covers every call of exactly one tool."""
        if isinstance(self.subject, ToolSubject):
            return self.subject.tool_id
        parsed = self.subject.parsed
        if parsed is None:
            return None
        if isinstance(parsed.tool, ExactTool) and isinstance(parsed.args, AnyArgs):
            return parsed.tool.name
        return None


class PermissionEvaluation(msgspec.Struct, frozen=True):
    """The decision for one call: its behaviour and the rule that decided (``None`` = default)."""

    subject: ToolSubject
    behavior: ToolPermissionBehavior
    matched_rule: PermissionRule | None = None


class PermissionRuleset(msgspec.Struct, frozen=True):
    """A default behaviour plus rules keyed by identity (the same key replaces)."""

    default_behavior: ToolPermissionBehavior = ToolPermissionBehavior.ASK
    rules: dict[str, PermissionRule] = msgspec.field(default_factory=dict)

    def with_rule(self, rule: PermissionRule) -> PermissionRuleset:
        """A copy with ``rule`` inserted (replacing a rule with the same key)."""
        return PermissionRuleset(self.default_behavior, {**self.rules, rule.key: rule})

    def with_rules(self, rules: dict[str, PermissionRule]) -> PermissionRuleset:
        """A copy with every rule of ``rules`` inserted (same keys replace)."""
        return PermissionRuleset(self.default_behavior, {**self.rules, **rules})

    def evaluate(self, tool_id: str, args: Any = None) -> PermissionEvaluation:
        """Decide a call of ``tool_id`` with JSON ``args``.

        Among the matching rules the behaviour tier wins (deny > allow > ask), then the more
        specific pattern, then the smaller rule key (so the result is deterministic). With no
        matching rule the default behaviour applies.
        """
        best: tuple[int, Specificity] | None = None
        winner: PermissionRule | None = None
        for key in sorted(self.rules):
            rule = self.rules[key]
            specificity = rule.subject.match(tool_id, args)
            if specificity is None:
                continue
            rank = (rule.behavior.tier, specificity)
            if best is None or rank > best:
                best, winner = rank, rule
        subject = ToolSubject(tool_id)
        if winner is None:
            return PermissionEvaluation(subject, self.default_behavior)
        return PermissionEvaluation(subject, winner.behavior, winner)

    def unconditionally_denied(self) -> list[str]:
        """Tool ids denied whatever their arguments (sorted, no duplicates)."""
        ids = {
            rule.unconditional_tool_id for rule in self.rules.values() if rule.is_unconditional_deny
        }
        return sorted(tool_id for tool_id in ids if tool_id is not None)


def evaluate(ruleset: PermissionRuleset, tool_id: str, args: Any = None) -> PermissionEvaluation:
    """Decide a call of ``tool_id`` with JSON ``args`` under ``ruleset``."""
    return ruleset.evaluate(tool_id, args)
