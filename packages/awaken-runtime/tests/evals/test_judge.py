"""The LLM judge: what it is asked, and how its verdict becomes a score."""

from __future__ import annotations

from awaken_contract.contract.message import Role
from awaken_runtime.engine import ScriptedLlm, text_step
from awaken_runtime.evals import JUDGE_SYSTEM_PROMPT, EvalDataset, run_eval

from .conftest import RuntimeFactory

RUBRIC = "The answer must echo the user's words."


def judged(pass_score: float = 0.5) -> EvalDataset:
    return EvalDataset.from_data(
        {
            "judge_model": "judge-model",
            "cases": [
                {
                    "id": "echo",
                    "input": "hello there",
                    "expected": {"output": "You said: hello there"},
                    "scorers": [{"type": "judge", "rubric": RUBRIC, "pass_score": pass_score}],
                }
            ],
        }
    )


async def test_judge_sees_rubric_input_reference_and_answer(make_runtime: RuntimeFactory) -> None:
    judge = ScriptedLlm([text_step('Verdict: {"score": 0.9, "pass": true, "reason": "echoes"}')])
    report = await run_eval(judged(), make_runtime(judge=judge))
    score = report.results[0].scores[0]
    assert (score.scorer, score.passed, score.value, score.reason) == ("judge", True, 0.9, "echoes")
    (request,) = judge.requests
    assert request.upstream_model == "judge-1"
    system, user = request.messages
    assert system.role is Role.SYSTEM and system.text() == JUDGE_SYSTEM_PROMPT
    prompt = user.text()
    assert RUBRIC in prompt and "user: hello there" in prompt
    assert "Reference answer:\nYou said: hello there" in prompt
    assert prompt.endswith("The agent's answer:\nYou said: hello there")


async def test_low_score_fails_and_pass_only_verdicts_count(make_runtime: RuntimeFactory) -> None:
    low = ScriptedLlm([text_step('{"score": 0.3, "reason": "meh"}')])
    result = (await run_eval(judged(), make_runtime(judge=low))).results[0]
    assert not result.passed and result.scores[0].value == 0.3
    only_pass = ScriptedLlm([text_step('```json\n{"pass": true, "reason": "fine"}\n```')])
    assert (await run_eval(judged(), make_runtime(judge=only_pass))).results[0].passed


async def test_an_unparseable_verdict_fails_with_the_text(make_runtime: RuntimeFactory) -> None:
    rambling = ScriptedLlm([text_step("I think it is fine.")])
    score = (await run_eval(judged(), make_runtime(judge=rambling))).results[0].scores[0]
    assert not score.passed and "no JSON verdict" in score.reason and "fine" in score.reason
