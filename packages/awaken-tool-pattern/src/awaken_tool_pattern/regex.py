"""Compiling the regular expressions written in patterns (tool regexes and ``=~`` values).

Patterns follow the Rust ``regex`` dialect, where an inline flag group such as ``(?i)`` may
appear anywhere and applies to the rest of its group. Python only accepts such global flags at
the start, so a pattern that fails for that reason is rewritten to scoped groups
(``a(?i)b|c`` → ``a(?i:b)|(?i:c)``) before giving up.
"""

from __future__ import annotations

import re
from functools import lru_cache

_INLINE_FLAGS = re.compile(r"\(\?([a-zA-Z]*(?:-[a-zA-Z]+)?)\)")


class RegexCompileError(ValueError):
    """A regex written in a pattern is not valid."""


@lru_cache(maxsize=1024)
def _compile(source: str) -> re.Pattern[str] | str:
    try:
        return re.compile(source)
    except re.error as exc:
        rewritten = scope_inline_flags(source)
        if rewritten != source:
            try:
                return re.compile(rewritten)
            except re.error:
                pass
        return str(exc)


def compile_regex(source: str) -> re.Pattern[str]:
    """Compile ``source`` (cached); raise :class:`RegexCompileError` when it is invalid."""
    compiled = _compile(source)
    if isinstance(compiled, str):
        raise RegexCompileError(compiled)
    return compiled


def regex_search(source: str, value: str) -> bool | None:
    """Unanchored search of ``source`` in ``value``; ``None`` when the regex is invalid."""
    compiled = _compile(source)
    if isinstance(compiled, str):
        return None
    return compiled.search(value) is not None


def scope_inline_flags(source: str) -> str:
    """Rewrite inline flag groups that are not at the start into scoped groups.

    Each ``(?flags)`` after position 0 becomes ``(?flags:`` closed at the end of its enclosing
    group; at a ``|`` of that group the scoped groups are closed and reopened for the next
    alternative.
    """
    out: list[str] = []
    # per open group: the flag strings opened at this level, innermost last
    levels: list[list[str]] = [[]]
    i = 0
    in_class = False
    while i < len(source):
        char = source[i]
        if char == "\\":
            out.append(source[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = char != "]"
            out.append(char)
            i += 1
            continue
        if char == "[":
            in_class = True
            out.append(char)
            # a "]" right after "[" or "[^" is a literal member
            if source.startswith("^]", i + 1):
                out.append("^]")
                i += 2
            elif source.startswith("]", i + 1):
                out.append("]")
                i += 1
            i += 1
            continue
        if char == "(":
            flags = _INLINE_FLAGS.match(source, i)
            if flags is not None and i > 0:
                out.append(f"(?{flags.group(1)}:")
                levels[-1].append(flags.group(1))
                i = flags.end()
                continue
            levels.append([])
        elif char == ")":
            out.append(")" * len(levels[-1]))
            if len(levels) > 1:
                levels.pop()
        elif char == "|":
            opened = levels[-1]
            out.append(")" * len(opened) + "|" + "".join(f"(?{f}:" for f in opened))
            i += 1
            continue
        out.append(char)
        i += 1
    out.append(")" * len(levels[-1]) if len(levels) == 1 else "")
    return "".join(out)
