"""The ``allowed-tools`` frontmatter value: a space-separated list of tool tokens.

A token is a tool id optionally followed by a parenthesised scope (``Bash(git status)``);
whitespace inside parentheses or quotes does not split tokens.
"""

from __future__ import annotations

import re

import msgspec
from awaken_tool_pattern import has_glob_chars

__all__ = ["AllowedToolToken", "AllowedToolsError", "is_tool_pattern", "parse_allowed_tools"]


class AllowedToolsError(ValueError):
    """A malformed ``allowed-tools`` value."""


class AllowedToolToken(msgspec.Struct, frozen=True, omit_defaults=True):
    """One token: ``tool_id`` and the optional ``scope`` text between the parentheses."""

    tool_id: str
    scope: str | None = None
    raw: str = ""

    @property
    def is_pattern(self) -> bool:
        """The id is a glob (``*``, ``?``, ``[``) or a ``/regex/``."""
        return is_tool_pattern(self.tool_id)


def is_tool_pattern(tool_id: str) -> bool:
    """Whether ``tool_id`` is a glob or ``/regex/`` rather than a plain id."""
    return has_glob_chars(tool_id) or (
        len(tool_id) >= 2 and tool_id.startswith("/") and tool_id.endswith("/")
    )


def _split(text: str) -> list[str]:
    tokens: list[str] = []
    current: list[str] = []
    depth = 0
    quote: str | None = None
    escaped = False
    for ch in text:
        if quote is not None:
            current.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
            current.append(ch)
        elif ch == "(":
            depth += 1
            current.append(ch)
        elif ch == ")":
            if depth == 0:
                raise AllowedToolsError("allowed-tools contains unmatched ')'")
            depth -= 1
            current.append(ch)
        elif ch.isspace() and depth == 0:
            if current:
                tokens.append("".join(current))
                current = []
        else:
            current.append(ch)
    if quote is not None:
        raise AllowedToolsError("allowed-tools contains an unterminated quote")
    if depth != 0:
        raise AllowedToolsError("allowed-tools contains unbalanced parentheses")
    if current:
        tokens.append("".join(current))
    return tokens


_BAD_ID = re.compile(r"[\s()]")


def _token(raw: str) -> AllowedToolToken:
    if "(" not in raw:
        return AllowedToolToken(raw, None, raw)
    if not raw.endswith(")"):
        raise AllowedToolsError(f"allowed-tools token '{raw}' must end with ')'")
    base, _, rest = raw.partition("(")
    base = base.strip()
    if not base or _BAD_ID.search(base):
        raise AllowedToolsError(f"allowed-tools token '{raw}' has an invalid tool id")
    return AllowedToolToken(base, rest[:-1], raw)


def parse_allowed_tools(text: str) -> list[AllowedToolToken]:
    """Parse an ``allowed-tools`` value (raises ``ValueError`` with the spec's messages)."""
    return [_token(raw) for raw in _split(text)]
