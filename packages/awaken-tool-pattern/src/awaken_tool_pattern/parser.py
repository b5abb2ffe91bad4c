"""Parser of the tool-call pattern DSL.

```text
Bash                             exact tool, any args
Bash(*)                          explicit any args (canonical form: Bash)
Bash(npm *)                      glob on the primary argument value
Edit(file_path ~ "src/**")       named field glob ('…' quotes work too)
Bash(command =~ "(?i)rm")        named field regex
mcp__github__*                   glob on the tool id
/mcp__(gh|gl)__.*/               regex search on the tool id
Tool(a.b[*].c ~ "x")             nested path, any array element
Tool(f1 ~ "a", f2 != "b")        several conditions, all must hold
```
"""

from __future__ import annotations

from awaken_tool_pattern.errors import PatternSyntaxError
from awaken_tool_pattern.ops import OPERATOR_TOKENS, MatchOp
from awaken_tool_pattern.path import (
    AnyIndexSegment,
    FieldSegment,
    IndexSegment,
    PathSegment,
    WildcardSegment,
)
from awaken_tool_pattern.pattern import (
    AnyArgs,
    ArgMatcher,
    ExactTool,
    FieldCondition,
    FieldsArgs,
    GlobTool,
    PrimaryArg,
    RegexTool,
    ToolCallPattern,
    ToolMatcher,
    has_glob_chars,
)
from awaken_tool_pattern.regex import RegexCompileError

_WS = frozenset(" \t\n\r\x0b\x0c")
_ASCII_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_IDENT = _ASCII_ALNUM | {"_", "-"}
_DIGITS = frozenset("0123456789")


def check_pattern(text: str) -> str:
    """``text`` when it parses; else ``ValueError("invalid pattern `text`: …")`` (for config
    validators)."""
    try:
        parse_pattern(text)
    except PatternSyntaxError as exc:
        raise ValueError(f"invalid pattern `{text}`: {exc}") from None
    return text


def parse_pattern(text: str) -> ToolCallPattern:
    """Parse a pattern string; raise :class:`PatternSyntaxError` pointing at the column."""
    return _Parser(text.strip()).parse()


