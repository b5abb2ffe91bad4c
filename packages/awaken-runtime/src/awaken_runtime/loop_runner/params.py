"""Inputs of one agent loop: :class:`AgentLoopParams` — the run's ``RunRequest`` and the context
the runtime resolved for it (the result type, :class:`AgentRunResult`, lives in
``awaken_contract.runtime``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from awaken_contract.contract.cancellation import CancellationToken
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.storage import (
    ProfileStore,
    RunRecord,
    RunRequestSnapshot,
    ThreadRunStore,
)
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.runtime import AgentRunResult, DecisionBatch

if TYPE_CHECKING:
    from awaken_contract.registry_spec import InferenceOverride

    from awaken_runtime.cancellation import RunCanceller
    from awaken_runtime.phase.engine import PhaseRuntime
    from awaken_runtime.registry.resolved import AgentResolver, ResolvedAgent
    from awaken_runtime.state.scoped import ScopedStateSync

__all__ = [
    "AgentLoopParams",
    "AgentRunResult",
    "ControlMessage",
    "DecisionBatch",
    "Decisions",
    "Inbox",
    "decisions_message",
    "inbox_message",
]


@dataclass(frozen=True, slots=True)
class Decisions:
    """A control-channel entry: decisions for the run's suspended calls."""

    batch: DecisionBatch


@dataclass(frozen=True, slots=True)
class Inbox:
    """A control-channel entry: messages that join the conversation at the next boundary."""

    messages: list[Message]


#: What flows through a live run's control channel.
ControlMessage = Decisions | Inbox


def decisions_message(batch: DecisionBatch) -> ControlMessage:
    """A control-channel entry carrying decisions."""
    return Decisions(list(batch))


def inbox_message(messages: list[Message]) -> ControlMessage:
    """A control-channel entry carrying messages for the running agent."""
    return Inbox(list(messages))


class AgentLoopParams:
    """Everything :func:`run_agent_loop` needs: the run's :class:`RunRequest` and what was
    resolved for it.

    The request is the one shape a run has from the job to the loop: ``AgentRuntime.run``
    hands it over unchanged (``request=``) with the context it resolved — the agent id and
    agent, the phase runtime, sink, store, history, identity, control channel and the previous
    run. Run on its own (the book's ``run_agent_loop(AgentLoopParams { … })``), the loop takes
    ``overrides``, ``frontend_tools`` and ``decisions`` as keywords and builds the request
    from them; with ``request=`` they are read from the request (passing both is an error).

    ``runtime`` is the run's :class:`PhaseRuntime` (its store must have the loop's keys
    installed — see ``LoopStatePlugin``). ``decision_rx`` is the run's control channel; without
    it a suspended run ends with termination ``suspended``. ``decisions`` are applied before
    the loop starts (resuming a waiting run). ``canceller`` (optional) races the run's awaits
    against ``cancellation_token``; by default one is made that watches the token.
    ``profile_store`` (optional) is offered to hooks as ``ctx.profile``; ``scoped_state``
    writes the run's Shared/Profile keys back to it at every checkpoint.
    """

    __slots__ = (
        "agent_id",
        "cancellation_token",
        "canceller",
        "checkpoint_store",
        "decision_rx",
        "input_message_count",
        "is_continuation",
        "messages",
        "previous_run",
        "profile_store",
        "request",
        "request_snapshot",
        "resolved",
        "resolver",
        "run_identity",
        "runtime",
        "scoped_state",
        "sink",
        "wait_for_decisions",
    )

    def __init__(
        self,
        resolver: AgentResolver,
        agent_id: str,
        runtime: PhaseRuntime,
        sink: EventSink,
        checkpoint_store: ThreadRunStore | None,
        messages: list[Message],
        run_identity: RunIdentity,
        cancellation_token: CancellationToken | None = None,
        decision_rx: asyncio.Queue[ControlMessage] | None = None,
        overrides: InferenceOverride | None = None,
        frontend_tools: list[ToolDescriptor] | None = None,
        decisions: DecisionBatch | None = None,
        is_continuation: bool = False,
        input_message_count: int | None = None,
        previous_run: RunRecord | None = None,
        request_snapshot: RunRequestSnapshot | None = None,
        resolved: ResolvedAgent | None = None,
        wait_for_decisions: bool = True,
        canceller: RunCanceller | None = None,
        profile_store: ProfileStore | None = None,
        scoped_state: ScopedStateSync | None = None,
        *,
        request: RunRequest | None = None,
    ) -> None:
        if request is None:
            request = RunRequest(
                run_identity.thread_id,
                agent_id=agent_id,
                overrides=overrides,
                decisions=list(decisions or []),
                frontend_tools=list(frontend_tools or []),
            )
        elif overrides is not None or frontend_tools or decisions:
            raise TypeError("pass overrides, frontend_tools and decisions on the request")
        self.request = request
        """The run's request, as the caller made it (the runtime passes it on unchanged)."""
        self.resolver = resolver
        self.agent_id = agent_id
        """The agent that runs: the plan's, the request's or the thread's last agent."""
        self.runtime = runtime
        self.sink = sink
        self.checkpoint_store = checkpoint_store
        self.messages = messages
        """The whole history the loop starts from (stored messages plus the request's)."""
        self.run_identity = run_identity
        self.cancellation_token = cancellation_token
        self.decision_rx = decision_rx
        self.is_continuation = is_continuation
        self.input_message_count = input_message_count
        self.previous_run = previous_run
        self.request_snapshot = request_snapshot
        self.resolved = resolved
        self.wait_for_decisions = wait_for_decisions
        self.canceller = canceller
        self.profile_store = profile_store
        self.scoped_state = scoped_state

    @property
    def overrides(self) -> InferenceOverride | None:
        """Run-level inference overrides (the request's)."""
        return self.request.overrides

    @property
    def frontend_tools(self) -> list[ToolDescriptor]:
        """Tools the client executes (the request's)."""
        return self.request.frontend_tools

    @property
    def decisions(self) -> DecisionBatch:
        """Decisions applied before the loop starts (the request's)."""
        return self.request.decisions
