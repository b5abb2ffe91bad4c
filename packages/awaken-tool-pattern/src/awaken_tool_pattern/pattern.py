"""The parsed form of a tool-call pattern and how it matches a call (tool id + JSON arguments)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from awaken_tool_pattern.ops import MatchOp, evaluate_op, op_precision
from awaken_tool_pattern.path import PathSegment, render_path, resolve_path
from awaken_tool_pattern.regex import compile_regex
from awaken_tool_pattern.values import value_to_string
from awaken_tool_pattern.wildcard import wildcard_match

_GLOB_CHARS = frozenset("*?[")
_MAX_SCORE = 255


def has_glob_chars(text: str) -> bool:
    """Whether a tool name is a glob (contains ``*``, ``?`` or ``[``)."""
    return any(char in _GLOB_CHARS for char in text)


# --- tool matchers -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExactTool:
    """The tool id equals ``name``."""

    name: str

    def matches(self, tool_id: str) -> bool:
        """Whether ``tool_id`` is this tool."""
        return tool_id == self.name

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class GlobTool:
    """The tool id matches the glob ``pattern`` (``mcp__github__*``)."""

    pattern: str

    def matches(self, tool_id: str) -> bool:
        """Whether ``tool_id`` matches the glob."""
        return wildcard_match(self.pattern, tool_id)

    def __str__(self) -> str:
        return self.pattern


@dataclass(frozen=True, slots=True)
class RegexTool:
    """A regex search finds ``source`` in the tool id (written ``/source/``).

    Building one with an invalid ``source`` raises ``RegexCompileError``.
    """

    source: str

    def __post_init__(self) -> None:
        compile_regex(self.source)

    def matches(self, tool_id: str) -> bool:
        """Whether the regex is found in ``tool_id``."""
        return compile_regex(self.source).search(tool_id) is not None

    def __str__(self) -> str:
        return f"/{self.source}/"


ToolMatcher = ExactTool | GlobTool | RegexTool

_TOOL_KIND: dict[type[ExactTool | GlobTool | RegexTool], int] = {
    ExactTool: 3,
    GlobTool: 2,
    RegexTool: 1,
}


# --- argument matchers ---------------------------------------------------------------------


def quote_value(value: str) -> str:
    """``value`` as a double-quoted pattern string that parses back to ``value``."""
    out = []
    for index, char in enumerate(value):
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            following = value[index + 1 : index + 2]
            out.append("\\\\" if following in ('"', "\\", "") else "\\")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


@dataclass(frozen=True, slots=True)
class FieldCondition:
    """``path op "value"``: holds when any value reached by ``path`` satisfies ``op``.

    A path that reaches nothing makes the condition false whatever the operator.
    """

    path: tuple[PathSegment, ...]
    op: MatchOp
    value: str

    def evaluate(self, args: Any) -> bool:
        """Whether the condition holds for the JSON ``args``."""
        resolved = resolve_path(args, self.path)
        return any(evaluate_op(self.op, self.value, value_to_string(item)) for item in resolved)

    def __str__(self) -> str:
        return f"{render_path(self.path)} {self.op.token} {quote_value(self.value)}"


def evaluate_field_condition(condition: FieldCondition, args: Any) -> bool:
    """Whether ``condition`` holds for the JSON ``args``."""
    return condition.evaluate(args)


def primary_value(args: Any) -> str:
    """The value a primary matcher compares: the only member of a one-key object, else all."""
    if isinstance(args, dict) and len(args) == 1:
        return value_to_string(next(iter(args.values())))
    return value_to_string(args)


@dataclass(frozen=True, slots=True)
class AnyArgs:
    """Any arguments (written as nothing or ``(*)``)."""

    def matches(self, args: Any) -> bool:
        """Always true."""
        return True

    def __str__(self) -> str:
        return ""


@dataclass(frozen=True, slots=True)
class PrimaryArg:
    """``op`` against the primary value of the arguments (``Bash(npm *)``)."""

    value: str
    op: MatchOp = MatchOp.GLOB

    def matches(self, args: Any) -> bool:
        """Whether the primary value of ``args`` satisfies the operator."""
        return evaluate_op(self.op, self.value, primary_value(args))

    def __str__(self) -> str:
        if self.op is MatchOp.GLOB:
            return f"({self.value})"
        return f"({self.op.token} {quote_value(self.value)})"


@dataclass(frozen=True, slots=True)
class FieldsArgs:
    """Named field conditions that must all hold (``Edit(file_path ~ "src/**", mode = "w")``)."""

    conditions: tuple[FieldCondition, ...]

    def __post_init__(self) -> None:
        if not self.conditions:
            raise ValueError("a field matcher needs at least one condition")

    def matches(self, args: Any) -> bool:
        """Whether every condition holds."""
        return all(condition.evaluate(args) for condition in self.conditions)

    def __str__(self) -> str:
        return "(" + ", ".join(str(condition) for condition in self.conditions) + ")"


ArgMatcher = AnyArgs | PrimaryArg | FieldsArgs


# --- specificity and results ---------------------------------------------------------------


class Specificity(NamedTuple):
    """How specific a match is; compared as a tuple (higher is more specific)."""

    tool_kind: int
    has_args: bool
    field_count: int
    field_precision: int


@dataclass(frozen=True, slots=True)
class MatchResult:
    """Outcome of matching a call: ``specificity`` is ``None`` when the pattern did not match."""

    specificity: Specificity | None = None

    @property
    def matched(self) -> bool:
        """Whether the pattern matched."""
        return self.specificity is not None

    def __bool__(self) -> bool:
        return self.matched


NO_MATCH = MatchResult()


def _arg_specificity(args: ArgMatcher) -> tuple[bool, int, int]:
    if isinstance(args, AnyArgs):
        return (False, 0, 0)
    if isinstance(args, PrimaryArg):
        return (True, 1, op_precision(args.op))
    precision = sum(op_precision(condition.op) for condition in args.conditions)
    return (True, min(len(args.conditions), _MAX_SCORE), min(precision, _MAX_SCORE))


# --- the pattern ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolCallPattern:
    """Which tool (exact, glob or regex on the id) and, optionally, which arguments.

    ``str(pattern)`` is the canonical text (``Bash(*)`` → ``Bash``) used as rule identity.
    """

    tool: ToolMatcher
    args: ArgMatcher = AnyArgs()

    @classmethod
    def for_tool(cls, name: str) -> ToolCallPattern:
        """Any call of the tool ``name`` (a glob when ``name`` has ``*``, ``?`` or ``[``)."""
        return cls(GlobTool(name) if has_glob_chars(name) else ExactTool(name))

    @classmethod
    def with_primary(cls, name: str, glob: str) -> ToolCallPattern:
        """Calls of ``name`` whose primary argument value matches ``glob`` (``Bash(npm *)``)."""
        return cls(cls.for_tool(name).tool, PrimaryArg(glob))

    @classmethod
    def with_fields(cls, name: str, conditions: Sequence[FieldCondition]) -> ToolCallPattern:
        """Calls of ``name`` whose arguments satisfy every condition."""
        return cls(cls.for_tool(name).tool, FieldsArgs(tuple(conditions)))

    @property
    def specificity(self) -> Specificity:
        """The specificity a match of this pattern has."""
        return Specificity(_TOOL_KIND[type(self.tool)], *_arg_specificity(self.args))

    def matches(self, tool_id: str, args: Any = None) -> MatchResult:
        """Match a call of ``tool_id`` with decoded JSON ``args`` (``None`` is JSON null)."""
        if not self.tool.matches(tool_id) or not self.args.matches(args):
            return NO_MATCH
        return MatchResult(self.specificity)

    def __str__(self) -> str:
        return f"{self.tool}{self.args}"


def pattern_matches(pattern: ToolCallPattern, tool_id: str, args: Any = None) -> MatchResult:
    """Match a call of ``tool_id`` with decoded JSON ``args`` against ``pattern``."""
    return pattern.matches(tool_id, args)
