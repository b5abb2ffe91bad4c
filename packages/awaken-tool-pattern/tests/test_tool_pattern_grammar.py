"""Grammar table of the tool-pattern DSL: what each form parses to, and malformed inputs."""

from __future__ import annotations

import pickle

import pytest
from awaken_tool_pattern import (
    AnyArgs,
    AnyIndexSegment,
    ExactTool,
    FieldCondition,
    FieldsArgs,
    FieldSegment,
    GlobTool,
    IndexSegment,
    MatchOp,
    PathSegment,
    PatternParseError,
    PatternSyntaxError,
    PrimaryArg,
    RegexTool,
    ToolCallPattern,
    WildcardSegment,
    parse_pattern,
)


def field(path: str, op: MatchOp, value: str) -> FieldCondition:
    segments: list[PathSegment] = []
    for part in path.split("."):
        name, *indexes = part.split("[")
        segments.append(WildcardSegment() if name == "*" else FieldSegment(name))
        for index in indexes:
            text = index.rstrip("]")
            segments.append(AnyIndexSegment() if text == "*" else IndexSegment(int(text)))
    return FieldCondition(tuple(segments), op, value)


VALID = [
    # text, tool matcher, arg matcher, canonical text
    ("Bash", ExactTool("Bash"), AnyArgs(), "Bash"),
    ("Bash(*)", ExactTool("Bash"), AnyArgs(), "Bash"),
    ("  Bash ( * )  ", ExactTool("Bash"), AnyArgs(), "Bash"),
    ("mcp__github__*", GlobTool("mcp__github__*"), AnyArgs(), "mcp__github__*"),
    ("file_?", GlobTool("file_?"), AnyArgs(), "file_?"),
    ("Bas[hH]", GlobTool("Bas[hH]"), AnyArgs(), "Bas[hH]"),
    ("{a,b}", ExactTool("{a,b}"), AnyArgs(), "{a,b}"),
    ("/mcp__(gh|gl)__.*/", RegexTool("mcp__(gh|gl)__.*"), AnyArgs(), "/mcp__(gh|gl)__.*/"),
    (r"/foo\/bar/", RegexTool(r"foo\/bar"), AnyArgs(), r"/foo\/bar/"),
    ("/a(b/c)/", RegexTool("a(b/c)"), AnyArgs(), "/a(b/c)/"),
    ("/^Bash$/(npm *)", RegexTool("^Bash$"), PrimaryArg("npm *"), "/^Bash$/(npm *)"),
    ("Bash(npm *)", ExactTool("Bash"), PrimaryArg("npm *"), "Bash(npm *)"),
    ("Bash(  npm * )", ExactTool("Bash"), PrimaryArg("npm *"), "Bash(npm *)"),
    ("Bash(*foo)", ExactTool("Bash"), PrimaryArg("*foo"), "Bash(*foo)"),
    ("Bash(echo (a) b)", ExactTool("Bash"), PrimaryArg("echo (a) b"), "Bash(echo (a) b)"),
    ('Bash("npm *")', ExactTool("Bash"), PrimaryArg('"npm *"'), 'Bash("npm *")'),
    (
        'Tool(file-path ~ "x")',
        ExactTool("Tool"),
        PrimaryArg('file-path ~ "x"'),
        'Tool(file-path ~ "x")',
    ),
    (
        'Edit(file_path ~ "src/**")',
        ExactTool("Edit"),
        FieldsArgs((field("file_path", MatchOp.GLOB, "src/**"),)),
        'Edit(file_path ~ "src/**")',
    ),
    (
        'Edit( file_path~"x" )',
        ExactTool("Edit"),
        FieldsArgs((field("file_path", MatchOp.GLOB, "x"),)),
        'Edit(file_path ~ "x")',
    ),
    (
        "Bash(command ~ 'rm *')",
        ExactTool("Bash"),
        FieldsArgs((field("command", MatchOp.GLOB, "rm *"),)),
        'Bash(command ~ "rm *")',
    ),
    (
        "Edit(file_path ~ '*.toml')",
        ExactTool("Edit"),
        FieldsArgs((field("file_path", MatchOp.GLOB, "*.toml"),)),
        'Edit(file_path ~ "*.toml")',
    ),
    (
        'Bash(command =~ "(?i)rm")',
        ExactTool("Bash"),
        FieldsArgs((field("command", MatchOp.REGEX, "(?i)rm"),)),
        'Bash(command =~ "(?i)rm")',
    ),
    (
        'Bash(command =~ "(?i)rm\\s+-rf")',
        ExactTool("Bash"),
        FieldsArgs((field("command", MatchOp.REGEX, r"(?i)rm\s+-rf"),)),
        'Bash(command =~ "(?i)rm\\s+-rf")',
    ),
    (
        'Tool(a.b[*].c ~ "x")',
        ExactTool("Tool"),
        FieldsArgs((field("a.b[*].c", MatchOp.GLOB, "x"),)),
        'Tool(a.b[*].c ~ "x")',
    ),
    (
        'Tool(items[0].name = "x")',
        ExactTool("Tool"),
        FieldsArgs((field("items[0].name", MatchOp.EXACT, "x"),)),
        'Tool(items[0].name = "x")',
    ),
    (
        'Tool(m[ 1 ][*] = "x")',
        ExactTool("Tool"),
        FieldsArgs((field("m[1][*]", MatchOp.EXACT, "x"),)),
        'Tool(m[1][*] = "x")',
    ),
    (
        'mcp__*(*.password =~ ".*")',
        GlobTool("mcp__*"),
        FieldsArgs((field("*.password", MatchOp.REGEX, ".*"),)),
        'mcp__*(*.password =~ ".*")',
    ),
    (
        'Tool(env.* ~ "secret*")',
        ExactTool("Tool"),
        FieldsArgs((field("env.*", MatchOp.GLOB, "secret*"),)),
        'Tool(env.* ~ "secret*")',
    ),
    ("Bash(*=1)", ExactTool("Bash"), PrimaryArg("*=1"), "Bash(*=1)"),
    (
        'Tool(f1 ~ "a", f2 = "b")',
        ExactTool("Tool"),
        FieldsArgs((field("f1", MatchOp.GLOB, "a"), field("f2", MatchOp.EXACT, "b"))),
        'Tool(f1 ~ "a", f2 = "b")',
    ),
    (
        'T(a !~ "x",b!="y" ,  c !=~ "z")',
        ExactTool("T"),
        FieldsArgs(
            (
                field("a", MatchOp.NOT_GLOB, "x"),
                field("b", MatchOp.NOT_EXACT, "y"),
                field("c", MatchOp.NOT_REGEX, "z"),
            )
        ),
        'T(a !~ "x", b != "y", c !=~ "z")',
    ),
    # escapes: \" and \\ unescape, any other \x is kept as written
    (
        'T(a = "say \\"hi\\" \\\\ \\d")',
        ExactTool("T"),
        FieldsArgs((field("a", MatchOp.EXACT, 'say "hi" \\ \\d'),)),
        'T(a = "say \\"hi\\" \\ \\d")',  # a lone backslash needs no escape
    ),
    (
        "T(a = 'it\\'s \"x\"')",
        ExactTool("T"),
        FieldsArgs((field("a", MatchOp.EXACT, 'it\'s "x"'),)),
        'T(a = "it\'s \\"x\\"")',
    ),
    # no "]": the lookahead sees no field path, so this is primary text
    ('T(a[1 ~ "1")', ExactTool("T"), PrimaryArg('a[1 ~ "1"'), 'T(a[1 ~ "1")'),
    # non-ASCII is not a path character: the lookahead finds no field list -> primary text
    ("Tool(ä = 'ü')", ExactTool("Tool"), PrimaryArg("ä = 'ü'"), "Tool(ä = 'ü')"),
]


