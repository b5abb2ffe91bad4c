"""The LLM judge: a configured model grades an answer against a rubric.

The judge receives the rubric, the case's input, the expected output (when the case has one)
and the agent's answer, and must reply with one JSON object
``{"score": 0..1, "pass": true|false, "reason": "..."}``. The case passes this scorer when
``score >= pass_score`` (or, without a score, when ``pass`` is true).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.message import Message
from awaken_contract.errors import AwakenError

from awaken_runtime.evals.dataset import EvalCase, JudgeSpec
from awaken_runtime.evals.results import CaseOutcome, Score
from awaken_runtime.evals.scorers import Scorer, extract_json

__all__ = ["JUDGE_SYSTEM_PROMPT", "JudgeModel", "JudgeResolver", "LlmJudge", "judge_prompt"]

JUDGE_SYSTEM_PROMPT = (
    "You are a strict evaluator of an AI agent's answer. Grade the answer against the rubric. "
    'Reply with exactly one JSON object and nothing else: {"score": <number 0..1>, '
    '"pass": <true|false>, "reason": "<one sentence>"}.'
)


class JudgeModel:
    """The executor and upstream model name a judge calls."""

    __slots__ = ("executor", "upstream_model")

    def __init__(self, executor: LlmExecutor, upstream_model: str) -> None:
        self.executor = executor
        self.upstream_model = upstream_model


JudgeResolver = Callable[[str], JudgeModel]
"""Finds the judge model for a model id (raises ``AwakenError`` when unknown)."""


def judge_prompt(rubric: str, case: EvalCase, outcome: CaseOutcome) -> str:
    """The user message the judge model receives."""
    conversation = "\n".join(f"{m.role.value}: {m.text()}" for m in case.messages())
    parts = [f"Rubric:\n{rubric}", f"Conversation given to the agent:\n{conversation}"]
    if case.expected.output is not None:
        parts.append(f"Reference answer:\n{case.expected.output}")
    parts.append(f"The agent's answer:\n{outcome.response}")
    return "\n\n".join(parts)


class LlmJudge(Scorer):
    """Asks ``model`` to grade the answer against ``spec.rubric``."""

    name = "judge"

    def __init__(self, spec: JudgeSpec, model: JudgeModel) -> None:
        self.spec = spec
        self.model = model

    async def score(self, case: EvalCase, outcome: CaseOutcome) -> Score:
        request = InferenceRequest(
            upstream_model=self.model.upstream_model,
            messages=[
                Message.system(JUDGE_SYSTEM_PROMPT),
                Message.user(judge_prompt(self.spec.rubric, case, outcome)),
            ],
        )
        try:
            result = await self.model.executor.execute(request)
        except AwakenError as exc:
            return self.verdict(False, f"judge model failed: {exc}")
        text = result.text
        try:
            verdict = extract_json(text)
        except ValueError:
            return self.verdict(False, f"judge gave no JSON verdict: {text[:200]!r}")
        if not isinstance(verdict, dict):
            return self.verdict(False, f"judge verdict is not an object: {json.dumps(verdict)}")
        reason = str(verdict.get("reason", ""))
        raw = verdict.get("score")
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            value = min(max(float(raw), 0.0), 1.0)
            return self.verdict(value >= self.spec.pass_score, reason, value)
        passed = verdict.get("pass")
        if isinstance(passed, bool):
            return self.verdict(passed, reason)
        return self.verdict(False, f"judge verdict has no score or pass: {json.dumps(verdict)}")
