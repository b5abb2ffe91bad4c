"""Matching table: tool ids and JSON arguments against patterns, specificity, value strings."""

from __future__ import annotations

from typing import Any

import pytest
from awaken_tool_pattern import (
    MatchOp,
    PatternSyntaxError,
    Specificity,
    evaluate_op,
    op_precision,
    parse_pattern,
    pattern_matches,
    primary_value,
    resolve_path,
    schema_has_path,
    validate_pattern_fields,
    value_to_string,
    wildcard_match,
)
from awaken_tool_pattern.regex import scope_inline_flags

MATCHES: list[tuple[str, str, Any, bool]] = [
    # tool names
    ("Bash", "Bash", {"command": "ls"}, True),
    ("Bash", "bash", {}, False),
    ("Bash(*)", "Bash", None, True),
    ("mcp__github__*", "mcp__github__create_issue", {}, True),
    ("mcp__github__*", "mcp__gitlab__x", {}, False),
    ("/mcp__(gh|gl)__.*/", "mcp__gl__list", {}, True),
    ("/gh/", "mcp__gh__list", {}, True),  # unanchored search
    ("/^gh/", "mcp__gh__list", {}, False),
    ("/(?i)bash/", "BASH", {}, True),
    # primary value: the only member of a one-key object, else the whole arguments
    ("Bash(npm *)", "Bash", {"command": "npm install"}, True),
    ("Bash(npm *)", "Bash", {"command": "yarn add"}, False),
    ("Bash(rm *)", "Bash", {"command": "rm -rf /"}, True),
    ("Bash(npm *)", "Bash", {"command": "npm i", "cwd": "/"}, False),
    ('Bash(*"cwd":"/"*)', "Bash", {"command": "x", "cwd": "/"}, True),
    ("Count(42)", "Count", {"n": 42}, True),
    ("Flag(true)", "Flag", {"on": True}, True),
    ("Bash(*)", "Bash", {"command": "anything"}, True),
    ("Bash(?)", "Bash", None, False),  # null args -> primary value ""
    # named fields
    ('Edit(file_path ~ "src/**")', "Edit", {"file_path": "src/a/b.rs"}, True),
    ('Edit(file_path ~ "src/**")', "Edit", {"file_path": "tests/a.rs"}, False),
    ('Edit(file_path ~ "/etc/*")', "Edit", {"path": "/etc/x"}, False),  # field missing
    ("Edit(file_path ~ '*.toml')", "Edit", {"file_path": "Cargo.toml"}, True),
    ("Edit(file_path ~ '*.toml')", "Edit", {"file_path": "crates/x/Cargo.toml"}, False),
    ('Bash(command =~ "(?i)rm\\s+-rf")', "Bash", {"command": "sudo RM  -rf /"}, True),
    ('Bash(command =~ "^ls")', "Bash", {"command": "echo; ls"}, False),
    ('Bash(command =~ "(")', "Bash", {"command": "("}, False),  # invalid regex never matches
    ('Bash(command !=~ "(")', "Bash", {"command": "("}, True),
    ('Bash(command !~ "git *")', "Bash", {"command": "ls"}, True),
    ('Bash(command !~ "git *")', "Bash", {"command": "git push"}, False),
    ('Bash(command != "ls")', "Bash", {}, False),  # negations do not match absent fields
    ('T(mode = "w")', "T", {"mode": "w"}, True),
    ('T(mode = "w")', "T", {"mode": "wb"}, False),
    ('T(n = "3")', "T", {"n": 3}, True),
    ('T(n = "2.5")', "T", {"n": 2.5}, True),
    ('T(x = "")', "T", {"x": None}, True),
    ('T(ok = "false")', "T", {"ok": False}, True),
    ('T(o = "{\\"a\\":1,\\"b\\":[1,2]}")', "T", {"o": {"b": [1, 2], "a": 1}}, True),
    ('Tool(a.b[*].c ~ "x*")', "Tool", {"a": {"b": [{"c": "y"}, {"c": "xz"}]}}, True),
    ('Tool(a.b[*].c ~ "x*")', "Tool", {"a": {"b": [{"c": "y"}]}}, False),
    ('Tool(a.b[*].c ~ "x*")', "Tool", {"a": {"b": {"c": "x"}}}, False),  # not an array
    ('Tool(items[0].name = "x")', "Tool", {"items": [{"name": "x"}, {"name": "y"}]}, True),
    ('Tool(items[1].name = "x")', "Tool", {"items": [{"name": "x"}, {"name": "y"}]}, False),
    ('Tool(items[5].name = "x")', "Tool", {"items": [{"name": "x"}]}, False),
    ('mcp__*(*.password =~ ".*")', "mcp__db__connect", {"cfg": {"password": "s"}}, True),
    ('mcp__*(*.password =~ ".*")', "mcp__db__connect", {"password": "s"}, False),
    ('Tool(tags[*] != "x")', "Tool", {"tags": ["x", "y"]}, True),  # existential negation
    ('Tool(tags[*] != "x")', "Tool", {"tags": ["x"]}, False),
    ('Tool(f1 ~ "a*", f2 = "b")', "Tool", {"f1": "ab", "f2": "b"}, True),
    ('Tool(f1 ~ "a*", f2 = "b")', "Tool", {"f1": "ab", "f2": "c"}, False),
    ('Tool(f1 ~ "a*", f2 = "b")', "Tool", None, False),
    ('T(ä ~ "x")', "T", {"ä": "x"}, False),  # not a field list: primary glob on the text
]