@pytest.mark.parametrize(("text", "tool", "args", "canonical"), VALID)
def test_valid_patterns_parse(text: str, tool: object, args: object, canonical: str) -> None:
    pattern = parse_pattern(text)
    assert pattern.tool == tool
    assert pattern.args == args
    assert str(pattern) == canonical


@pytest.mark.parametrize(("text", "tool", "args", "canonical"), VALID)
def test_canonical_form_round_trips(text: str, tool: object, args: object, canonical: str) -> None:
    assert parse_pattern(canonical) == parse_pattern(text)


MALFORMED = [
    # text, message, position (character offset in the trimmed text)
    ("", "empty tool name", 0),
    ("   ", "empty tool name", 0),
    ("(npm *)", "empty tool name", 0),
    ("Bash(npm *", "expected ')', found end of input", 10),
    ('Bash(* = "x")', "expected ')', found '='", 7),
    ("Bash(FOO=1 make)", "expected '\"' to start value", 9),
    ("Bash(ls = foo)", "expected '\"' to start value", 10),
    ('T(a ~ "x",)', "expected identifier", 10),
    ('T(a ~ "x", )', "expected identifier", 11),
    ('T(a ~ "x)', "unterminated string literal", 9),
    ("T(a ~ 'x)", "unterminated string literal", 9),
    ('T(a ~ "x\\', "unterminated escape sequence", 9),
    ("Bash()", "empty primary pattern", 5),
    ("Bash(   )", "empty primary pattern", 8),
    ("//", "empty regex pattern", 1),
    ("/abc", "expected '/', found end of input", 4),
    ("Bash foo", "unexpected trailing: 'foo'", 5),
    ("Bash(*) x", "unexpected trailing: 'x'", 8),
    ('T(a[x] ~ "1")', "invalid index: ''", 4),
    ('T(a[1 ~ "1"] ~ "2")', "expected ']', found '~'", 6),
    ('T(a. ~ "1")', "expected identifier", 5),
    ('T(a ~ "1" b ~ "2")', "expected ')', found 'b'", 10),
]


