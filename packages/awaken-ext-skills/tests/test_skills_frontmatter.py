"""SKILL.md parsing, frontmatter validation and the allowed-tools grammar."""

from __future__ import annotations

import pytest
from awaken_ext_skills import (
    AllowedToolToken,
    InvalidSkillMd,
    SkillContextMode,
    parse_allowed_tools,
    parse_skill_md,
    substitute_arguments,
    validate_skill_name,
)


def doc(front: str, body: str = "body") -> str:
    return f"---\n{front}\n---\n{body}"


def test_full_frontmatter_round_trip() -> None:
    parsed = parse_skill_md(
        doc(
            "name: data-report\ndescription: ' Reports. '\nallowed-tools: read_file web_search\n"
            "when-to-use: tabular data\narguments:\n  - name: file\n    required: true\n"
            "argument-hint: <file>\nuser-invocable: false\ndisable-model-invocation: true\n"
            "model: fast\ncontext: fork\npaths: |\n  src/**/*.py, **\n  docs/*.md\nlicense: MIT\n"
            "compatibility: python\nmetadata:\n  owner: me\nunknown-key: ignored",
            "# Title\nText",
        ).replace("\n", "\r\n")
    )
    front = parsed.frontmatter
    assert front.name == "data-report" and front.description == "Reports."
    assert [t.tool_id for t in front.allowed_tools] == ["read_file", "web_search"]
    assert front.context is SkillContextMode.FORK
    assert front.paths == ["src/**/*.py", "docs/*.md"]
    assert front.metadata == {"owner": "me"}
    assert parsed.body == "# Title\nText"
    meta = front.to_meta()
    assert meta.id == meta.name == "data-report"
    assert meta.model_invocable is False and meta.user_invocable is False
    assert meta.model_override == "fast" and meta.arguments[0].required


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# no fence", "missing YAML frontmatter"),
        ("---\nname: a\n", "unterminated YAML frontmatter"),
        ("---\nname: [a\n---\n", "invalid YAML frontmatter"),
        ("---\n- a\n---\n", "expected a mapping"),
        (doc("description: d"), "name must be non-empty"),
        (doc("name: Data\ndescription: d"), "lowercase"),
        (doc(f"name: {'a' * 65}\ndescription: d"), "64 characters"),
        (doc("name: -a\ndescription: d"), "must not start with '-'"),
        (doc("name: a-\ndescription: d"), "must not end with '-'"),
        (doc("name: a--b\ndescription: d"), "consecutive '-'"),
        (doc("name: a_b\ndescription: d"), "invalid characters"),
        (doc("name: a"), "description must be non-empty"),
        (doc(f"name: a\ndescription: {'d' * 1025}"), "1024"),
        (doc("name: a\ndescription: d\ncompatibility: ' '"), "compatibility must be non-empty"),
        (doc(f"name: a\ndescription: d\ncompatibility: {'c' * 501}"), "500"),
        (doc("name: a\ndescription: d\ncontext: remote"), 'context must be "inline" or "fork"'),
        (doc("name: a\ndescription: d\nwhen-to-use: ' '"), "when-to-use must be non-empty"),
        (doc("name: a\ndescription: d\narguments:\n  - name: ' '"), "argument name"),
        (doc("name: a\ndescription: d\nmetadata:\n  k: 1"), "metadata value for key 'k'"),
        (doc("name: a\ndescription: d\nallowed-tools: [a, b]"), "space-delimited"),
        (doc("name: a\ndescription: d\nallowed-tools: 'a)'"), "unmatched ')'"),
    ],
)
def test_invalid_skill_md(text: str, message: str) -> None:
    with pytest.raises(InvalidSkillMd, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_skill_md(text)


def test_unicode_names_are_normalised_and_allowed() -> None:
    assert validate_skill_name(" 数据-报告 ") == "数据-报告"
    assert validate_skill_name("ｄａｔａ") == "data"  # NFKC folds full-width letters


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", []),
        ("  read_file   web_search ", [("read_file", None), ("web_search", None)]),
        (
            'read_file Bash(command: "git status")',
            [("read_file", None), ("Bash", 'command: "git status"')],
        ),
        ("Read Edit(path(nested))", [("Read", None), ("Edit", "path(nested)")]),
        ("Bash(echo 'a b') mcp__github__*", [("Bash", "echo 'a b'"), ("mcp__github__*", None)]),
    ],
)
def test_allowed_tools_grammar(text: str, tokens: list[tuple[str, str | None]]) -> None:
    parsed = parse_allowed_tools(text)
    assert [(t.tool_id, t.scope) for t in parsed] == tokens


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a)", "unmatched ')'"),
        ("Bash('open", "unterminated quote"),
        ("Bash(open", "unbalanced parentheses"),
        ("Bash(x)y", "must end with ')'"),
        ("(x)", "invalid tool id"),
    ],
)
def test_allowed_tools_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_allowed_tools(text)


def test_pattern_tokens() -> None:
    assert AllowedToolToken("mcp__x__*").is_pattern
    assert AllowedToolToken("/^read_.*$/").is_pattern
    assert not AllowedToolToken("read_file").is_pattern


def test_argument_substitution() -> None:
    body = "Read ${file} with ${opts}; keep ${missing}; null=${none}."
    out = substitute_arguments(body, {"file": "a.csv", "opts": {"x": 1}, "none": None})
    assert out == 'Read a.csv with {"x":1}; keep ${missing}; null=.'
    assert substitute_arguments(body, "not an object") == body
