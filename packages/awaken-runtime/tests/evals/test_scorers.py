"""Each scorer on hand-made outcomes: the verdict, the value and a reason that says why."""

from __future__ import annotations

import pytest
from awaken_runtime.evals import (
    CaseOutcome,
    EvalCase,
    ObservedToolCall,
    build_scorer,
    extract_json,
)
from awaken_runtime.evals.dataset import EvalDataset


def case(**fields: object) -> EvalCase:
    data = {"id": "c", "input": "hi", "expected": {"output": "x"}, **fields}
    return EvalCase.model_validate(data)


def spec(data: dict[str, object]):  # the discriminated union, parsed as a dataset would
    return EvalCase.model_validate({"id": "s", "input": "hi", "scorers": [data]}).scorers[0]


async def score(
    spec_data: dict[str, object], outcome: CaseOutcome, the_case: EvalCase | None = None
):
    return await build_scorer(spec(spec_data)).score(the_case or case(), outcome)


async def test_exact_trims_and_respects_case() -> None:
    assert (await score({"type": "exact", "value": "Paris"}, CaseOutcome(" Paris\n"))).passed
    wrong = await score({"type": "exact", "value": "Paris"}, CaseOutcome("paris"))
    assert not wrong.passed and "expected 'Paris', got 'paris'" in wrong.reason
    assert (
        await score(
            {"type": "exact", "value": "Paris", "case_sensitive": False}, CaseOutcome("paris")
        )
    ).passed
    assert (await score({"type": "exact"}, CaseOutcome("x"))).passed  # expected.output


async def test_contains_scores_the_fraction_found() -> None:
    result = await score(
        {"type": "contains", "value": ["sunny", "Paris", "rain"]}, CaseOutcome("sunny in Paris")
    )
    assert not result.passed and result.value == pytest.approx(2 / 3)
    assert "rain" in result.reason
    assert (
        await score(
            {"type": "contains", "value": "PARIS", "case_sensitive": False}, CaseOutcome("paris")
        )
    ).passed


async def test_regex_searches() -> None:
    assert (
        await score({"type": "regex", "pattern": r"\d+ words"}, CaseOutcome("it has 4 words"))
    ).passed
    assert not (await score({"type": "regex", "pattern": "^words"}, CaseOutcome("4 words"))).passed
    assert (
        await score(
            {"type": "regex", "pattern": "^WORDS", "ignore_case": True}, CaseOutcome("words")
        )
    ).passed


async def test_json_schema_reads_fenced_or_embedded_json() -> None:
    schema = {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}
    fenced = CaseOutcome('Here:\n```json\n{"n": 3}\n```')
    assert (await score({"type": "json_schema", "schema": schema}, fenced)).passed
    wrong = await score({"type": "json_schema", "schema": schema}, CaseOutcome('{"n": "three"}'))
    assert not wrong.passed and wrong.reason.startswith("n: 'three' is not of type 'integer'")
    not_json = await score({"type": "json_schema", "schema": schema}, CaseOutcome("no json here"))
    assert not not_json.passed and "not JSON" in not_json.reason
    assert extract_json('text {"a": [1, 2]} tail') == {"a": [1, 2]}


def test_an_invalid_json_schema_fails_when_built() -> None:
    import jsonschema

    with pytest.raises(jsonschema.SchemaError):
        build_scorer(spec({"type": "json_schema", "schema": {"type": "no-such-type"}}))


def calls(*pairs: tuple[str, object]) -> CaseOutcome:
    return CaseOutcome(
        tool_calls=[ObservedToolCall(f"id{i}", n, a) for i, (n, a) in enumerate(pairs)]
    )


async def test_tool_calls_subset_exact_order_and_extras() -> None:
    made = calls(("search", {"q": "x", "limit": 5}), ("get_weather", {"city": "Paris"}))
    want = {
        "type": "tool_calls",
        "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    }
    assert (await score(want, made)).passed
    assert not (await score({**want, "allow_extra": False}, made)).passed
    subset = {"type": "tool_calls", "calls": [{"name": "search", "arguments": {"q": "x"}}]}
    assert (await score(subset, made)).passed
    assert not (await score({**subset, "arguments": "exact"}, made)).passed
    assert (
        await score(
            {
                **subset,
                "arguments": "ignore",
                "calls": [{"name": "search", "arguments": {"q": "y"}}],
            },
            made,
        )
    ).passed
    both = [{"name": "get_weather"}, {"name": "search"}]
    assert (await score({"type": "tool_calls", "calls": both}, made)).passed
    out_of_order = await score({"type": "tool_calls", "calls": both, "ordered": True}, made)
    assert not out_of_order.passed and out_of_order.value == 0.5
    missing = await score({"type": "tool_calls", "calls": [{"name": "delete"}]}, made)
    assert "missing delete" in missing.reason and "get_weather" in missing.reason


async def test_termination() -> None:
    the_case = case(expected={"termination": "suspended"})
    assert (
        await score({"type": "termination"}, CaseOutcome(termination="suspended"), the_case)
    ).passed
    wrong = await score({"type": "termination"}, CaseOutcome(termination="natural_end"), the_case)
    assert wrong.reason == "expected suspended, got natural_end"


def test_dataset_validation_names_the_problem(tmp_path) -> None:
    from awaken_contract.errors import ConfigLoadError

    bad = {
        "cases": [
            {"id": "a", "input": "x", "expected": {"output": "y"}},
            {"id": "a", "input": "x", "expected": {"output": "y"}},
        ]
    }
    with pytest.raises(ConfigLoadError, match="duplicate case id 'a'"):
        EvalDataset.from_data(bad)
    with pytest.raises(ConfigLoadError, match="no scorers and no expected"):
        EvalDataset.from_data({"cases": [{"id": "a", "input": "x"}]})
    with pytest.raises(ConfigLoadError, match=r"cases\.0\.scorers\.0"):
        EvalDataset.from_data(
            {"cases": [{"id": "a", "input": "x", "scorers": [{"type": "bogus"}]}]}
        )
    with pytest.raises(ConfigLoadError, match="cannot read eval dataset"):
        EvalDataset.from_file(tmp_path / "missing.yaml")


def test_yaml_round_trip_keeps_scorer_types() -> None:
    text = """
name: rt
threshold: 0.5
cases:
  - id: a
    input: hello
    scorers: [{type: exact, value: hi}, {type: json_schema, schema: {type: object}}]
  - id: b
    input: [{role: user, content: q}]
    expected: {tool_calls: [{name: t}], termination: natural_end}
"""
    dataset = EvalDataset.from_yaml(text)
    again = EvalDataset.from_yaml(dataset.to_yaml())
    assert again == dataset
    assert again.cases[0].scorers[1].type == "json_schema"
    assert [s.type for s in again.cases[1].effective_scorers()] == ["tool_calls", "termination"]
