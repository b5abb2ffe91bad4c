"""The agent loop: phases in order, events in order, checkpoints at step boundaries.

``RunStart → [StepStart → BeforeInference → inference → AfterInference → (ToolGate →
BeforeToolExecute → tool → AfterToolExecute)* → StepEnd]* → RunEnd``

Event order of a text-only run::

    run_start, step_start, text_delta, inference_complete, state_snapshot, step_end,
    state_snapshot, run_finish

Every step ends with ``state_snapshot`` + ``step_end`` after a checkpoint (the step that ends
the run is written by the run's final checkpoint, which follows at once); every run's
stream ends with ``run_finish`` — a failure emits ``error`` first and finishes with termination
``error``. A suspended call ends the step and emits ``run_finish(suspended)``; with a control
channel the run then waits for decisions (or cancellation) and continues in place. ``max_rounds``
stops the run before inference number ``max_rounds + 1`` with ``stopped(max_rounds)``.
"""

from __future__ import annotations

import enum
import logging
import time
from typing import Any

from awaken_contract.actions import (
    ClearToolCallStates,
    ContextMessageStoreKey,
    InferenceOverrideKey,
    PendingWorkKey,
    RemoveContextMessages,
    RunLifecycleKey,
    RunLifecycleState,
    RunLifecycleUpdate,
    ToolCallStatesKey,
    ToolFilterKey,
)
from awaken_contract.contract.content import TextBlock
from awaken_contract.contract.event import (
    AgentEvent,
    Error,
    InferenceComplete,
    RunFinish,
    RunStart,
    StateSnapshot,
    StepEnd,
    StepStart,
)
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.inference import StreamResult, TokenUsage
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind, TerminationReason
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.tool import FrontEndTool, Tool
from awaken_contract.errors import (
    AwakenError,
    InferenceFailed,
    LoopStorageFailed,
    ResolveError,
    ResolveFailed,
    StateCancelled,
    StorageError,
)
from awaken_contract.ids import new_id, now_ms, now_secs
from awaken_contract.log_context import bind_run
from awaken_contract.model import PendingScheduledActions, Phase
from awaken_contract.plugin import PhaseContext, apply_transforms
from awaken_contract.registry_spec import AgentSpec, ContextWindowPolicy
from awaken_contract.state import MutationBatch, PersistedState

from awaken_runtime.cancellation import RunCancelled, RunCanceller
from awaken_runtime.context.compaction import (
    CompactionStateKey,
    compact_history,
    compaction_config,
    custom_summarizer,
)
from awaken_runtime.context.summarizer import DefaultSummarizer
from awaken_runtime.execution.executor import DecisionReplayPolicy, ToolExecutor
from awaken_runtime.execution.pipeline import ToolPipeline, prepare_resume
from awaken_runtime.extensions.handoff.switch import handoff_target, resolve_handoff
from awaken_runtime.loop_runner.checkpoint import RunRecordInputs, build_run_record
from awaken_runtime.loop_runner.history import last_assistant_text
from awaken_runtime.loop_runner.params import AgentLoopParams, AgentRunResult, DecisionBatch
from awaken_runtime.loop_runner.request import (
    effective_overrides,
    filter_tools,
    place_context_messages,
)
from awaken_runtime.loop_runner.stream import StreamCollector, consume_stream
from awaken_runtime.plugins.env import ExecutionEnv
from awaken_runtime.policies.hook import stop_termination
from awaken_runtime.registry.resolved import ResolvedAgent

__all__ = ["CONTINUATION_PROMPT", "run_agent_loop"]

_log = logging.getLogger(__name__)
_PENDING_ACTIONS = PendingScheduledActions.KEY

#: Sent (as an internal user message) when the model's output was cut by the token limit.
CONTINUATION_PROMPT = (
    "Your previous reply was cut off because it reached the output token limit. "
    "Continue exactly where you stopped; if the remaining work is large, split it into "
    "smaller pieces (for example several smaller tool calls) instead of one long output."
)


class _Outcome(enum.Enum):
    NATURAL_END = "natural_end"
    CONTINUE = "continue"
    TERMINATED = "terminated"
    SUSPENDED = "suspended"


