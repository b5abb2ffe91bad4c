"""``allowed-tools`` enforcement: while skills are active, only their tools may be used."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import msgspec
from awaken_tool_pattern import PatternParseError, ToolMatcher, parse_tool_matcher

from awaken_ext_skills.allowed_tools import is_tool_pattern, parse_allowed_tools
from awaken_ext_skills.meta import SkillMeta
from awaken_ext_skills.tools import SKILL_TOOL_IDS

__all__ = ["AllowedToolPolicy"]


@lru_cache(maxsize=512)
def _matcher(pattern: str) -> ToolMatcher | None:
    """The tool-pattern matcher of one ``allowed-tools`` pattern; ``None`` when it is invalid."""
    try:
        return parse_tool_matcher(pattern)
    except PatternParseError:
        return None


class AllowedToolPolicy(msgspec.Struct, frozen=True):
    """The tools usable while a set of skills is active: the union of their ``allowed-tools``
    (plain ids and glob / ``/regex/`` patterns; scoped tokens such as ``Bash(git *)`` allow
    their base tool) plus the skill tools themselves.

    Patterns match as in the tool-pattern DSL (:func:`awaken_tool_pattern.parse_tool_matcher`):
    globs are anchored, ``/regex/`` is an unanchored search, an invalid pattern matches nothing.
    """

    skills: list[str]
    ids: frozenset[str]
    patterns: tuple[str, ...]

    @classmethod
    def for_skills(cls, metas: Iterable[SkillMeta]) -> AllowedToolPolicy | None:
        """The policy of the active skills, or ``None`` (no restriction) when no skill is
        active or one of them declares no ``allowed-tools``."""
        metas = list(metas)
        if not metas or any(not m.allowed_tools for m in metas):
            return None
        ids: set[str] = set(SKILL_TOOL_IDS)
        patterns: list[str] = []
        for meta in metas:
            for raw in meta.allowed_tools:
                for token in parse_allowed_tools(raw):
                    if is_tool_pattern(token.tool_id):
                        patterns.append(token.tool_id)
                    else:
                        ids.add(token.tool_id)
        return cls(sorted(m.id for m in metas), frozenset(ids), tuple(dict.fromkeys(patterns)))

    def allows(self, tool_id: str) -> bool:
        """Whether ``tool_id`` may be called."""
        if tool_id in self.ids:
            return True
        for pattern in self.patterns:
            matcher = _matcher(pattern)
            if matcher is not None and matcher.matches(tool_id):
                return True
        return False

    def include_only(self) -> list[str] | None:
        """The exact tool list for ``IncludeOnlyTools``, or ``None`` when patterns make the
        set open-ended (calls are still checked by the tool gate)."""
        return None if self.patterns else sorted(self.ids)

    def denial(self, tool_id: str) -> str:
        """The message the model sees for a refused call."""
        allowed = sorted(self.ids) + list(self.patterns)
        return (
            f"Tool '{tool_id}' is not allowed while skill(s) {', '.join(self.skills)} "
            f"are active. Allowed tools: {', '.join(allowed)}."
        )
