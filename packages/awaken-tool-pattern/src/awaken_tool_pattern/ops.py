"""Match operators of field conditions (``~``, ``=``, ``=~`` and their negations)."""

from __future__ import annotations

from enum import StrEnum

from awaken_tool_pattern.regex import regex_search
from awaken_tool_pattern.wildcard import wildcard_match


class MatchOp(StrEnum):
    """How a condition compares its pattern text with a value."""

    GLOB = "glob"
    EXACT = "exact"
    REGEX = "regex"
    NOT_GLOB = "not_glob"
    NOT_EXACT = "not_exact"
    NOT_REGEX = "not_regex"

    @property
    def token(self) -> str:
        """The operator as written in a pattern (``~``, ``=``, ``=~``, ``!~``, ``!=``, ``!=~``)."""
        return _TOKENS[self]

    @classmethod
    def from_token(cls, token: str) -> MatchOp:
        """The operator written as ``token``; ``ValueError`` for an unknown token."""
        for op, text in _TOKENS.items():
            if text == token:
                return op
        raise ValueError(f"unknown match operator token: {token!r}")


_TOKENS: dict[MatchOp, str] = {
    MatchOp.GLOB: "~",
    MatchOp.EXACT: "=",
    MatchOp.REGEX: "=~",
    MatchOp.NOT_GLOB: "!~",
    MatchOp.NOT_EXACT: "!=",
    MatchOp.NOT_REGEX: "!=~",
}

OPERATOR_TOKENS: tuple[tuple[str, MatchOp], ...] = tuple(
    sorted(((text, op) for op, text in _TOKENS.items()), key=lambda item: -len(item[0]))
)
"""Operator tokens, longest first (the order the parser tries them)."""

_PRECISION: dict[MatchOp, int] = {
    MatchOp.EXACT: 3,
    MatchOp.NOT_EXACT: 3,
    MatchOp.GLOB: 2,
    MatchOp.NOT_GLOB: 2,
    MatchOp.REGEX: 1,
    MatchOp.NOT_REGEX: 1,
}


def op_precision(op: MatchOp) -> int:
    """How precise an operator is for specificity ranking: exact 3, glob 2, regex 1."""
    return _PRECISION[op]


def evaluate_op(op: MatchOp, pattern: str, value: str) -> bool:
    """Apply ``op`` with ``pattern`` to ``value``.

    An invalid regex never matches: ``=~`` is false and ``!=~`` is true.
    """
    if op is MatchOp.GLOB:
        return wildcard_match(pattern, value)
    if op is MatchOp.NOT_GLOB:
        return not wildcard_match(pattern, value)
    if op is MatchOp.EXACT:
        return value == pattern
    if op is MatchOp.NOT_EXACT:
        return value != pattern
    found = regex_search(pattern, value)
    if op is MatchOp.REGEX:
        return bool(found)
    return not found