async def run_agent_loop(params: AgentLoopParams) -> AgentRunResult:
    """Run one agent loop to its end (or to a suspension when it cannot wait)."""
    run = _LoopRun(params)
    try:
        with bind_run(params.run_identity):  # log lines of the run carry its ids
            return await run.run()
    finally:
        run.canceller.close()


def _done(reason: str) -> MutationBatch:
    return MutationBatch().update(RunLifecycleKey, RunLifecycleUpdate.done(reason))


class _LoopRun:
    """State of one loop invocation (also the pipeline's :class:`ToolHost`)."""

    def __init__(self, params: AgentLoopParams) -> None:
        self.params = params
        self.phase = params.runtime
        self.store = params.runtime.store
        self.sink = params.sink
        self.identity = params.run_identity
        self.messages: list[Message] = params.messages
        self.token = params.cancellation_token
        self.canceller = params.canceller or RunCanceller(params.cancellation_token)
        self.input_message_count = (
            params.input_message_count
            if params.input_message_count is not None
            else len(params.messages)
        )
        self.steps = 0
        self.continuations = 0
        self.usage: TokenUsage | None = None
        self.step_open = False
        self.loop_start_ms = now_ms()
        self.record = RunRecordInputs(
            params.run_identity,
            previous=params.previous_run,
            request=params.request_snapshot,
            input_message_count=self.input_message_count,
            loop_start_ms=self.loop_start_ms,
            base_steps=(
                params.previous_run.steps
                if params.is_continuation and params.previous_run is not None
                else 0
            ),
        )
        self.pending_decisions: DecisionBatch = []
        # set by _activate
        self.agent: ResolvedAgent
        self.base_agent: ResolvedAgent
        self.spec: AgentSpec
        self.env: ExecutionEnv
        self.tools: dict[str, Tool]
        self.executor: ToolExecutor
        self.pipeline = ToolPipeline(self)
        self._system_message: Message | None = None
        self._persisted: PersistedState | None = None

    # ------------------------------------------------------------------ helpers
    def phase_ctx(self, phase: Phase, *, with_token: bool = True, **extra: Any) -> PhaseContext:
        """A context for ``phase`` over the current snapshot."""
        return PhaseContext(
            phase=phase,
            snapshot=self.store.snapshot(),
            agent_spec=self.spec,
            run_identity=self.identity,
            messages=self.messages,
            cancellation_token=self.token if with_token else None,
            **extra,
        )

    async def run_phase(self, phase: Phase, *, with_token: bool = True, **extra: Any) -> None:
        """GATHER + EXECUTE of ``phase``; skipped when it has no hooks and no queued actions.

        Raises ``StateCancelled`` when the run is cancelled (phases that observe the token).
        """
        if not self.env.phase_hooks.get(phase) and not self.store.snapshot().get_raw(
            _PENDING_ACTIONS
        ):
            if with_token and self.canceller.is_cancelled:
                raise StateCancelled()
            return
        await self.phase.run_phase(self.env, self.phase_ctx(phase, with_token=with_token, **extra))

    async def emit(self, event: AgentEvent) -> None:
        """Send one event to the run's sink."""
        await self.sink.emit(event)

    def persisted(self) -> PersistedState:
        """``export_persisted()`` of the current revision (computed once per revision)."""
        cached = self._persisted
        revision = self.store.revision()
        if cached is None or cached.revision != revision:
            cached = self._persisted = self.store.export_persisted()
        return cached

    def lifecycle(self) -> RunLifecycleState:
        """The current run lifecycle (default when absent)."""
        value = self.store.snapshot().get(RunLifecycleKey)
        return value if value is not None else RunLifecycleKey.default()

    def check_termination(self) -> TerminationReason | None:
        """A termination requested through the lifecycle (done, or waiting on decisions)."""
        lifecycle = self.store.snapshot().get(RunLifecycleKey)
        if lifecycle is None:
            return None
        if lifecycle.status is RunStatus.DONE:
            reason = lifecycle.status_reason or "unknown"
            if reason.startswith("stopped:"):
                return stop_termination(self.store.snapshot(), reason[len("stopped:") :])
            return TerminationReason.from_done_reason(reason)
        if lifecycle.status is RunStatus.WAITING and lifecycle.status_reason != "awaiting_tasks":
            return TerminationReason.suspended()
        return None

    def _resolve(self) -> ResolvedAgent:
        params = self.params
        if params.resolved is not None:
            return params.resolved
        try:
            return params.resolver.resolve(params.agent_id)
        except ResolveError as exc:
            raise ResolveFailed(str(exc)) from exc

    def _activate(self, agent: ResolvedAgent) -> None:
        self.agent = agent
        self.spec = agent.spec
        self.env = agent.env
        self.executor = agent.tool_executor
        tools = agent.tools
        frontend = self.params.frontend_tools
        if frontend:
            tools = dict(tools)
            for descriptor in frontend:
                tools[descriptor.id] = FrontEndTool(descriptor)
        self.tools = tools
        store = self.store
        store.register_keys(agent.env.key_registrations)
        batch = MutationBatch()
        for plugin in agent.env.plugins:
            plugin.on_activate(agent.spec, batch)
        if not batch.is_empty:
            store.commit(batch)
        prompt = agent.spec.system_prompt
        self._system_message = (
            Message(role=Role.SYSTEM, content=[TextBlock(text=prompt)]) if prompt else None
        )

    def _apply_handoff(self) -> TerminationReason | None:
        """Switch agent when ``__runtime.active_agent`` names another one (spec §16)."""
        target = handoff_target(self.store.snapshot(), self.base_agent.spec.id, self.spec.id)
        if target is None:
            return None
        try:
            agent = resolve_handoff(self.params.resolver, self.base_agent, target)
        except AwakenError as exc:
            reason = f"handoff resolve failed: {exc}"
            self.store.commit(_done(f"blocked:{reason}"))
            return TerminationReason.blocked(reason)
        batch = MutationBatch()
        for plugin in self.env.plugins:
            plugin.on_deactivate(batch)
        if not batch.is_empty:
            self.store.commit(batch)
        self._activate(agent)
        return None

    # ------------------------------------------------------------------ run
    async def run(self) -> AgentRunResult:
        agent = self._resolve()
        self.base_agent = agent
        self._activate(agent)
        params = self.params
        if params.decisions:
            prepare_resume(self.store, params.decisions)
        start = (
            RunLifecycleUpdate.set_running()
            if params.is_continuation
            else RunLifecycleUpdate.start(self.identity.run_id)
        )
        if params.is_continuation and self.store.snapshot().get(RunLifecycleKey) is None:
            start = RunLifecycleUpdate.start(self.identity.run_id)
        self.store.commit(MutationBatch().update(RunLifecycleKey, start))
        await self._emit_run_start()
        try:
            termination = await self._run_body()
        except (RunCancelled, StateCancelled):
            termination = TerminationReason.cancelled()
        except Exception as exc:
            message = str(exc) or type(exc).__name__
            _log.warning("run %s failed: %s", self.identity.run_id, message, exc_info=True)
            await self.emit(Error(message=message, code=_error_code(exc)))
            if self.step_open:
                self.step_open = False
                await self.emit(StepEnd())
            termination = TerminationReason.error(message)
        if termination.type is TerminationKind.SUSPENDED:
            return self._result(termination)  # parked: run_finish(suspended) already sent
        return await self._finish(termination)

    async def _run_body(self) -> TerminationReason:
        """The loop proper; ``suspended`` when the run stays parked without waiting."""
        await self.pipeline.replay_resumed()
        try:
            await self.run_phase(Phase.RUN_START)
        except StateCancelled:
            return TerminationReason.cancelled()
        if self.pipeline.suspended_calls():
            outcome = await self._suspend_and_wait(step_open=False)
            if outcome is not None:
                return outcome
        return await self._step_loop()

    async def _step_loop(self) -> TerminationReason:
        while True:
            blocked = self._apply_handoff()
            if blocked is not None:
                return blocked
            self.steps += 1
            self.step_open = True
            await self.emit(StepStart(message_id=new_id()))
            if self.store.snapshot().get(ToolCallStatesKey) is not None:
                self.store.commit(MutationBatch().update(ToolCallStatesKey, ClearToolCallStates()))
            outcome, termination = await self._execute_step()
            if outcome is _Outcome.SUSPENDED:
                waited = await self._suspend_and_wait(step_open=True)
                if waited is not None:
                    return waited
                continue
            # A step that ends the run is persisted by the final checkpoint right after.
            await self._complete_step(checkpoint=outcome is _Outcome.CONTINUE)
            if outcome is _Outcome.TERMINATED:
                assert termination is not None
                return termination
            if self._drain_inbox():
                continue
            if outcome is _Outcome.NATURAL_END:
                pending = self.store.snapshot().get(PendingWorkKey)
                if pending is not None and pending.has_pending:
                    self.store.commit(
                        MutationBatch().update(
                            RunLifecycleKey, RunLifecycleUpdate.set_waiting("awaiting_tasks")
                        )
                    )
                return TerminationReason.natural_end()
            termination = self.check_termination()
            if termination is not None:
                return termination

    def _cancelled_step(self) -> tuple[_Outcome, TerminationReason]:
        """Mark the run done as cancelled and end the step."""
        self.store.commit(_done("cancelled"))
        return _Outcome.TERMINATED, TerminationReason.cancelled()

    async def _execute_step(self) -> tuple[_Outcome, TerminationReason | None]:
        store = self.store
        phase = self.phase
        env = self.env
        if self.canceller.is_cancelled:
            return self._cancelled_step()
        try:
            await self.run_phase(Phase.STEP_START)
        except StateCancelled:
            return self._cancelled_step()
        termination = self.check_termination()
        if termination is not None:
            return _Outcome.TERMINATED, termination

        # BeforeInference: hooks (no conflict fallback), then this phase's actions.
        if env.phase_hooks.get(Phase.BEFORE_INFERENCE):
            command = await phase.collect_commands(env, self.phase_ctx(Phase.BEFORE_INFERENCE))
            if not command.is_empty:
                await phase.submit_command(env, command)
        if store.snapshot().get_raw(_PENDING_ACTIONS):
            await phase.run_execute_loop(env, self.phase_ctx(Phase.BEFORE_INFERENCE))
        termination = self.check_termination()
        snap = store.snapshot()
        tool_filter = snap.get(ToolFilterKey)
        step_overrides = snap.get(InferenceOverrideKey)
        if tool_filter is not None or step_overrides is not None:
            clear = MutationBatch()
            if tool_filter is not None:
                clear.clear(ToolFilterKey)
            if step_overrides is not None:
                clear.clear(InferenceOverrideKey)
            store.commit(clear)
        if termination is not None:
            return _Outcome.TERMINATED, termination

        # Inference.
        policy = self.spec.context_policy
        if (
            policy is not None
            and policy.autocompact_threshold is not None
            and not await self._compact(policy)
        ):
            return self._cancelled_step()
        upstream_model, overrides = effective_overrides(
            self.spec, self.params.overrides, step_overrides, self.agent.upstream_model
        )
        request = InferenceRequest(
            upstream_model=upstream_model,
            messages=self._prompt_messages(),
            tools=filter_tools(self.agent_tool_descriptors(), tool_filter),
            overrides=overrides,
            enable_prompt_cache=(
                self.spec.context_policy.enable_prompt_cache
                if self.spec.context_policy is not None
                else False
            ),
        )
        self._transform(request)
        started = time.perf_counter()
        provider = self.agent.model.provider if self.agent.model is not None else None
        try:
            result, cancelled = await self._infer(request)
            while (
                not cancelled
                and result.needs_truncation_recovery
                and self.continuations < self.spec.max_continuation_retries
            ):
                result, cancelled = await self._continue_truncated(request, result)
        except InferenceFailed as exc:
            # A failed inference still ends its phase: AfterInference sees the error.
            await self._observe_phase(
                Phase.AFTER_INFERENCE,
                inference_model=upstream_model,
                inference_provider=provider,
                inference_duration_ms=int((time.perf_counter() - started) * 1000),
                inference_error=exc,
            )
            raise
        duration_ms = int((time.perf_counter() - started) * 1000)
        model = self.agent.model
        cost = model.cost(result.usage) if model is not None else None
        if cost is not None:
            self.record.cost = (self.record.cost or 0.0) + cost
        await self.emit(
            InferenceComplete(
                model=upstream_model, duration_ms=duration_ms, usage=result.usage, cost=cost
            )
        )
        if cancelled or self.canceller.is_cancelled:
            return self._cancelled_step()

        # AfterInference.
        try:
            await self.run_phase(
                Phase.AFTER_INFERENCE,
                llm_response=result,
                inference_cost=cost,
                inference_model=upstream_model,
                inference_provider=provider,
                inference_duration_ms=duration_ms,
            )
        except StateCancelled:
            return self._cancelled_step()
        termination = self.check_termination()
        if termination is not None:
            return _Outcome.TERMINATED, termination

        text = result.text
        if not result.tool_calls:
            self.messages.append(Message.assistant(text))
            return _Outcome.NATURAL_END, None

        # Tools.
        self.messages.append(Message.assistant_with_tool_calls(text, result.tool_calls))
        blocked, suspended = await self.pipeline.run_calls(result.tool_calls)
        if blocked is not None:
            store.commit(_done(f"blocked:{blocked}"))
            return _Outcome.TERMINATED, TerminationReason.blocked(blocked)
        if self.canceller.is_cancelled:
            return self._cancelled_step()
        termination = self.check_termination()
        if termination is not None:
            return _Outcome.TERMINATED, termination
        if suspended:
            return _Outcome.SUSPENDED, None
        return _Outcome.CONTINUE, None

    async def _compact(self, policy: ContextWindowPolicy) -> bool:
        """LLM compaction of the history (spec §15.3) with the agent's model; ``False`` when
        the run was cancelled meanwhile (the history is then unchanged)."""
        config = compaction_config(self.spec)
        summarizer = custom_summarizer(self.env.plugins) or DefaultSummarizer(
            self.agent.llm_executor, self.agent.upstream_model, config
        )
        try:
            compacted = await self.canceller.race(
                compact_history(self.messages, policy, config, summarizer)
            )
        except RunCancelled:
            return False
        except Exception as exc:
            raise InferenceFailed(f"compaction failed: {exc}") from exc
        if compacted is None:
            return True
        index, boundary = compacted
        if index < self.input_message_count:
            self.input_message_count += 1
            self.record.input_message_count += 1
        self.store.commit(MutationBatch().update(CompactionStateKey, boundary))
        return True

    def _transform(self, request: InferenceRequest) -> None:
        transforms = self.env.request_transforms
        if transforms:
            request.messages, request.tools = apply_transforms(
                request.messages, request.tools, [t.transform for t in transforms]
            )

    async def _infer(self, request: InferenceRequest) -> tuple[StreamResult, bool]:
        """Stream one inference; ``(result, cancelled)``. Executor failures → InferenceFailed."""
        collector = StreamCollector()
        cancelled = False
        try:
            await self.canceller.race(
                consume_stream(self.agent.llm_executor, request, self.sink, collector)
            )
        except RunCancelled:
            cancelled = True
        except AwakenError as exc:
            raise InferenceFailed(str(exc)) from exc
        except Exception as exc:
            raise InferenceFailed(f"{type(exc).__name__}: {exc}") from exc
        result = await collector.finish(self.sink, cancelled)
        self._account(result)
        return result, cancelled

    async def _continue_truncated(
        self, request: InferenceRequest, truncated: StreamResult
    ) -> tuple[StreamResult, bool]:
        """The output hit the token limit: keep the partial text, ask the model to go on."""
        self.continuations += 1
        self.messages.append(Message.assistant(truncated.text))
        self.messages.append(Message.internal_user(CONTINUATION_PROMPT))
        system = self._system_message
        retry = InferenceRequest(
            upstream_model=request.upstream_model,
            messages=[system, *self.messages] if system is not None else list(self.messages),
            tools=self.agent_tool_descriptors(),
            overrides=request.overrides,
            enable_prompt_cache=False,
        )
        self._transform(retry)
        return await self._infer(retry)

    def agent_tool_descriptors(self) -> list[Any]:
        """Descriptors offered to the model (agent tools plus frontend tools), sorted by id."""
        if self.tools is self.agent.tools:
            return self.agent.tool_descriptors()
        return sorted((t.descriptor() for t in self.tools.values()), key=lambda d: d.id)

    def _prompt_messages(self) -> list[Message]:
        system = self._system_message
        messages = [system, *self.messages] if system is not None else list(self.messages)
        context_store = self.store.snapshot().get(ContextMessageStoreKey)
        if context_store is None or not context_store.messages:
            return messages
        context = context_store.sorted_messages()
        drop = [m.key for m in context if not m.persistent or m.consume_after_emit]
        if drop:
            self.store.commit(
                MutationBatch().update(ContextMessageStoreKey, RemoveContextMessages(drop))
            )
        return place_context_messages(messages, context, system is not None)

    def _account(self, result: StreamResult) -> None:
        usage = result.usage
        if usage is None:
            return
        self.record.input_tokens += max(usage.prompt_tokens or 0, 0)
        self.record.output_tokens += max(usage.completion_tokens or 0, 0)
        self.usage = usage if self.usage is None else self.usage + usage

    # ------------------------------------------------------------------ step end
    async def _complete_step(self, *, checkpoint: bool = True) -> None:
        store = self.store
        store.commit(
            MutationBatch().update(RunLifecycleKey, RunLifecycleUpdate.step_completed_at())
        )
        await self.run_phase(Phase.STEP_END, with_token=False)
        if checkpoint:
            await self._checkpoint()
        await self.emit(StateSnapshot(snapshot=self.persisted()))
        self.step_open = False
        await self.emit(StepEnd())

    async def _checkpoint(
        self, termination: TerminationReason | None = None, response: str = ""
    ) -> None:
        target = self.params.checkpoint_store
        if target is None:
            return
        snap = self.store.snapshot()
        record = build_run_record(
            self.record,
            self.lifecycle(),
            snap.get(ToolCallStatesKey),
            self.persisted(),
            self.messages,
            termination=termination,
            response=response,
            now_secs=now_secs(),
        )
        try:
            await target.checkpoint(self.identity.thread_id, self.messages, record)
        except StorageError as exc:
            raise LoopStorageFailed(str(exc)) from exc
        self.record.previous = record

    # ------------------------------------------------------------------ suspension
    async def _suspend_and_wait(self, *, step_open: bool) -> TerminationReason | None:
        """Park the run; ``None`` when decisions resumed every suspended call."""
        store = self.store
        store.commit(
            MutationBatch().update(RunLifecycleKey, RunLifecycleUpdate.set_waiting("suspended"))
        )
        if step_open:
            await self._complete_step()
        else:
            await self._checkpoint()
        await self._finish_suspended()
        channel = self.params.decision_rx
        if channel is None or not self.params.wait_for_decisions:
            return TerminationReason.suspended()
        while True:
            try:
                kind, payload = await self.canceller.race(channel.get())
            except RunCancelled:
                return TerminationReason.cancelled()
            batch: DecisionBatch = []
            entries = [(kind, payload)]
            while not channel.empty():
                entries.append(channel.get_nowait())
            for entry_kind, entry in entries:
                if entry_kind == "decisions":
                    batch.extend(entry)
                else:
                    self.messages.extend(entry)
                    await self._checkpoint()
            if not batch:
                continue
            if not self._ready_to_replay(batch):
                continue
            decisions, self.pending_decisions = self.pending_decisions, []
            known = self._known_decisions(decisions)
            if not known:
                continue
            prepare_resume(store, known)
            await self._emit_run_start()
            await self._observe_phase(Phase.RUN_START)  # the parked run's RunEnd ran
            await self.pipeline.replay_resumed()
            if self.pipeline.suspended_calls():
                await self._checkpoint()
                await self._finish_suspended()
                continue
            store.commit(MutationBatch().update(RunLifecycleKey, RunLifecycleUpdate.set_running()))
            return None

    async def _emit_run_start(self) -> None:
        identity = self.identity
        await self.emit(
            RunStart(
                thread_id=identity.thread_id,
                run_id=identity.run_id,
                parent_run_id=identity.parent_run_id,
                identity=identity,
            )
        )

    async def _observe_phase(self, phase: Phase, **extra: Any) -> None:
        """Run ``phase`` so plugins observe an end (or restart) the loop takes anyway; a hook
        failure is logged and does not change the run's outcome."""
        try:
            await self.run_phase(phase, with_token=False, **extra)
        except Exception as exc:
            _log.warning("%s phase of %s failed: %s", phase.value, self.identity.run_id, exc)

    async def _finish_suspended(self) -> None:
        """Announce the parked run: RunEnd (``suspended``), its state, then ``RunFinish``."""
        await self._observe_phase(Phase.RUN_END, termination=TerminationReason.suspended())
        identity = self.identity
        await self.emit(StateSnapshot(snapshot=self.persisted()))
        await self.emit(
            RunFinish(
                thread_id=identity.thread_id,
                run_id=identity.run_id,
                termination=TerminationReason.suspended(),
                identity=identity,
            )
        )

    def _ready_to_replay(self, batch: DecisionBatch) -> bool:
        """Collect decisions; with batch approval wait until every suspended call has one."""
        self.pending_decisions.extend(batch)
        if self.executor.decision_replay_policy() is not DecisionReplayPolicy.BATCH_ALL_SUSPENDED:
            return True
        targets = {target for target, _ in self.pending_decisions}
        return all(
            s.call_id in targets or (s.suspension_id is not None and s.suspension_id in targets)
            for s in self.pipeline.suspended_calls()
        )

    def _known_decisions(self, decisions: DecisionBatch) -> DecisionBatch:
        calls = self.pipeline.suspended_calls()
        ids = {s.call_id for s in calls} | {s.suspension_id for s in calls if s.suspension_id}
        known = [(target, resume) for target, resume in decisions if target in ids]
        for target, _ in decisions:
            if target not in ids:
                _log.warning("ignoring decision for unknown suspended call %s", target)
        return known

    def _drain_inbox(self) -> bool:
        """Append messages delivered to the run meanwhile; keep decisions for later."""
        channel = self.params.decision_rx
        if channel is None or channel.empty():
            return False
        appended = False
        keep = []
        while not channel.empty():
            kind, payload = channel.get_nowait()
            if kind == "messages":
                self.messages.extend(payload)
                appended = True
            else:
                keep.append((kind, payload))
        for entry in keep:
            channel.put_nowait(entry)
        return appended

    # ------------------------------------------------------------------ finish
    async def _finish(self, termination: TerminationReason) -> AgentRunResult:
        store = self.store
        status, reason = termination.to_run_status()
        current = self.lifecycle()
        waiting_on_tasks = (
            current.status is RunStatus.WAITING
            and current.status_reason == "awaiting_tasks"
            and termination.type is TerminationKind.NATURAL_END
        )
        if status is RunStatus.DONE and not waiting_on_tasks:
            store.commit(_done(reason or "unknown"))
        try:
            await self.run_phase(Phase.RUN_END, with_token=False, termination=termination)
        except Exception as exc:
            _log.warning("run_end phase of %s failed: %s", self.identity.run_id, exc)
            if termination.type is not TerminationKind.ERROR:
                await self.emit(Error(message=str(exc), code="phase_error"))
                termination = TerminationReason.error(str(exc))
        response = last_assistant_text(self.messages, self.input_message_count)
        try:
            await self._checkpoint(termination, response)
        except LoopStorageFailed as exc:
            _log.warning("final checkpoint of %s failed: %s", self.identity.run_id, exc)
            if termination.type is not TerminationKind.ERROR:
                await self.emit(Error(message=str(exc), code="storage_error"))
                termination = TerminationReason.error(str(exc))
        await self.emit(StateSnapshot(snapshot=self.persisted()))
        lifecycle = self.lifecycle()
        result: dict[str, Any] = {"response": response, "status": lifecycle.status.value}
        if lifecycle.status_reason:
            result["status_reason"] = lifecycle.status_reason
        identity = self.identity
        await self.emit(
            RunFinish(
                thread_id=identity.thread_id,
                run_id=identity.run_id,
                termination=termination,
                identity=identity,
                result=result,
            )
        )
        return self._result(termination, response)

    def _result(
        self, termination: TerminationReason, response: str | None = None
    ) -> AgentRunResult:
        if response is None:
            response = last_assistant_text(self.messages, self.input_message_count)
        return AgentRunResult(
            response=response,
            steps=self.steps,
            termination=termination,
            run_id=self.identity.run_id,
            thread_id=self.identity.thread_id,
            usage=self.usage,
        )


def _error_code(exc: BaseException) -> str:
    if isinstance(exc, InferenceFailed):
        return "inference_failed"
    if isinstance(exc, LoopStorageFailed):
        return "storage_error"
    if isinstance(exc, AwakenError):
        return "runtime_error"
    return "internal_error"
