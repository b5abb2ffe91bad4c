"""ToolContext: what one step's tool calls see — never the loop itself.

The loop builds one per activated agent (a handoff builds a new one). The pipeline reads the
agent's tools, hooks and executor from it, writes state through its store, events to its sink
and tool messages to its (shared) message list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
from awaken_contract.contract.cancellation import CancellationToken
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import ProfileStore
from awaken_contract.contract.tool import Tool, ToolDescriptor
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext
from awaken_contract.registry_spec import AgentSpec

from awaken_runtime.cancellation import RunCanceller
from awaken_runtime.execution.executor import ToolExecutor
from awaken_runtime.phase.engine import PhaseRuntime
from awaken_runtime.phase.immediate import ObservingPhase
from awaken_runtime.plugins.env import ExecutionEnv
from awaken_runtime.plugins.registrar import TaggedPhaseHook
from awaken_runtime.run_journal import ToolJournal
from awaken_runtime.state.store import StateStore

__all__ = ["ToolContext"]


class ToolContext(msgspec.Struct, frozen=True, kw_only=True, eq=False):
    """The agent (spec, env, tools, executor) and the run (state, phases, sink, messages,
    cancellation) as the tool pipeline sees them (a frozen struct: built in C, once per
    activation)."""

    spec: AgentSpec
    env: ExecutionEnv
    tools: Mapping[str, Tool]
    executor: ToolExecutor
    store: StateStore
    phase: PhaseRuntime
    identity: RunIdentity
    sink: EventSink
    messages: list[Message]
    canceller: RunCanceller
    hooks: Mapping[Phase, Sequence[TaggedPhaseHook]]
    """The active hooks per phase (``ResolvedAgent.active_phase_hooks``)."""
    observing: Mapping[Phase, ObservingPhase] = msgspec.field(default_factory=dict)
    """The phases whose hooks all only observe (``ResolvedAgent.observing_phase_hooks``)."""
    token: CancellationToken | None = None
    profile_store: ProfileStore | None = None
    descriptors: Sequence[ToolDescriptor] = ()
    """The tools offered to the model (``ctx.tools`` of every hook)."""
    journal: ToolJournal | None = None
    """Records executions in the run journal and answers calls an earlier attempt ran."""

    def hooks_for(self, phase: Phase) -> Sequence[TaggedPhaseHook] | None:
        """The hooks that run at ``phase`` (``None`` when none)."""
        return self.hooks.get(phase)

    def phase_ctx(self, phase: Phase, *, with_token: bool = True, **extra: Any) -> PhaseContext:
        """A context for ``phase`` over the current snapshot (``with_token=False``: phases
        that must run to their end even when the run is cancelled)."""
        return PhaseContext(
            phase=phase,
            snapshot=self.store.snapshot(),
            agent_spec=self.spec,
            run_identity=self.identity,
            messages=self.messages,
            cancellation_token=self.token if with_token else None,
            profile_store=self.profile_store,
            tools=self.descriptors,
            **extra,
        )
