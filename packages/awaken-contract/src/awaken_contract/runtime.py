"""The seam between a server and an agent runtime: :class:`AgentRuntimeApi`.

``awaken_runtime.AgentRuntime`` implements it; the server (mailbox, protocol routes) is typed
against it and never probes the runtime for methods. :class:`AgentRunResult` is what a run
returns; :data:`DecisionBatch` is how decisions reach a live run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.inference import TokenUsage
from awaken_contract.contract.lifecycle import TerminationKind, TerminationReason
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.storage import ThreadRunStore
from awaken_contract.contract.suspension import ToolCallResume
from awaken_contract.registry_spec import AgentSpec

__all__ = ["AgentRunResult", "AgentRuntimeApi", "DecisionBatch"]

#: A batch of decisions: ``(call id or suspension id, decision)`` pairs.
DecisionBatch = list[tuple[str, ToolCallResume]]


@dataclass(slots=True)
class AgentRunResult:
    """What a run returns: the final response text, step count, termination, ids and usage."""

    response: str
    steps: int
    termination: TerminationReason
    run_id: str
    thread_id: str
    usage: TokenUsage | None = None
    output: object | None = None
    """The validated structured output when the agent has an ``output_schema``: an instance
    of its pydantic model, or the decoded JSON for a plain JSON Schema."""

    @property
    def is_suspended(self) -> bool:
        """True when the run is parked waiting for decisions."""
        return self.termination.type is TerminationKind.SUSPENDED

    @property
    def is_success(self) -> bool:
        """True when the run ended naturally."""
        return self.termination.type is TerminationKind.NATURAL_END


class AgentRuntimeApi(Protocol):
    """What a server needs from an agent runtime: run, control live runs, list agents.

    Live runs are addressed by run id or thread id. Control methods answer ``False`` when no
    live run has that id (nothing was delivered).
    """

    @property
    def thread_run_store(self) -> ThreadRunStore | None:
        """The store runs persist to (``None``: nothing is persisted)."""
        ...

    async def run(
        self,
        request: RunRequest,
        sink: EventSink | None = None,
        *,
        wait_for_decisions: bool = True,
    ) -> AgentRunResult:
        """Run ``request`` to its end (or to a suspension when not waiting for decisions)."""
        ...

    def cancel(self, id_: str) -> bool:
        """Cancel the live run with this run id or thread id."""
        ...

    async def cancel_and_wait_by_thread(self, thread_id: str, wait_secs: float = 5.0) -> bool:
        """Cancel the thread's live run and wait (bounded) until it is released."""
        ...

    def send_decisions(self, id_: str, decisions: DecisionBatch) -> bool:
        """Deliver decisions to a live run."""
        ...

    def send_decision(self, id_: str, call_id: str, resume: ToolCallResume) -> bool:
        """Deliver one decision to a live run."""
        ...

    def send_messages(self, id_: str, messages: Sequence[Message]) -> bool:
        """Deliver messages to a live run (they join the conversation at the next boundary)."""
        ...

    def active_run_id(self, thread_id: str) -> str | None:
        """The id of the thread's live run."""
        ...

    def agents(self) -> Mapping[str, AgentSpec]:
        """The registered agent specs by id (local and remote)."""
        ...

    def can_resolve(self, agent_id: str) -> bool:
        """True when ``agent_id`` resolves to a runnable agent."""
        ...
