"""Glob matching for tool names and argument values (``*``, ``**``, ``?``, ``[..]``, ``{a,b}``).

The semantics follow the reference implementation (glob-match 0.2.1 after normalising lone
stars): a lone ``*`` may cross ``/`` at the end of a pattern (``rm *`` matches ``rm -rf /``) and in
front of ``/`` (``*/x`` matches ``a/b/x``) but not in the middle of a segment (``*.rs`` does not
match ``src/main.rs``); ``**`` as a whole segment spans directories; ``?`` never matches ``/``;
leading ``!`` characters negate the result. Matching is anchored and case-sensitive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_MAX_BRACE_DEPTH = 10


@dataclass(frozen=True, slots=True)
class _Lit:
    char: str


@dataclass(frozen=True, slots=True)
class _Star:
    count: int


@dataclass(frozen=True, slots=True)
class _Any1:
    pass


@dataclass(frozen=True, slots=True)
class _Class:
    regex: str


@dataclass(frozen=True, slots=True)
class _Alt:
    options: tuple[tuple[_Token, ...], ...]


_Token = _Lit | _Star | _Any1 | _Class | _Alt

_SLASH = _Lit("/")


def wildcard_match(pattern: str, value: str) -> bool:
    """Whether ``value`` matches the glob ``pattern`` as a whole."""
    compiled, negated = _compile_glob(pattern)
    return (compiled.fullmatch(value) is not None) != negated


def glob_to_regex(pattern: str) -> str:
    """The anchored regular expression equivalent to ``pattern`` (leading ``!`` excluded)."""
    body = pattern.lstrip("!")
    return _emit(_normalise(_tokenise(body, 0, 0)[0]), seg_start=True, is_tail=True)


@lru_cache(maxsize=2048)
def _compile_glob(pattern: str) -> tuple[re.Pattern[str], bool]:
    negations = len(pattern) - len(pattern.lstrip("!"))
    return re.compile(glob_to_regex(pattern), re.DOTALL), negations % 2 == 1


def _tokenise(text: str, start: int, depth: int) -> tuple[list[_Token], int]:
    """Tokens from ``start`` to the end, or (inside braces) up to the next ``,`` or ``}``."""
    tokens: list[_Token] = []
    i = start
    while i < len(text):
        char = text[i]
        if depth > 0 and char in ",}":
            return tokens, i
        if char == "*":
            j = i
            while j < len(text) and text[j] == "*":
                j += 1
            tokens.append(_Star(j - i))
            i = j
        elif char == "?":
            tokens.append(_Any1())
            i += 1
        elif char == "\\":
            if i + 1 < len(text):
                tokens.append(_Lit(text[i + 1]))
                i += 2
            else:
                tokens.append(_Lit("\\"))
                i += 1
        elif char == "[":
            parsed = _parse_class(text, i)
            if parsed is None:
                tokens.append(_Lit("["))
                i += 1
            else:
                tokens.append(parsed[0])
                i = parsed[1]
        elif char == "{" and depth < _MAX_BRACE_DEPTH:
            alt = _parse_alternation(text, i, depth)
            if alt is None:
                tokens.append(_Lit("{"))
                i += 1
            else:
                tokens.append(alt[0])
                i = alt[1]
        else:
            tokens.append(_Lit(char))
            i += 1
    return tokens, i


def _parse_alternation(text: str, start: int, depth: int) -> tuple[_Alt, int] | None:
    options: list[tuple[_Token, ...]] = []
    i = start + 1
    while True:
        tokens, i = _tokenise(text, i, depth + 1)
        options.append(tuple(tokens))
        if i >= len(text):
            return None
        if text[i] == "}":
            return _Alt(tuple(options)), i + 1
        i += 1  # the ","


def _parse_class(text: str, start: int) -> tuple[_Class, int] | None:
    i = start + 1
    negated = i < len(text) and text[i] in "!^"
    if negated:
        i += 1
    items: list[tuple[str, bool]] = []
    while i < len(text):
        char = text[i]
        if char == "]" and items:
            parts = []
            for index, (item, escaped) in enumerate(items):
                is_range = item == "-" and not escaped and 0 < index < len(items) - 1
                parts.append("-" if is_range else re.escape(item))
            return _Class("[" + ("^" if negated else "") + "".join(parts) + "]"), i + 1
        if char == "\\" and i + 1 < len(text):
            items.append((text[i + 1], True))
            i += 2
        else:
            items.append((char, False))
            i += 1
    return None


def _normalise(tokens: list[_Token]) -> list[_Token]:
    """A lone ``*`` becomes ``**`` unless it sits right after ``**/`` or right before ``/**``."""
    result: list[_Token] = []
    for index, token in enumerate(tokens):
        if isinstance(token, _Alt):
            options = tuple(tuple(_normalise(list(option))) for option in token.options)
            result.append(_Alt(options))
            continue
        if isinstance(token, _Star) and token.count == 1:
            after_globstar = (
                index >= 2 and _is_globstar(tokens[index - 2]) and tokens[index - 1] == _SLASH
            )
            before_globstar = (
                index + 2 < len(tokens)
                and tokens[index + 1] == _SLASH
                and _is_globstar(tokens[index + 2])
            )
            if not (after_globstar or before_globstar):
                token = _Star(2)
        result.append(token)
    return result


def _is_globstar(token: _Token) -> bool:
    return isinstance(token, _Star) and token.count >= 2


def _emit(tokens: list[_Token] | tuple[_Token, ...], *, seg_start: bool, is_tail: bool) -> str:
    out: list[str] = []
    last = len(tokens) - 1
    index = 0
    while index <= last:
        token = tokens[index]
        after_separator = (index == 0 and seg_start) or (index > 0 and tokens[index - 1] == _SLASH)
        if isinstance(token, _Lit):
            if (
                token == _SLASH
                and is_tail
                and index + 1 == last
                and _is_globstar(tokens[index + 1])
            ):
                out.append("(?:/.*)?")  # "a/**" also matches "a"
                index += 2
                continue
            out.append(re.escape(token.char))
        elif isinstance(token, _Star):
            if token.count >= 2 and is_tail and index == last:
                out.append(".*")
            elif (
                token.count >= 2
                and after_separator
                and index < last
                and tokens[index + 1] == _SLASH
            ):
                out.append("(?:.*/)?")  # "**/" spans zero or more whole segments
                index += 2
                continue
            else:
                out.append("[^/]*")
        elif isinstance(token, _Any1):
            out.append("[^/]")
        elif isinstance(token, _Class):
            out.append(token.regex)
        else:
            alternatives = [
                _emit(option, seg_start=after_separator, is_tail=is_tail and index == last)
                for option in token.options
            ]
            out.append("(?:" + "|".join(alternatives) + ")")
        index += 1
    return "".join(out)
