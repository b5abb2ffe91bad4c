"""Compiling the regular expressions written in patterns (tool regexes and ``=~`` values)."""

from __future__ import annotations

import re
from functools import lru_cache


class RegexCompileError(ValueError):
    """A regex written in a pattern is not valid."""


@lru_cache(maxsize=1024)
def _compile(source: str) -> re.Pattern[str] | str:
    try:
        return re.compile(source)
    except re.error as exc:
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
