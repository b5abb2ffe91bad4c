"""Inputs of one agent loop: :class:`AgentLoopParams` — the run's ``RunRequest`` and the context
the runtime resolved for it (the result type, :class:`AgentRunResult`, lives in
``awaken_contract.runtime``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import msgspec
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

from awaken_runtime.loop_runner.control import ControlChannel

if TYPE_CHECKING:
    from awaken_contract.registry_spec import InferenceOverride

    from awaken_runtime.cancellation import RunCanceller
    from awaken_runtime.phase.engine import PhaseRuntime
    from awaken_runtime.registry.resolved import AgentResolver, ResolvedAgent
    from awaken_runtime.run_journal import ResumePoint
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


class AgentLoopParams(msgspec.Struct, eq=False):
    """Everything :func:`run_agent_loop` needs: the run's :class:`RunRequest` and what was
    resolved for it.

    The request is the one shape a run has from the job to the loop: ``AgentRuntime.run``
    hands it over unchanged (``request=``) next to the context it resolved (agent id and
    agent, phase runtime, sink, store, history, identity, control channel, previous run);
    ``overrides``, ``frontend_tools`` and ``decisions`` are then the request's own (leave them
    unset). Run on its own (the book's ``run_agent_loop(AgentLoopParams { … })``), the loop
    takes those three as fields and builds the request from them.

    ``runtime`` is the run's :class:`PhaseRuntime` (its store must have the loop's keys
    installed — see ``LoopStatePlugin``). ``decision_rx`` is the run's control channel; without
    it a suspended run ends with termination ``suspended``. ``decisions`` are applied before
    the loop starts (resuming a waiting run). ``canceller`` (optional) races the run's awaits
    against ``cancellation_token``; by default one is made that watches the token.
    ``profile_store`` (optional) is offered to hooks as ``ctx.profile``. (A msgspec struct:
    made once per run, built in C.)
    """

    resolver: AgentResolver
    agent_id: str
    runtime: PhaseRuntime
    sink: EventSink
    checkpoint_store: ThreadRunStore | None
    messages: list[Message]
    run_identity: RunIdentity
    cancellation_token: CancellationToken | None = None
    decision_rx: ControlChannel[ControlMessage] | None = None
    overrides: InferenceOverride | None = None
    frontend_tools: list[ToolDescriptor] = msgspec.field(default_factory=list)
    decisions: DecisionBatch = msgspec.field(default_factory=list)
    is_continuation: bool = False
    input_message_count: int | None = None
    previous_run: RunRecord | None = None
    request_snapshot: RunRequestSnapshot | None = None
    resolved: ResolvedAgent | None = None
    wait_for_decisions: bool = True
    canceller: RunCanceller | None = None
    profile_store: ProfileStore | None = None
    scoped_state: ScopedStateSync | None = None
    """Writes the run's Shared/Profile keys back to the profile store at every checkpoint."""
    request: RunRequest | None = None
    """The run's request as the caller made it (set from the fields above when not given)."""
    new_run: bool = False
    """The run id was minted for this run: its journal is empty (nothing to read)."""
    resume: ResumePoint | None = None
    """Where an interrupted attempt stopped, given instead of read from a journaled store
    (deterministic replay re-runs a crash-resumed attempt with it)."""

    def __post_init__(self) -> None:
        request = self.request
        if request is None:
            self.request = RunRequest(
                self.run_identity.thread_id,
                agent_id=self.agent_id,
                overrides=self.overrides,
                decisions=self.decisions,
                frontend_tools=self.frontend_tools,
            )
            return
        if self.overrides is not None or self.frontend_tools or self.decisions:
            raise TypeError("pass overrides, frontend_tools and decisions on the request")
        self.overrides = request.overrides
        self.frontend_tools = request.frontend_tools
        self.decisions = request.decisions
