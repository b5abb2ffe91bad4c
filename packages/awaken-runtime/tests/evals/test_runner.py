"""Running datasets against a real runtime: concurrency, progress, threshold, errors, reports."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import pytest
from awaken_contract.errors import ConfigLoadError
from awaken_runtime.evals import (
    EvalDataset,
    StderrProgress,
    render_table,
    run_eval,
    to_junit_xml,
)

from .conftest import Gate, RuntimeFactory


def dataset(**extra: object) -> EvalDataset:
    data = {
        "name": "unit",
        "agent": "assistant",
        "cases": [
            {
                "id": "weather",
                "input": "weather in Paris",
                "expected": {
                    "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
                    "termination": "natural_end",
                },
                "scorers": [
                    {"type": "tool_calls"},
                    {"type": "termination"},
                    {"type": "contains", "value": "sunny"},
                ],
            },
            {"id": "echo", "input": "hello", "expected": {"output": "You said: hello"}},
            {"id": "wrong", "input": "hello", "expected": {"output": "Bonjour"}},
        ],
        **extra,
    }
    return EvalDataset.from_data(data)


async def test_report_scores_every_case(make_runtime: RuntimeFactory) -> None:
    seen: list[tuple[str, int, int]] = []
    report = await run_eval(
        dataset(threshold=0.6),
        make_runtime(),
        progress=lambda r, done, total: seen.append((r.case_id, done, total)),
    )
    by_id = {r.case_id: r for r in report.results}
    assert [r.case_id for r in report.results] == ["weather", "echo", "wrong"]  # dataset order
    assert by_id["weather"].passed and by_id["echo"].passed and not by_id["wrong"].passed
    assert by_id["weather"].outcome.tool_calls[0].name == "get_weather"
    assert by_id["weather"].outcome.tool_calls[0].outcome == "succeeded"
    assert by_id["wrong"].failures() == ["exact: expected 'Bonjour', got 'You said: hello'"]
    assert (report.passed, report.total) == (2, 3) and report.ok  # 2/3 ≥ 0.6
    assert sorted(done for _, done, _ in seen) == [1, 2, 3] and {t for *_, t in seen} == {3}
    strict = await run_eval(dataset(), make_runtime())
    assert not strict.ok  # default threshold 1.0


async def test_cases_run_concurrently(make_runtime: RuntimeFactory) -> None:
    """Three cases meet inside the gate tool; run one at a time they would time out."""
    gate = Gate()
    cases = [
        {"id": f"g{i}", "input": "gate 3", "expected": {"termination": "natural_end"}}
        for i in range(3)
    ]
    data = EvalDataset.from_data({"cases": cases, "concurrency": 3, "timeout_secs": 60})
    report = await run_eval(data, make_runtime(gate=gate))
    assert report.ok, render_table(report)
    assert gate.peak == 3


async def test_concurrency_limit_is_respected(make_runtime: RuntimeFactory) -> None:
    gate = Gate()
    cases = [
        {"id": f"g{i}", "input": "gate 99", "expected": {"termination": "natural_end"}}
        for i in range(2)
    ]
    data = EvalDataset.from_data({"cases": cases, "concurrency": 1, "timeout_secs": 0.5})
    report = await run_eval(data, make_runtime(gate=gate))
    assert gate.peak <= 1  # never two at once
    assert all(r.outcome.error == "timed out after 0.5s" for r in report.results)
    assert report.passed == 0


async def test_run_errors_are_captured_per_case(make_runtime: RuntimeFactory) -> None:
    data = EvalDataset.from_data(
        {"cases": [{"id": "nope", "input": "x", "agent": "missing", "expected": {"output": "x"}}]}
    )
    report = await run_eval(data, make_runtime())
    result = report.results[0]
    assert not result.passed and "missing" in (result.outcome.error or "")
    xml = ET.fromstring(to_junit_xml(report))
    assert xml.get("errors") == "1" and xml.find("testcase/error") is not None


def test_junit_and_json_and_table(make_runtime: RuntimeFactory) -> None:
    import asyncio

    report = asyncio.run(run_eval(dataset(), make_runtime()))
    suite = ET.fromstring(to_junit_xml(report))
    assert suite.tag == "testsuite" and suite.get("tests") == "3" and suite.get("failures") == "1"
    names = [c.get("name") for c in suite.findall("testcase")]
    assert names == ["weather", "echo", "wrong"]
    failure = suite.find("testcase[@name='wrong']/failure")
    assert failure is not None and "Bonjour" in (failure.get("message") or "")
    data = json.loads(report.to_json())
    assert (data["total"], data["passed"], data["ok"]) == (3, 2, False)
    assert data["results"][0]["scores"][0] == {
        "scorer": "tool_calls",
        "passed": True,
        "value": 1.0,
        "reason": "",
    }
    table = render_table(report)
    assert "wrong" in table and "FAIL" in table and "2/3 passed (67%)" in table
    assert table.splitlines()[-1].endswith("BELOW THRESHOLD")


def test_progress_lines_without_a_terminal() -> None:
    from awaken_runtime.evals import CaseOutcome, CaseResult

    out = io.StringIO()
    progress = StderrProgress(out)
    progress(CaseResult("a", True, CaseOutcome(), duration_ms=3), 1, 2)
    progress(CaseResult("b", False, CaseOutcome(), duration_ms=4), 2, 2)
    assert out.getvalue() == "[1/2] PASS a (3 ms)\n[2/2] FAIL b (4 ms)\n"


async def test_a_judge_without_a_model_fails_before_running(make_runtime: RuntimeFactory) -> None:
    data = EvalDataset.from_data(
        {"cases": [{"id": "j", "input": "x", "scorers": [{"type": "judge", "rubric": "polite"}]}]}
    )
    with pytest.raises(ConfigLoadError, match="needs 'model'"):
        await run_eval(data, make_runtime())
    unknown = data.model_copy(update={"judge_model": "nope"})
    with pytest.raises(ConfigLoadError, match="judge model not found"):
        await run_eval(unknown, make_runtime())
