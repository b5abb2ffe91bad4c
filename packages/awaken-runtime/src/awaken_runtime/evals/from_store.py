"""Cases from stored runs: a finished run's input and final answer become a regression case.

For every finished run of a thread (or one run), the case's input is the conversation up to and
including the run's input messages (user/assistant text only; tool traffic is dropped) and its
expectations are the run's final answer (``exact``), the tool calls it made (``tool_calls``,
arguments as a subset) and its termination.
"""

from __future__ import annotations

from awaken_contract.contract.lifecycle import RunStatus, TerminationKind
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.storage import MessageRecord, RunQuery, RunRecord, ThreadRunStore
from awaken_contract.errors import AwakenError

from awaken_runtime.evals.dataset import (
    EvalCase,
    EvalDataset,
    Expected,
    ExpectedToolCall,
    InputMessage,
)

__all__ = ["RunNotExportable", "case_from_run", "cases_from_store", "dataset_from_store"]


class RunNotExportable(AwakenError):
    """The thread or run cannot become an eval case (missing, unfinished, no input)."""


def _text_messages(records: list[MessageRecord]) -> list[InputMessage]:
    kept: list[InputMessage] = []
    for record in records:
        message: Message = record.message
        text = message.text()
        if message.role in (Role.USER, Role.ASSISTANT) and text.strip():
            kept.append(InputMessage(role=message.role.value, content=text))
    return kept


def _final_answer(run: RunRecord, produced: list[MessageRecord]) -> str | None:
    for source in (run.final_output, run.outcome.final_output if run.outcome else None):
        if source:
            return source
    for record in reversed(produced):
        if record.message.role is Role.ASSISTANT and record.message.text().strip():
            return record.message.text()
    return None


def case_from_run(run: RunRecord, records: list[MessageRecord], case_id: str) -> EvalCase:
    """The case for ``run`` given its thread's message records."""
    if run.status is not RunStatus.DONE:
        raise RunNotExportable(f"run {run.run_id} is {run.status.value}, not done")
    if run.input is None or run.input.range is None:
        raise RunNotExportable(f"run {run.run_id} has no recorded input messages")
    last_input = run.input.range.to_seq
    inputs = _text_messages([r for r in records if r.seq <= last_input])
    if not inputs or inputs[-1].role != "user":
        raise RunNotExportable(f"run {run.run_id} has no user input")
    output_range = run.output.range if run.output is not None else None
    produced = [r for r in records if output_range is not None and output_range.contains(r.seq)]
    calls = [
        ExpectedToolCall(
            name=call.name, arguments=call.arguments if isinstance(call.arguments, dict) else None
        )
        for r in produced
        if r.message.role is Role.ASSISTANT
        for call in r.message.tool_calls or []
    ]
    termination = (
        run.termination_reason.type if run.termination_reason else TerminationKind.NATURAL_END
    )
    answer = _final_answer(run, produced)
    expected = Expected(output=answer, tool_calls=calls or None, termination=termination)
    return EvalCase(id=case_id, input=inputs, expected=expected, agent=run.agent_id)


async def cases_from_store(
    store: ThreadRunStore, thread_id: str, run_id: str | None = None
) -> list[EvalCase]:
    """A case per finished run of the thread (oldest first), or for ``run_id`` only."""
    thread = await store.load_thread(thread_id)
    if thread is None:
        raise RunNotExportable(f"thread not found: {thread_id}")
    runs: list[RunRecord] = []
    offset = 0
    while True:
        page = await store.list_runs(RunQuery(offset=offset, limit=200, thread_id=thread_id))
        runs.extend(page.items)
        if not page.has_more:
            break
        offset += len(page.items)
    if run_id is not None:
        runs = [r for r in runs if r.run_id == run_id]
        if not runs:
            raise RunNotExportable(f"run not found in thread {thread_id}: {run_id}")
    else:
        runs = [r for r in runs if r.status is RunStatus.DONE]
    runs.sort(
        key=lambda r: (r.created_at, r.input.range.to_seq if r.input and r.input.range else 0)
    )
    records = await store.load_message_records(thread_id) or []
    return [case_from_run(run, records, f"{thread_id}-{i + 1}") for i, run in enumerate(runs)]


async def dataset_from_store(
    store: ThreadRunStore, thread_id: str, run_id: str | None = None, *, name: str | None = None
) -> EvalDataset:
    """A dataset of :func:`cases_from_store` (raises when no run is exportable)."""
    cases = await cases_from_store(store, thread_id, run_id)
    if not cases:
        raise RunNotExportable(f"thread {thread_id} has no finished runs")
    agents = {c.agent for c in cases}
    agent = agents.pop() if len(agents) == 1 else None
    if agent is not None:
        cases = [c.model_copy(update={"agent": None}) for c in cases]
    return EvalDataset(name=name or f"thread-{thread_id}", agent=agent, cases=cases)
