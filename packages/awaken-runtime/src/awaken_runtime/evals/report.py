"""Presenting a report: a terminal table, a JSON file and a JUnit XML file (for CI)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from awaken_runtime.evals.results import CaseResult, EvalReport

__all__ = ["render_table", "to_junit_xml", "write_json", "write_junit"]


def _cell(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _score_summary(result: CaseResult) -> str:
    return " ".join(f"{s.scorer}={'✓' if s.passed else '✗'}" for s in result.scores)


def render_table(report: EvalReport, *, width: int = 100) -> str:
    """A plain-text table: one row per case, then the summary line."""
    id_width = max([4, *(len(r.case_id) for r in report.results)])
    id_width = min(id_width, 32)
    score_width = max([6, *(len(_score_summary(r)) for r in report.results)])
    score_width = min(score_width, 40)
    detail_width = max(width - id_width - score_width - 20, 20)
    header = f"{'case':<{id_width}}  result  {'scores':<{score_width}}  {'ms':>6}  detail"
    lines = [header, "-" * len(header)]
    for r in report.results:
        detail = "; ".join(r.failures()) if not r.passed else r.outcome.response
        lines.append(
            f"{_cell(r.case_id, id_width):<{id_width}}  {'PASS' if r.passed else 'FAIL':<6}  "
            f"{_cell(_score_summary(r), score_width):<{score_width}}  {r.duration_ms:>6}  "
            f"{_cell(detail, detail_width)}"
        )
    verdict = "OK" if report.ok else "BELOW THRESHOLD"
    lines.append(
        f"{report.passed}/{report.total} passed ({report.pass_rate:.0%}), "
        f"threshold {report.threshold:.0%}: {verdict}"
    )
    return "\n".join(lines)


def to_junit_xml(report: EvalReport) -> str:
    """JUnit XML: one ``testsuite`` (the dataset), one ``testcase`` per case."""
    errors = sum(1 for r in report.results if r.outcome.error)
    failures = sum(1 for r in report.results if not r.passed and not r.outcome.error)
    suite = ET.Element(
        "testsuite",
        name=report.dataset,
        tests=str(report.total),
        failures=str(failures),
        errors=str(errors),
        time=f"{report.duration_ms / 1000:.3f}",
    )
    properties = ET.SubElement(suite, "properties")
    for key, value in (
        ("agent", report.agent),
        ("threshold", str(report.threshold)),
        ("pass_rate", f"{report.pass_rate:.4f}"),
    ):
        ET.SubElement(properties, "property", name=key, value=value)
    for r in report.results:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=report.dataset,
            name=r.case_id,
            time=f"{r.duration_ms / 1000:.3f}",
        )
        if r.outcome.error:
            ET.SubElement(case, "error", message=r.outcome.error).text = r.outcome.error
        elif not r.passed:
            reasons = r.failures()
            ET.SubElement(case, "failure", message=reasons[0]).text = "\n".join(reasons)
        ET.SubElement(case, "system-out").text = r.outcome.response
    ET.indent(suite)
    body: str = ET.tostring(suite, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def write_json(report: EvalReport, path: str | Path) -> None:
    """Write :meth:`EvalReport.to_json` to ``path``."""
    Path(path).write_bytes(report.to_json() + b"\n")


def write_junit(report: EvalReport, path: str | Path) -> None:
    """Write :func:`to_junit_xml` to ``path``."""
    Path(path).write_text(to_junit_xml(report), encoding="utf-8")