@pytest.mark.parametrize(("text", "message", "position"), MALFORMED)
def test_malformed_patterns_point_at_the_column(text: str, message: str, position: int) -> None:
    with pytest.raises(PatternSyntaxError) as info:
        parse_pattern(text)
    err = info.value
    assert err.message == message
    assert err.position == position
    assert str(err) == f"parse error at {position}: {message}"


def test_invalid_tool_regex_is_a_parse_error() -> None:
    with pytest.raises(PatternSyntaxError) as info:
        parse_pattern("/[invalid/")
    assert info.value.message.startswith("invalid regex: ")


def test_error_is_a_value_error_with_a_caret_pointer() -> None:
    with pytest.raises(ValueError) as info:
        parse_pattern("Bash(ls = foo)")
    err = info.value
    assert isinstance(err, PatternSyntaxError)
    assert PatternParseError is PatternSyntaxError
    assert err.pointer().splitlines() == [
        "Bash(ls = foo)",
        "          ^ expected '\"' to start value",
    ]


def test_error_survives_pickling() -> None:
    with pytest.raises(PatternSyntaxError) as info:
        parse_pattern("Bash(")
    clone = pickle.loads(pickle.dumps(info.value))
    assert (clone.message, clone.position, str(clone)) == (
        info.value.message,
        info.value.position,
        str(info.value),
    )


def test_patterns_are_hashable_values() -> None:
    a = parse_pattern('Edit( file_path~"x" )')
    b = parse_pattern('Edit(file_path ~ "x")')
    assert a == b and hash(a) == hash(b)
    assert len({a, b, parse_pattern("Edit")}) == 2


def test_programmatic_constructors() -> None:
    assert ToolCallPattern.for_tool("read_file") == parse_pattern("read_file")
    assert ToolCallPattern.for_tool("file_*") == parse_pattern("file_*")
    assert ToolCallPattern.with_primary("Bash", "npm *") == parse_pattern("Bash(npm *)")
    fields = ToolCallPattern.with_fields("Edit", [field("path", MatchOp.EXACT, "a")])
    assert str(fields) == 'Edit(path = "a")'
    assert str(ToolCallPattern(ExactTool("T"), PrimaryArg("x", MatchOp.EXACT))) == 'T(= "x")'
    with pytest.raises(ValueError):
        FieldsArgs(())
