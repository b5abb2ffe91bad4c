"""``parse_tool_matcher``: the one tool-id matching (used by permission and skills)."""

from __future__ import annotations

import pytest
from awaken_tool_pattern import (
    ExactTool,
    GlobTool,
    PatternSyntaxError,
    RegexTool,
    parse_tool_matcher,
)


@pytest.mark.parametrize(
    ("pattern", "tool_id", "expected"),
    [
        ("read_file", "read_file", True),
        ("read_file", "read_file_2", False),  # exact is exact
        ("mcp__gh__*", "mcp__gh__create_issue", True),
        ("mcp__gh__*", "mcp__gl__create_issue", False),
        ("mcp__gh__*", "xmcp__gh__a", False),  # globs are anchored
        ("read_?", "read_x", True),
        ("read_?", "read_xy", False),
        ("tool_[ab]", "tool_b", True),
        ("tool_[!ab]", "tool_a", False),
        ("tool_[!ab]", "tool_c", True),
        ("Read*", "read_file", False),  # case-sensitive
        ("/^read_.*$/", "read_x", True),
        ("/^read_.*$/", "xread_", False),  # anchored regex
        ("/read_/", "xread_y", True),  # regex is an unanchored search
        ("/mcp__(gh|gl)__.*/", "mcp__gl__x", True),
        ("/a(?i)b/", "aB", True),  # Rust-style inline flag in the middle
    ],
)
def test_tool_id_matching(pattern: str, tool_id: str, expected: bool) -> None:
    assert parse_tool_matcher(pattern).matches(tool_id) is expected


def test_classification() -> None:
    assert isinstance(parse_tool_matcher(" read_file "), ExactTool)
    assert isinstance(parse_tool_matcher("mcp__*"), GlobTool)
    assert isinstance(parse_tool_matcher("/x/"), RegexTool)


@pytest.mark.parametrize(
    ("pattern", "message"),
    [("", "empty tool name"), ("//", "empty regex"), ("/[/", "invalid regex"), ("a b", "trailing")],
)
def test_invalid_tool_patterns(pattern: str, message: str) -> None:
    with pytest.raises(PatternSyntaxError, match=message):
        parse_tool_matcher(pattern)
