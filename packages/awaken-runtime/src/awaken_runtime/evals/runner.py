"""Running a dataset: each case on a fresh thread of the runtime, concurrently, then scored.

::

    report = await run_eval(EvalDataset.from_file("evals.yaml"), runtime)
    print(render_table(report)); assert report.ok

A case runs with ``wait_for_decisions=False``: a tool call that suspends ends the run with
termination ``suspended`` (expect it with ``termination: suspended``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from awaken_contract.contract.event import AgentEvent, ToolCallDone, ToolCallReady
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.request import RunRequest
from awaken_contract.errors import AwakenError, ConfigLoadError
from awaken_contract.ids import new_id

from awaken_runtime.evals.dataset import (
    AnyScorerSpec,
    ContainsSpec,
    EvalCase,
    EvalDataset,
    ExactSpec,
    JsonSchemaSpec,
    JudgeSpec,
    RegexSpec,
    TerminationSpec,
    ToolCallsSpec,
)
from awaken_runtime.evals.judge import JudgeResolver, LlmJudge
from awaken_runtime.evals.results import CaseOutcome, CaseResult, EvalReport, ObservedToolCall
from awaken_runtime.evals.scorers import (
    ContainsScorer,
    ExactScorer,
    JsonSchemaScorer,
    RegexScorer,
    Scorer,
    TerminationScorer,
    ToolCallScorer,
)
from awaken_runtime.runtime import AgentRuntime

__all__ = ["ProgressCallback", "build_scorer", "judge_resolver_for", "run_case", "run_eval"]

_CANCEL_GRACE_SECS = 30.0
"""How long a timed-out case's run may take to wind down after cancellation."""

ProgressCallback = Callable[[CaseResult, int, int], None]
"""Called after each case with its result, the number done and the total."""


class _CollectingSink(EventSink):
    """Records the tool calls of a run (by id, in order)."""

    def __init__(self) -> None:
        self.calls: dict[str, ObservedToolCall] = {}

    async def emit(self, event: AgentEvent) -> None:
        if isinstance(event, ToolCallReady):
            self.calls[event.id] = ObservedToolCall(event.id, event.name, event.arguments)
        elif isinstance(event, ToolCallDone) and event.id in self.calls:
            self.calls[event.id].outcome = event.outcome.value


def judge_resolver_for(runtime: AgentRuntime) -> JudgeResolver:
    """Resolve judge model ids through the runtime's model and provider registries."""
    from awaken_runtime.evals.judge import JudgeModel

    def resolve(model_id: str) -> JudgeModel:
        registries = runtime.registries
        spec = registries.models.get(model_id) if registries is not None else None
        if spec is None:
            raise ConfigLoadError(f"judge model not found in the runtime's models: {model_id}")
        executor = registries.providers.get(spec.provider) if registries is not None else None
        if executor is None:
            raise ConfigLoadError(f"provider {spec.provider!r} of judge model {model_id} not found")
        return JudgeModel(executor, spec.model)

    return resolve


def build_scorer(
    spec: AnyScorerSpec, *, judge_model: str | None = None, judges: JudgeResolver | None = None
) -> Scorer:
    """The scorer a spec describes (judges need ``judges`` and a model id)."""
    match spec:
        case ExactSpec():
            return ExactScorer(spec)
        case ContainsSpec():
            return ContainsScorer(spec)
        case RegexSpec():
            return RegexScorer(spec)
        case JsonSchemaSpec():
            return JsonSchemaScorer(spec)
        case ToolCallsSpec():
            return ToolCallScorer(spec)
        case TerminationSpec():
            return TerminationScorer(spec)
        case JudgeSpec():
            model_id = spec.model or judge_model
            if model_id is None:
                raise ConfigLoadError("a judge scorer needs 'model' (or the dataset's judge_model)")
            if judges is None:
                raise ConfigLoadError("judge scorers need a judge resolver (a runtime with models)")
            return LlmJudge(spec, judges(model_id))
    raise ConfigLoadError(f"unknown scorer {spec!r}")  # pragma: no cover - union is closed


async def run_case(
    runtime: AgentRuntime, case: EvalCase, agent_id: str, timeout_secs: float
) -> CaseOutcome:
    """Run one case on a fresh thread and collect what it produced (errors are captured)."""
    thread_id = f"eval-{case.id}-{new_id()}"
    request = RunRequest(thread_id, case.messages()).with_agent_id(case.agent or agent_id)
    sink = _CollectingSink()
    outcome = CaseOutcome(thread_id=thread_id)
    run = asyncio.ensure_future(runtime.run(request, sink, wait_for_decisions=False))
    try:
        done, _ = await asyncio.wait({run}, timeout=timeout_secs)
        if not done:  # cancel through the runtime so its tool calls stop too
            runtime.cancel_by_thread(thread_id)
            await asyncio.wait({run}, timeout=_CANCEL_GRACE_SECS)
            if not run.done():
                run.cancel()
            outcome.error = f"timed out after {timeout_secs:g}s"
            outcome.tool_calls = list(sink.calls.values())
            return outcome
        result = run.result()
    except AwakenError as exc:
        outcome.error = f"{type(exc).__name__}: {exc}"
    else:
        outcome.response = result.response
        outcome.termination = result.termination.type.value
        outcome.steps = result.steps
        outcome.run_id = result.run_id
    outcome.tool_calls = list(sink.calls.values())
    return outcome


def _default_agent(runtime: AgentRuntime) -> str:
    registries = runtime.registries
    ids = registries.agents.ids() if registries is not None else []
    if len(ids) == 1:
        return ids[0]
    return "default"


async def run_eval(
    dataset: EvalDataset,
    runtime: AgentRuntime,
    *,
    agent_id: str | None = None,
    concurrency: int | None = None,
    threshold: float | None = None,
    judges: JudgeResolver | None = None,
    progress: ProgressCallback | None = None,
) -> EvalReport:
    """Run every case (``concurrency`` at once), score it and return the report.

    Scorers are built before any case runs, so a bad scorer (unknown judge model, invalid
    JSON Schema) fails fast with ``ConfigLoadError``.
    """
    agent = agent_id or dataset.agent or _default_agent(runtime)
    judges = judges or judge_resolver_for(runtime)
    scorers = {
        case.id: [
            build_scorer(spec, judge_model=dataset.judge_model, judges=judges)
            for spec in case.effective_scorers()
        ]
        for case in dataset.cases
    }
    gate = asyncio.Semaphore(concurrency or dataset.concurrency)
    done = 0
    started = time.perf_counter()

    async def one(case: EvalCase) -> CaseResult:
        nonlocal done
        async with gate:
            begin = time.perf_counter()
            outcome = await run_case(runtime, case, agent, dataset.timeout_secs)
            scores = [await scorer.score(case, outcome) for scorer in scorers[case.id]]
            result = CaseResult(
                case_id=case.id,
                passed=outcome.error is None and all(s.passed for s in scores),
                outcome=outcome,
                scores=scores,
                duration_ms=int((time.perf_counter() - begin) * 1000),
                tags=list(case.tags),
            )
        done += 1
        if progress is not None:
            progress(result, done, len(dataset.cases))
        return result

    results = await asyncio.gather(*(one(case) for case in dataset.cases))
    return EvalReport(
        dataset=dataset.name,
        agent=agent,
        threshold=dataset.threshold if threshold is None else threshold,
        results=list(results),
        duration_ms=int((time.perf_counter() - started) * 1000),
    )
