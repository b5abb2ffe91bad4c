"""Evals: run a dataset of cases against an agent and score the answers.

::

    from awaken_runtime.evals import EvalDataset, render_table, run_eval

    report = await run_eval(EvalDataset.from_file("examples/evals/demo.yaml"), runtime)
    print(render_table(report))

Datasets are YAML/JSON (:class:`EvalDataset`); scorers: ``exact``, ``contains``, ``regex``,
``json_schema``, ``tool_calls``, ``termination`` and an LLM ``judge``. Reports render as a
table, JSON and JUnit XML. :func:`dataset_from_store` makes cases from stored runs.
"""

from awaken_runtime.evals.dataset import (
    AnyScorerSpec,
    ArgumentMatch,
    ContainsSpec,
    EvalCase,
    EvalDataset,
    ExactSpec,
    Expected,
    ExpectedToolCall,
    InputMessage,
    JsonSchemaSpec,
    JudgeSpec,
    RegexSpec,
    TerminationSpec,
    ToolCallsSpec,
)
from awaken_runtime.evals.from_store import (
    RunNotExportable,
    case_from_run,
    cases_from_store,
    dataset_from_store,
)
from awaken_runtime.evals.judge import JUDGE_SYSTEM_PROMPT, JudgeModel, JudgeResolver, LlmJudge
from awaken_runtime.evals.progress import StderrProgress
from awaken_runtime.evals.report import render_table, to_junit_xml, write_json, write_junit
from awaken_runtime.evals.results import (
    CaseOutcome,
    CaseResult,
    EvalReport,
    ObservedToolCall,
    Score,
)
from awaken_runtime.evals.runner import (
    ProgressCallback,
    build_scorer,
    judge_resolver_for,
    run_case,
    run_eval,
)
from awaken_runtime.evals.scorers import (
    ContainsScorer,
    ExactScorer,
    JsonSchemaScorer,
    RegexScorer,
    Scorer,
    TerminationScorer,
    ToolCallScorer,
    extract_json,
)

__all__ = [
    "JUDGE_SYSTEM_PROMPT",
    "AnyScorerSpec",
    "ArgumentMatch",
    "CaseOutcome",
    "CaseResult",
    "ContainsScorer",
    "ContainsSpec",
    "EvalCase",
    "EvalDataset",
    "EvalReport",
    "ExactScorer",
    "ExactSpec",
    "Expected",
    "ExpectedToolCall",
    "InputMessage",
    "JsonSchemaScorer",
    "JsonSchemaSpec",
    "JudgeModel",
    "JudgeResolver",
    "JudgeSpec",
    "LlmJudge",
    "ObservedToolCall",
    "ProgressCallback",
    "RegexScorer",
    "RegexSpec",
    "RunNotExportable",
    "Score",
    "Scorer",
    "StderrProgress",
    "TerminationScorer",
    "TerminationSpec",
    "ToolCallScorer",
    "ToolCallsSpec",
    "build_scorer",
    "case_from_run",
    "cases_from_store",
    "dataset_from_store",
    "extract_json",
    "judge_resolver_for",
    "render_table",
    "run_case",
    "run_eval",
    "to_junit_xml",
    "write_json",
    "write_junit",
]