@pytest.mark.parametrize(("text", "tool_id", "args", "expected"), MATCHES)
def test_match_table(text: str, tool_id: str, args: Any, expected: bool) -> None:
    pattern = parse_pattern(text)
    result = pattern_matches(pattern, tool_id, args)
    assert result.matched is expected
    assert bool(result) is expected
    assert (result.specificity is not None) is expected


SPECIFICITY = [
    ("Bash", Specificity(3, False, 0, 0)),
    ("mcp__*", Specificity(2, False, 0, 0)),
    ("/x/", Specificity(1, False, 0, 0)),
    ("Bash(npm *)", Specificity(3, True, 1, 2)),
    ('Bash(command = "x")', Specificity(3, True, 1, 3)),
    ('Bash(command =~ "x")', Specificity(3, True, 1, 1)),
    ('T(a = "1", b ~ "2", c =~ "3")', Specificity(3, True, 3, 6)),
]


@pytest.mark.parametrize(("text", "expected"), SPECIFICITY)
def test_specificity(text: str, expected: Specificity) -> None:
    pattern = parse_pattern(text)
    assert pattern.specificity == expected


def test_a_match_reports_the_pattern_specificity() -> None:
    pattern = parse_pattern('Bash(command = "x")')
    assert pattern.matches("Bash", {"command": "x"}).specificity == Specificity(3, True, 1, 3)


def test_specificity_orders_lexicographically() -> None:
    order = ["/Bash/", "Ba*", "Ba*(npm *)", "Bash", "Bash(npm *)", 'Bash(command = "npm")']
    ranked = sorted(order, key=lambda text: parse_pattern(text).specificity)
    assert ranked == order
    cap = parse_pattern("T(" + ", ".join(f'f{i} = "x"' for i in range(300)) + ")")
    assert cap.specificity == Specificity(3, True, 255, 255)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("abc", "abc"),
        (None, ""),
        (True, "true"),
        (False, "false"),
        (42, "42"),
        (2.5, "2.5"),
        (1.0, "1.0"),
        ([1, "a"], '[1,"a"]'),
        ({"b": 1, "a": "é"}, '{"a":"é","b":1}'),
    ],
)
def test_value_to_string(value: Any, text: str) -> None:
    assert value_to_string(value) == text


def test_primary_value_and_path_resolution() -> None:
    assert primary_value({"command": "ls"}) == "ls"
    assert primary_value({"a": 1, "b": 2}) == '{"a":1,"b":2}'
    assert primary_value(None) == ""
    pattern = parse_pattern('T(a.b[*].c ~ "x")')
    path = pattern.args.conditions[0].path  # type: ignore[union-attr]
    assert resolve_path({"a": {"b": [{"c": 1}, {"d": 2}, {"c": 3}]}}, path) == [1, 3]
    assert resolve_path({"a": 1}, path) == []
    assert resolve_path({"x": 1}, ()) == [{"x": 1}]


@pytest.mark.parametrize(
    ("op", "pattern", "value", "expected"),
    [
        (MatchOp.GLOB, "a*", "abc", True),
        (MatchOp.NOT_GLOB, "a*", "abc", False),
        (MatchOp.EXACT, "a", "a", True),
        (MatchOp.NOT_EXACT, "a", "a", False),
        (MatchOp.REGEX, "b", "abc", True),
        (MatchOp.NOT_REGEX, "b", "abc", False),
        (MatchOp.REGEX, "[", "[", False),
        (MatchOp.NOT_REGEX, "[", "[", True),
    ],
)
def test_evaluate_op(op: MatchOp, pattern: str, value: str, expected: bool) -> None:
    assert evaluate_op(op, pattern, value) is expected


def test_operator_tokens_and_precision() -> None:
    assert [op.token for op in MatchOp] == ["~", "=", "=~", "!~", "!=", "!=~"]
    assert MatchOp.from_token("!=~") is MatchOp.NOT_REGEX
    assert [op_precision(op) for op in MatchOp] == [2, 3, 1, 2, 3, 1]
    assert MatchOp("not_glob") is MatchOp.NOT_GLOB
    with pytest.raises(ValueError):
        MatchOp.from_token("<>")


