"""The tool-call pattern DSL shared by the permission and reminder extensions.

>>> from awaken_tool_pattern import parse_pattern
>>> bool(parse_pattern("Bash(npm *)").matches("Bash", {"command": "npm install"}))
True
"""

from awaken_tool_pattern.errors import PatternParseError, PatternSyntaxError
from awaken_tool_pattern.ops import MatchOp, evaluate_op, op_precision
from awaken_tool_pattern.parser import check_pattern, parse_pattern, parse_tool_matcher
from awaken_tool_pattern.path import (
    AnyIndexSegment,
    FieldSegment,
    IndexSegment,
    PathSegment,
    WildcardSegment,
    render_path,
    resolve_path,
)
from awaken_tool_pattern.pattern import (
    NO_MATCH,
    AnyArgs,
    ArgMatcher,
    ExactTool,
    FieldCondition,
    FieldsArgs,
    GlobTool,
    MatchResult,
    PrimaryArg,
    RegexTool,
    Specificity,
    ToolCallPattern,
    ToolMatcher,
    evaluate_field_condition,
    has_glob_chars,
    pattern_matches,
    primary_value,
)
from awaken_tool_pattern.regex import RegexCompileError, compile_regex, scope_inline_flags
from awaken_tool_pattern.schema import schema_has_path, validate_pattern_fields
from awaken_tool_pattern.values import value_to_string
from awaken_tool_pattern.wildcard import glob_to_regex, wildcard_match

__all__ = [
    "NO_MATCH",
    "AnyArgs",
    "AnyIndexSegment",
    "ArgMatcher",
    "ExactTool",
    "FieldCondition",
    "FieldSegment",
    "FieldsArgs",
    "GlobTool",
    "IndexSegment",
    "MatchOp",
    "MatchResult",
    "PathSegment",
    "PatternParseError",
    "PatternSyntaxError",
    "PrimaryArg",
    "RegexCompileError",
    "RegexTool",
    "Specificity",
    "ToolCallPattern",
    "ToolMatcher",
    "WildcardSegment",
    "check_pattern",
    "compile_regex",
    "evaluate_field_condition",
    "evaluate_op",
    "glob_to_regex",
    "has_glob_chars",
    "op_precision",
    "parse_pattern",
    "parse_tool_matcher",
    "pattern_matches",
    "primary_value",
    "render_path",
    "resolve_path",
    "schema_has_path",
    "scope_inline_flags",
    "validate_pattern_fields",
    "value_to_string",
    "wildcard_match",
]
