"""``run_to_completion``: drive a run to a final state, answering approvals inline.

Every suspended tool call is passed to ``decide`` (default: approve) and the answer is sent to
the live run, which resumes in place. Useful for scripts, tests and trusted automation.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable

from awaken_contract.contract.event import AgentEvent, RunFinish, ToolCallDone
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.suspension import ToolCallOutcome, ToolCallResume
from awaken_contract.contract.tool import ToolResult
from awaken_contract.runtime import AgentRunResult, AgentRuntimeApi

__all__ = ["Decider", "approve_all", "run_to_completion"]

#: Decides a suspended call: receives its ``tool_call_done`` event, returns the decision.
Decider = Callable[[ToolCallDone], ToolCallResume | Awaitable[ToolCallResume]]


def approve_all(event: ToolCallDone) -> ToolCallResume:
    """Approve every suspended call."""
    return ToolCallResume.resume(True)


class _AnsweringSink(EventSink):
    """Forwards events and answers suspensions through the runtime's decision channel."""

    def __init__(
        self, runtime: AgentRuntimeApi, thread_id: str, inner: EventSink | None, decide: Decider
    ) -> None:
        self.runtime = runtime
        self.thread_id = thread_id
        self.inner = inner
        self.decide = decide
        self.pending: list[ToolCallDone] = []

    async def emit(self, event: AgentEvent) -> None:
        if self.inner is not None:
            await self.inner.emit(event)
        if isinstance(event, ToolCallDone) and event.outcome is ToolCallOutcome.SUSPENDED:
            self.pending.append(event)
        elif isinstance(event, RunFinish) and event.termination.type is TerminationKind.SUSPENDED:
            if not self.pending:
                self.pending = await self._waiting_calls(event.run_id)
            batch = []
            for done in self.pending:
                answer = self.decide(done)
                if inspect.isawaitable(answer):
                    answer = await answer
                assert isinstance(answer, ToolCallResume)
                batch.append((done.id, answer))
            self.pending = []
            if batch:
                self.runtime.send_decisions(self.thread_id, batch)

    async def _waiting_calls(self, run_id: str) -> list[ToolCallDone]:
        """Calls a resumed run was already waiting on (from the run record's tickets)."""
        store = self.runtime.thread_run_store
        record = await store.load_run(run_id) if store is not None else None
        if record is None or record.waiting is None:
            return []
        return [
            ToolCallDone(
                id=ticket.tool_call_id,
                result=ToolResult.suspended(ticket.tool_name, ticket.reason or "awaiting decision"),
                outcome=ToolCallOutcome.SUSPENDED,
            )
            for ticket in record.waiting.tickets
        ]


async def run_to_completion(
    runtime: AgentRuntimeApi,
    request: RunRequest,
    sink: EventSink | None = None,
    *,
    decide: Decider | None = None,
) -> AgentRunResult:
    """Run ``request``; each suspension is answered by ``decide`` (default :func:`approve_all`)."""
    answering = _AnsweringSink(runtime, request.thread_id, sink, decide or approve_all)
    return await runtime.run(request, answering, wait_for_decisions=True)
