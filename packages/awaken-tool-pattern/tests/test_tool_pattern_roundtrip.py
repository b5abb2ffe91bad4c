"""Property tests: the canonical text of any pattern parses back to the same pattern."""

from __future__ import annotations

from awaken_tool_pattern import (
    AnyIndexSegment,
    ExactTool,
    FieldCondition,
    FieldsArgs,
    FieldSegment,
    GlobTool,
    IndexSegment,
    MatchOp,
    PathSegment,
    ToolCallPattern,
    WildcardSegment,
    parse_pattern,
    wildcard_match,
)
from hypothesis import given
from hypothesis import strategies as st

# "-" is a valid identifier character, but the field-list lookahead (rule R3) does not scan it,
# so a path containing "-" reads as primary text; see test_tool_pattern_grammar.py
IDENT = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
    min_size=1,
    max_size=8,
)
TOOL_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=10).map(
    lambda name: "t" + name
)
VALUE = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=20)


@st.composite
def paths(draw: st.DrawFn) -> tuple[PathSegment, ...]:
    segments: list[PathSegment] = []
    for _ in range(draw(st.integers(1, 3))):
        segments.append(draw(st.one_of(IDENT.map(FieldSegment), st.just(WildcardSegment()))))
        for _ in range(draw(st.integers(0, 2))):
            segments.append(
                draw(
                    st.one_of(
                        st.integers(0, 99).map(IndexSegment),
                        st.just(AnyIndexSegment()),
                    )
                )
            )
    if segments == [WildcardSegment()]:
        # a lone "*" in argument position means "any arguments" (grammar rule R2)
        segments.append(FieldSegment("x"))
    return tuple(segments)


CONDITION = st.builds(FieldCondition, paths(), st.sampled_from(list(MatchOp)), VALUE)


@given(
    TOOL_NAME,
    st.booleans(),
    st.lists(CONDITION, min_size=1, max_size=3),
)
def test_field_patterns_round_trip(name: str, glob: bool, conditions: list[FieldCondition]) -> None:
    tool = GlobTool(name + "*") if glob else ExactTool(name)
    pattern = ToolCallPattern(tool, FieldsArgs(tuple(conditions)))
    assert parse_pattern(str(pattern)) == pattern


@given(TOOL_NAME)
def test_plain_names_round_trip(name: str) -> None:
    assert parse_pattern(name) == ToolCallPattern(ExactTool(name))
    assert str(parse_pattern(f"{name}(*)")) == name


@given(st.text(alphabet="ab/.", max_size=12))
def test_a_trailing_double_star_matches_any_suffix(value: str) -> None:
    assert wildcard_match("**", value)
    assert wildcard_match("a**", "a" + value)