def parse_tool_matcher(text: str) -> ToolMatcher:
    """Parse the tool part alone (``read_file``, ``mcp__gh__*``, ``/^read_.*$/``).

    The one tool-id matching of Awaken: exact ids, globs (:func:`wildcard_match`, anchored) and
    ``/regex/`` (unanchored search; write ``^…$`` to anchor). Raises
    :class:`PatternSyntaxError` for an empty name, an invalid regex or trailing text.
    """
    parser = _Parser(text.strip())
    matcher = parser.tool_part()
    if parser.pos < len(parser.text):
        raise parser.error(f"unexpected trailing: '{parser.text[parser.pos :]}'")
    return matcher


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    # --- cursor helpers ---

    def peek(self, offset: int = 0) -> str | None:
        index = self.pos + offset
        return self.text[index] if index < len(self.text) else None

    def error(self, message: str) -> PatternSyntaxError:
        return PatternSyntaxError(message, self.pos, self.text)

    def skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in _WS:
            self.pos += 1

    def expect(self, char: str) -> None:
        self.skip_ws()
        found = self.peek()
        if found != char:
            shown = "end of input" if found is None else f"'{found}'"
            raise self.error(f"expected '{char}', found {shown}")
        self.pos += 1

    # --- grammar ---

    def parse(self) -> ToolCallPattern:
        tool = self.tool_part()
        self.skip_ws()
        args: ArgMatcher = AnyArgs()
        if self.peek() == "(":
            self.pos += 1
            args = self.arg_part()
            self.expect(")")
        self.skip_ws()
        if self.pos < len(self.text):
            raise self.error(f"unexpected trailing: '{self.text[self.pos :]}'")
        return ToolCallPattern(tool, args)

    def tool_part(self) -> ToolMatcher:
        self.skip_ws()
        if self.peek() == "/":
            return self.regex_tool()
        start = self.pos
        while (char := self.peek()) is not None and char != "(" and char not in _WS:
            self.pos += 1
        name = self.text[start : self.pos]
        if not name:
            raise self.error("empty tool name")
        return GlobTool(name) if has_glob_chars(name) else ExactTool(name)

    def regex_tool(self) -> RegexTool:
        self.pos += 1
        start = self.pos
        depth = 0
        while (char := self.peek()) is not None:
            if char == "\\":
                self.pos += 2 if self.peek(1) is not None else 1
                continue
            if char == "/" and depth == 0:
                break
            if char == "(":
                depth += 1
            elif char == ")":
                depth = max(depth - 1, 0)
            self.pos += 1
        body = self.text[start : self.pos]
        if not body:
            raise self.error("empty regex pattern")
        self.expect("/")
        try:
            return RegexTool(body)
        except RegexCompileError as exc:
            raise self.error(f"invalid regex: {exc}") from None

    def arg_part(self) -> ArgMatcher:
        self.skip_ws()
        if self.peek() == "*":
            after = self.peek(1)
            if after is None or after == ")" or after in _WS:
                self.pos += 1
                self.skip_ws()
                return AnyArgs()
        if self.looks_like_fields():
            return self.field_list()
        return self.primary()

    def looks_like_fields(self) -> bool:
        """Lookahead: a path-like prefix followed by an operator means named field conditions."""
        text = self.text
        i = self.pos
        while i < len(text):
            char = text[i]
            if char in _ASCII_ALNUM or char in "_.":
                i += 1
            elif char == "[":
                close = text.find("]", i)
                i = len(text) if close < 0 else close + 1
            elif char == "*" and (
                (i + 1 < len(text) and text[i + 1] in ".[") or (i > self.pos and text[i - 1] == ".")
            ):
                # a wildcard segment: "*.x", "*[0]", or a trailing "a.*"
                i += 1
            else:
                break
        while i < len(text) and text[i] in _WS:
            i += 1
        return text.startswith(("~", "=", "!~", "!="), i)

    def field_list(self) -> FieldsArgs:
        conditions = [self.condition()]
        while True:
            self.skip_ws()
            if self.peek() != ",":
                break
            self.pos += 1
            conditions.append(self.condition())
        return FieldsArgs(tuple(conditions))

    def condition(self) -> FieldCondition:
        self.skip_ws()
        path = self.path()
        self.skip_ws()
        op = self.operator()
        self.skip_ws()
        return FieldCondition(tuple(path), op, self.quoted_value())

    def path(self) -> list[PathSegment]:
        segments: list[PathSegment] = []
        while True:
            self.skip_ws()
            if self.peek() == "*":
                self.pos += 1
                segments.append(WildcardSegment())
            else:
                segments.append(FieldSegment(self.identifier()))
            while self.peek() == "[":
                self.pos += 1
                self.skip_ws()
                if self.peek() == "*":
                    self.pos += 1
                    segments.append(AnyIndexSegment())
                else:
                    segments.append(IndexSegment(self.index()))
                self.expect("]")
            if self.peek() != ".":
                return segments
            self.pos += 1

    def identifier(self) -> str:
        start = self.pos
        while (char := self.peek()) is not None and char in _IDENT:
            self.pos += 1
        if self.pos == start:
            raise self.error("expected identifier")
        return self.text[start : self.pos]

    def index(self) -> int:
        start = self.pos
        while (char := self.peek()) is not None and char in _DIGITS:
            self.pos += 1
        digits = self.text[start : self.pos]
        if not digits:
            raise self.error(f"invalid index: '{digits}'")
        return int(digits)

    def operator(self) -> MatchOp:
        for token, op in OPERATOR_TOKENS:
            if self.text.startswith(token, self.pos):
                self.pos += len(token)
                return op
        raise self.error("expected operator: ~, =, =~, !~, !=, or !=~")

    def quoted_value(self) -> str:
        """A ``"…"`` or ``'…'`` string; ``\\<quote>`` and ``\\\\`` unescape, other ``\\x`` stay."""
        self.skip_ws()
        quote = self.peek()
        if quote not in ('"', "'"):
            raise self.error("expected '\"' to start value")
        self.pos += 1
        out: list[str] = []
        while True:
            char = self.peek()
            if char is None:
                raise self.error("unterminated string literal")
            self.pos += 1
            if char == quote:
                return "".join(out)
            if char != "\\":
                out.append(char)
                continue
            escaped = self.peek()
            if escaped is None:
                raise self.error("unterminated escape sequence")
            self.pos += 1
            out.append(escaped if escaped in (quote, "\\") else "\\" + escaped)

    def primary(self) -> PrimaryArg:
        self.skip_ws()
        start = self.pos
        depth = 0
        while (char := self.peek()) is not None:
            if char == ")":
                if depth == 0:
                    break
                depth -= 1
            elif char == "(":
                depth += 1
            self.pos += 1
        value = self.text[start : self.pos].strip()
        if not value:
            raise self.error("empty primary pattern")
        return PrimaryArg(value)
