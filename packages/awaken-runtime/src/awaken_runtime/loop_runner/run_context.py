"""LoopContext: the state of one loop invocation, shared by its phases.

The phases (``inference``, ``tools``, ``suspension``, ``finish``) are functions over one
:class:`LoopContext`: the run's :class:`AgentLoopParams` (read, never copied), the active
agent (``activate`` / ``apply_handoff``), step counters and usage, the run record inputs and
the step-boundary helpers (phase contexts, checkpoint, ``complete_step``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from awaken_contract.actions import (
    RunLifecycleKey,
    RunLifecycleState,
    RunLifecycleUpdate,
    ToolCallStatesKey,
)
from awaken_contract.contract.event import AgentEvent, RunStart, StateSnapshot, StepEnd
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.executor import LlmExecutor
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.inference import TokenUsage
from awaken_contract.contract.journal import AttemptRecord, JournaledThreadRunStore
from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.message import Message
from awaken_contract.contract.suspension import ToolCallResume
from awaken_contract.contract.tool import FrontEndTool, Tool, ToolDescriptor
from awaken_contract.errors import (
    AwakenError,
    LoopStorageFailed,
    ResolveError,
    ResolveFailed,
    StateCancelled,
    StorageError,
)
from awaken_contract.ids import now_ms, now_secs
from awaken_contract.model import PendingScheduledActions, Phase
from awaken_contract.registry_spec import AgentSpec
from awaken_contract.runtime import AgentRunResult
from awaken_contract.state import MutationBatch, PersistedState

from awaken_runtime.cancellation import RunCanceller
from awaken_runtime.engine.retry import RetryingExecutor
from awaken_runtime.execution.pipeline import ToolPipeline
from awaken_runtime.extensions.handoff.state import ActiveAgentIdKey
from awaken_runtime.extensions.handoff.switch import handoff_target, resolve_handoff
from awaken_runtime.loop_runner.checkpoint import RunRecordInputs, build_run_record
from awaken_runtime.loop_runner.history import last_assistant_text
from awaken_runtime.loop_runner.journal_inputs import attempt_record, control_inputs
from awaken_runtime.loop_runner.params import AgentLoopParams, ControlMessage
from awaken_runtime.loop_runner.steps import StepClock, StepOutcome, StepResult, done_batch
from awaken_runtime.phase.engine import PhaseRuntime
from awaken_runtime.phase.immediate import ImmediatePhaseHook, run_immediately
from awaken_runtime.plugins.env import ExecutionEnv
from awaken_runtime.plugins.registrar import TaggedPhaseHook
from awaken_runtime.policies.hook import stop_termination
from awaken_runtime.registry.resolved import ResolvedAgent
from awaken_runtime.run_journal import (
    JournalingSink,
    ResumePoint,
    StepJournal,
    ToolJournal,
    finish_can_ride,
    load_resume_point,
)
from awaken_runtime.state.store import StateStore
from awaken_runtime.structured import OutputState

__all__ = ["LoopContext", "StepOutcome", "StepResult", "done_batch"]

_log = logging.getLogger("awaken_runtime.loop_runner.loop")

_PENDING_ACTIONS = PendingScheduledActions.KEY
_LIFECYCLE = RunLifecycleKey.KEY
_TOOL_CALL_STATES = ToolCallStatesKey.KEY
_ACTIVE_AGENT = ActiveAgentIdKey.KEY
# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_DONE = RunStatus.DONE
_WAITING = RunStatus.WAITING
_STEP_END = Phase.STEP_END


class LoopContext:
    """State of one loop invocation (see the module docstring)."""

    __slots__ = (
        "_attempt",
        "_owed_skip",
        "_persisted",
        "agent",
        "base_agent",
        "canceller",
        "clock",
        "collects",
        "continuations",
        "descriptors",
        "env",
        "first_attempt",
        "hooks",
        "identity",
        "immediate",
        "input_message_count",
        "journal",
        "messages",
        "output",
        "params",
        "pending_decisions",
        "persists",
        "phase",
        "pipeline",
        "record",
        "resume",
        "retrying",
        "sink",
        "spec",
        "step_open",
        "store",
        "system_message",
        "tools",
        "usage",
    )

    def __init__(self, params: AgentLoopParams) -> None:
        self.params = params
        self.canceller = params.canceller or RunCanceller(params.cancellation_token)
        self.input_message_count = (
            params.input_message_count
            if params.input_message_count is not None
            else len(params.messages)
        )
        self.continuations = 0
        self.usage: TokenUsage | None = None
        self.step_open = False
        self.clock = StepClock.for_run(params)
        self.record = RunRecordInputs(
            identity=params.run_identity,
            previous=params.previous_run,
            request=params.request_snapshot,
            input_message_count=self.input_message_count,
            loop_start_ms=now_ms(),
            base_steps=self.clock.base,
        )
        self.pending_decisions: tuple[tuple[str, ToolCallResume], ...] = ()  # (no list per run)
        self.output = OutputState()
        # The run's fixed parts, read as plain attributes on the hot path.
        self.phase: PhaseRuntime = params.runtime
        """The run's phase runtime."""
        self.store: StateStore = params.runtime.store
        """The run's state store."""
        self.identity: RunIdentity = params.run_identity
        """The run's identity."""
        self.messages: list[Message] = params.messages
        """The conversation (history plus this run's messages), appended to in place."""
        self.sink: EventSink = params.sink
        """Where the run's events go (through the journal when the run records one): send
        them as ``run.sink.emit(event)`` (no bound method kept per run), built only when
        ``sink.wants_events``."""
        self.persists = params.checkpoint_store is not None or params.scoped_state is not None
        """Whether :meth:`checkpoint` writes anything (a checkpoint or a profile store)."""
        # set by activate: the active agent and what is derived from it
        self.agent: ResolvedAgent
        self.base_agent: ResolvedAgent
        self.spec: AgentSpec
        self.env: ExecutionEnv
        self.hooks: Mapping[Phase, Sequence[TaggedPhaseHook]]
        """The active hooks per phase (phases without one are absent)."""
        self.immediate: Mapping[Phase, ImmediatePhaseHook]
        """The phases whose only active hook runs in place (``phase.immediate``)."""
        self.tools: dict[str, Tool]
        self.collects: bool
        """The agent's executor answers with a collected result (does not stream): asked
        once per activation, not per model call."""
        self.retrying: RetryingExecutor | None
        self.first_attempt: LlmExecutor | None
        """The executor behind the agent's retry wrapper that a collected model call awaits
        itself (``RetryingExecutor.first_attempt``), a failure going to ``retrying``."""
        self.descriptors: Sequence[ToolDescriptor]
        """What the model is offered: the agent's tools plus frontend tools, sorted by id."""
        self.pipeline: ToolPipeline
        """The active agent's tool pipeline, also the context its tool calls see."""
        self.system_message: Message | None = None
        self._persisted: PersistedState | None = None
        self.journal: StepJournal | None = None
        self.resume: ResumePoint | None = params.resume
        self._attempt: AttemptRecord | None = None
        self._owed_skip = False

    async def open_journal(self) -> None:
        """Record into the run's journal (a journaled checkpoint store only); a continued
        attempt also reads where the interrupted one stopped (a new run has nothing to read)."""
        store = self.params.checkpoint_store
        if store is None or not isinstance(store, JournaledThreadRunStore):  # (an ABC check)
            return
        run_id = self.identity.run_id
        try:
            last_seq = 0 if self.params.new_run else await store.last_seq(run_id)
            previous = self.params.previous_run
            # An attempt that died mid-run left the record created/running (a parked run is
            # waiting, a finished one done): pick up its unfinished step.
            crashed = previous is None or previous.status in (RunStatus.CREATED, RunStatus.RUNNING)
            if last_seq > 0 and crashed:
                self.resume = await load_resume_point(store, run_id, self.params.messages)
        except StorageError as exc:
            raise LoopStorageFailed(str(exc)) from exc
        sink = self.params.sink
        # (a sink that drops every event gets none, and no seq skips, from the journal)
        self.journal = StepJournal(store, run_id, last_seq, sink if sink.wants_events else None)
        self._attempt = attempt_record(self.params)  # journaled right after its run_start
        self.sink = JournalingSink(self.params.sink, self.journal)

    def record_inputs(self, entries: Sequence[ControlMessage]) -> None:
        """Journal the control-channel entries the run just took (replay feeds them again)."""
        if self.journal is not None:
            self.journal.record_inputs(control_inputs(entries))

    async def flush_journal(self) -> None:
        """Write the events emitted after the last checkpoint (best effort: the run's outcome
        is already durable in its run record)."""
        if self.journal is None:
            return
        try:
            await self.journal.flush()
        except LoopStorageFailed as exc:
            _log.warning("journal flush of %s failed: %s", self.identity.run_id, exc)

    @property
    def steps(self) -> int:
        """Steps taken by this attempt."""
        return self.clock.steps

    @steps.setter
    def steps(self, value: int) -> None:
        self.clock.steps = value

    @property
    def step_index(self) -> int:
        """The 0-based index of the current step across the run's attempts."""
        return self.clock.index()

    # ------------------------------------------------------------------ phases
    async def run_phase(self, phase: Phase, *, with_token: bool = True, **extra: Any) -> None:
        """GATHER + EXECUTE of ``phase``; skipped when it has no hooks and no queued actions.

        Raises ``StateCancelled`` when the run is cancelled (phases that observe the token).
        """
        if self._idle(phase):
            if with_token and self.canceller.is_cancelled:
                raise StateCancelled()
            return
        ctx = self.pipeline.phase_ctx(phase, with_token=with_token, **extra)
        immediate = self.immediate.get(phase)
        if immediate is not None and run_immediately(self.phase, immediate, ctx):
            if self.store.read_raw(_PENDING_ACTIONS):  # its updates queued actions themselves
                await self.phase.run_execute_loop(self.env, ctx)
            return
        await self.phase.run_phase(self.env, ctx, self.hooks.get(phase) or ())

    def _idle(self, phase: Phase) -> bool:
        """``phase`` would do nothing: no queued action and its only hook, run in place,
        is idle on the current state (or it has no hook)."""
        if self.store.values.get(_PENDING_ACTIONS):
            return False
        if phase not in self.hooks:
            return True
        immediate = self.immediate.get(phase)
        return (
            immediate is not None and not self.phase.busy and immediate.idle(self.store.snapshot())
        )

    def phase_has_work(self, phase: Phase) -> bool:
        """Whether ``phase`` has hooks or actions are queued; else :meth:`run_phase` only
        checks the cancellation (callers skip the await when that was just checked)."""
        return phase in self.hooks or bool(self.store.values.get(_PENDING_ACTIONS))

    async def observe_phase(self, phase: Phase, **extra: Any) -> None:
        """Run ``phase`` so plugins observe an end (or restart) the loop takes anyway; a hook
        failure is logged and does not change the run's outcome."""
        try:
            await self.run_phase(phase, with_token=False, **extra)
        except Exception as exc:
            _log.warning("%s phase of %s failed: %s", phase.value, self.identity.run_id, exc)

    async def deliver(self, event: AgentEvent) -> None:
        """Send an event a checkpoint already journaled (``checkpoint(events=...)``)."""
        sink = self.params.sink if self.journal is not None else self.sink
        if not sink.wants_events:
            return  # (it drops every event)
        await sink.emit(event)
        if self._owed_skip and isinstance(event, RunStart):
            self._owed_skip = False
            self.params.sink.skip_seq(1)  # the attempt record journaled after it

    def state_snapshot(self) -> StateSnapshot | None:
        """``state_snapshot`` of the current state, when the sink wants one."""
        if self.sink.wants_state_snapshots:
            return StateSnapshot(snapshot=self.persisted())
        return None

    async def emit_state_snapshot(self) -> None:
        """Emit :meth:`state_snapshot` (when wanted)."""
        snapshot = self.state_snapshot()
        if snapshot is not None:
            await self.sink.emit(snapshot)

    def persisted(self) -> PersistedState:
        """``export_persisted()`` of the current revision (computed once per revision)."""
        cached = self._persisted
        revision = self.store.revision()
        if cached is None or cached.revision != revision:
            cached = self._persisted = self.store.export_persisted()
        return cached

    def lifecycle(self) -> RunLifecycleState:
        """The current run lifecycle (default when absent)."""
        value = self.store.read(RunLifecycleKey)
        return value if value is not None else RunLifecycleKey.default()

    def check_termination(self) -> TerminationReason | None:
        """A termination requested through the lifecycle (done, or waiting on decisions)."""
        lifecycle: RunLifecycleState | None = self.store.values.get(_LIFECYCLE)
        if lifecycle is None:
            return None
        if lifecycle.status is _DONE:
            reason = lifecycle.status_reason or "unknown"
            if reason.startswith("stopped:"):
                return stop_termination(self.store.snapshot(), reason[len("stopped:") :])
            return TerminationReason.from_done_reason(reason)
        if lifecycle.status is _WAITING and lifecycle.status_reason != "awaiting_tasks":
            return TerminationReason.suspended()
        return None

    def cancelled_step(self) -> StepResult:
        """Mark the run done as cancelled and end the step."""
        self.store.commit(done_batch("cancelled"))
        return StepOutcome.TERMINATED, TerminationReason.cancelled()

    # ------------------------------------------------------------------ the agent
    def resolve(self) -> ResolvedAgent:
        """The agent the run starts with (resolved by the runtime, else here)."""
        params = self.params
        if params.resolved is not None:
            return params.resolved
        try:
            return params.resolver.resolve(params.agent_id)
        except ResolveError as exc:
            raise ResolveFailed(str(exc)) from exc

    def activate(self, agent: ResolvedAgent) -> None:
        """Make ``agent`` the active agent: tools (plus frontend tools), keys, plugins."""
        self.agent = agent
        self.spec = agent.spec
        self.env = agent.env
        views = agent.hook_views()
        self.hooks = views.by_phase
        self.immediate = views.immediate
        tools = agent.tools
        frontend = self.params.frontend_tools
        if frontend:
            tools = dict(tools)
            for descriptor in frontend:
                tools[descriptor.id] = FrontEndTool(descriptor)
        self.tools = tools
        self.descriptors = (
            agent.shared_tool_descriptors()
            if tools is agent.tools
            else sorted((t.descriptor() for t in tools.values()), key=lambda d: d.id)
        )
        store = self.store
        env = agent.env
        if not store.shares(env.run_registrations):  # a store of new_run_state has them
            store.register_keys(env.key_registrations)
        activating = env.plugins_overriding("on_activate")
        if activating:
            batch = MutationBatch()
            for plugin in activating:
                plugin.on_activate(agent.spec, batch)
            if not batch.is_empty:
                store.commit(batch)
        self.system_message = agent.system_message()  # (shared by the agent's runs)
        executor = agent.llm_executor
        self.collects = not executor.streams()
        self.retrying = executor if isinstance(executor, RetryingExecutor) else None
        self.first_attempt = self.retrying.first_attempt() if self.retrying is not None else None
        self.pipeline = ToolPipeline(
            spec=agent.spec,
            env=agent.env,
            tools=tools,
            executor=agent.tool_executor,
            store=store,
            phase=self.phase,
            identity=self.identity,
            sink=self.sink,
            messages=self.messages,
            canceller=self.canceller,
            token=self.params.cancellation_token,
            profile_store=self.params.profile_store,
            descriptors=self.descriptors,
            hooks=self.hooks,
            observing=views.observing,
            journal=(
                ToolJournal(
                    self.journal,
                    self.resume,
                    self.clock.index,
                    store,
                    finish_can_ride(self.hooks, self.params.scoped_state),  # see run_journal
                )
                if self.journal is not None or self.resume is not None
                else None
            ),
        )

    def apply_handoff(self) -> TerminationReason | None:
        """Switch agent when ``__runtime.active_agent`` names another one (spec §16)."""
        if self.agent is self.base_agent and self.store.values.get(_ACTIVE_AGENT) is None:
            return None  # no handoff asked for and none to undo (handoff_target's None)
        target = handoff_target(self.store.snapshot(), self.base_agent.spec.id, self.spec.id)
        if target is None:
            return None
        try:
            agent = resolve_handoff(self.params.resolver, self.base_agent, target)
        except AwakenError as exc:
            reason = f"handoff resolve failed: {exc}"
            self.store.commit(done_batch(f"blocked:{reason}"))
            return TerminationReason.blocked(reason)
        batch = MutationBatch()
        for plugin in self.env.plugins_overriding("on_deactivate"):
            plugin.on_deactivate(batch)
        if not batch.is_empty:
            self.store.commit(batch)
        self.activate(agent)
        return None

    def agent_tool_descriptors(self) -> list[ToolDescriptor]:
        """Descriptors offered to the model (agent tools plus frontend tools), sorted by id
        (computed once per activation; a fresh list each call)."""
        return list(self.descriptors)

    # ------------------------------------------------------------------ step boundaries
    def run_start(self) -> RunStart:
        """The ``run_start`` event of this run."""
        identity = self.identity
        return RunStart(
            thread_id=identity.thread_id,
            run_id=identity.run_id,
            parent_run_id=identity.parent_run_id,
            identity=identity,
        )

    def _record_attempt(self) -> None:
        """Journal this attempt's starting point right after its first ``run_start``."""
        if self._attempt is not None and self.journal is not None:
            self.journal.record_attempt(self._attempt)
            self._attempt = None

    async def emit_run_start(self) -> None:
        """Emit :meth:`run_start` (again after a resume in place)."""
        await self.sink.emit(self.run_start())
        self._record_attempt()

    async def complete_step(self, *, checkpoint: bool = True) -> None:
        """StepEnd phase, checkpoint, then ``state_snapshot`` + ``step_end``."""
        self.store.commit(
            MutationBatch().update(RunLifecycleKey, RunLifecycleUpdate.step_completed_at())
        )
        if not self._idle(_STEP_END):  # (a phase that ignores the token: nothing to check)
            if self.journal is not None and self.store.read_raw(_PENDING_ACTIONS):
                await self.journal.flush_held()  # the step-end phase runs actions first
            await self.run_phase(_STEP_END, with_token=False)
        if checkpoint and self.persists:
            await self.checkpoint()
        if self.sink.wants_state_snapshots:
            await self.sink.emit(StateSnapshot(snapshot=self.persisted()))
        self.step_open = False
        if self.sink.wants_events:
            await self.sink.emit(StepEnd())

    async def checkpoint(
        self,
        termination: TerminationReason | None = None,
        response: str = "",
        *,
        events: Sequence[AgentEvent] = (),
    ) -> None:
        """Persist messages and the run record (no-op without a checkpoint store), and the
        Shared/Profile keys the run changed (with a profile store). ``events`` are journaled
        in the same transaction; the caller sends them afterwards (:meth:`deliver`)."""
        scoped = self.params.scoped_state
        if scoped is not None:
            try:
                await scoped.save()
            except StorageError as exc:
                raise LoopStorageFailed(str(exc)) from exc
        target = self.params.checkpoint_store
        if target is None:
            return
        values = self.store.values
        lifecycle = values.get(_LIFECYCLE)
        inputs = self.record
        record = build_run_record(
            inputs,
            lifecycle if lifecycle is not None else RunLifecycleKey.default(),
            values.get(_TOOL_CALL_STATES),
            self.persisted(),
            self.messages,
            termination=termination,
            response=response,
            now_secs=now_secs(),
        )
        journal = self.journal
        try:
            if journal is not None:  # (open_journal: the target keeps journals)
                first = False
                for event in events:
                    journal.record_event(event)
                    if isinstance(event, RunStart):
                        first = True
                        if self._attempt is not None:
                            # its seq is skipped once the run_start before it was sent (deliver)
                            journal.record_attempt(self._attempt, skip_seq=False)
                            self._attempt = None
                            self._owed_skip = True
                request = self.params.request
                await journal.checkpoint(
                    self.identity.thread_id,
                    self.messages,
                    record,
                    request.checkpoint_writer if request is not None else None,
                    first=first,
                    termination=termination,
                    response=response,
                )
            else:
                await target.checkpoint(self.identity.thread_id, self.messages, record)
        except StorageError as exc:
            raise LoopStorageFailed(str(exc)) from exc
        inputs.previous = record
        inputs.own_previous = True

    def result(self, termination: TerminationReason, response: str | None = None) -> AgentRunResult:
        """What the run returns."""
        if response is None:
            response = last_assistant_text(self.messages, self.input_message_count)
        return AgentRunResult(
            response=response,
            steps=self.steps,
            termination=termination,
            run_id=self.identity.run_id,
            thread_id=self.identity.thread_id,
            usage=self.usage,
            output=self.output.result.value if self.output.result is not None else None,
        )