WILDCARDS = [
    ("rm *", "rm -rf /", True),
    ("curl *", "curl https://example.com", True),
    ("src/**/*.rs", "src/main.rs", True),
    ("src/**/*.rs", "src/sub/lib.rs", True),
    ("src/**/*.rs", "tests/test.rs", False),
    ("*.rs", "main.rs", True),
    ("*.rs", "src/main.rs", False),
    ("*.toml", "crates/x/Cargo.toml", False),
    ("**/*.md", "a.md", True),
    ("**/*.md", "docs/a.md", True),
    ("*/x", "a/b/x", True),
    ("*foo", "a/foo", False),
    ("*npm*", "x npm y", True),
    ("*npm*", "a/npm/b", False),
    ("*permission denied*", "Error: permission denied for /etc/passwd", True),
    ("*| *", "curl a/b | sh", False),
    ("/etc/*", "/etc/ssh/cfg", True),
    ("mcp__*", "mcp__github__create", True),
    ("Bas[hH]", "Bash", True),
    ("BASH", "bash", False),
    ("{a,b}*", "bcd", True),
    ("{a,b}*", "cd", False),
    ("?", "/", False),
    ("?", "x", True),
    ("***", "anything", True),
    ("a/**", "a", True),
    ("a/**", "a/b/c", True),
    ("a/**/b", "a/b", True),
    ("a/**/b", "a/x/y/b", True),
    ("[!a]x", "bx", True),
    ("[^a]x", "ax", False),
    ("[a-c]", "b", True),
    ("[a-c]", "d", False),
    ("\\*", "*", True),
    ("\\*", "a", False),
    ("!*.rs", "main.py", True),
    ("!*.rs", "main.rs", False),
    ("!!*.rs", "main.rs", True),
    ("{src,lib}/**/*.{rs,toml}", "lib/x/Cargo.toml", True),
    ("[abc", "[abc", True),  # unclosed class is literal
    ("", "", True),
    ("", "x", False),
]


@pytest.mark.parametrize(("pattern", "value", "expected"), WILDCARDS)
def test_wildcard_table(pattern: str, value: str, expected: bool) -> None:
    assert wildcard_match(pattern, value) is expected


SCHEMA = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string"},
        "items": {"type": "array", "items": {"properties": {"name": {"type": "string"}}}},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}


def test_schema_helpers() -> None:
    ok = parse_pattern('Edit(file_path ~ "x", items[*].name = "y", env.HOME = "z")')
    assert validate_pattern_fields(ok, SCHEMA) == []
    bad = parse_pattern('Edit(path ~ "x", items[0].id = "y")')
    assert validate_pattern_fields(bad, SCHEMA) == ["path", "items.[0].id"]
    assert validate_pattern_fields(parse_pattern("Edit(npm *)"), SCHEMA) == []
    wildcard = parse_pattern('Edit(*.name = "x")')
    assert validate_pattern_fields(wildcard, SCHEMA) == []
    assert schema_has_path(SCHEMA, ())


@pytest.mark.parametrize(
    ("source", "rewritten"),
    [
        ("a(?i)b", "a(?i:b)"),
        ("a(?i)b|c", "a(?i:b)|(?i:c)"),
        ("(x(?i)y)z", "(x(?i:y))z"),
        ("a(?i)b(?-i)c", "a(?i:b(?-i:c))"),
        ("(?i)ab", "(?i)ab"),
        ("a[(?i)]b", "a[(?i)]b"),
    ],
)
def test_mid_pattern_inline_flags_are_scoped(source: str, rewritten: str) -> None:
    assert scope_inline_flags(source) == rewritten


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ('T(c =~ "rm(?i) -RF")', "rm -rf", True),
        ('T(c =~ "rm(?i) -RF")', "RM -rf", False),
        ('T(c =~ "x(?i)y|z")', "Z", True),
        ('T(c =~ "(x(?i)y)z")', "xYZ", False),
        ('T(c =~ "a(?U)b")', "ab", False),  # a flag Python lacks: invalid, never matches
        ('T(c !=~ "a(?U)b")', "ab", True),
    ],
)
def test_rust_style_inline_flags_in_values(text: str, value: str, expected: bool) -> None:
    assert parse_pattern(text).matches("T", {"c": value}).matched is expected


def test_rust_style_inline_flags_in_tool_regex() -> None:
    assert parse_pattern("/mcp__(?i)GH__.*/").matches("mcp__gh__list")
    with pytest.raises(PatternSyntaxError):
        parse_pattern("/a(?U)b/")
