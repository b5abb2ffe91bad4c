"""``AgentRuntime``: runs agents and controls live runs.

``run(request, sink)`` prepares a run — its :class:`RunPlan` (the request's, planned by the
mailbox at submission, else planned here: agent id, run id new, hinted, or the thread's
waiting run when resuming), a fresh state store with the thread's Thread-scoped state, the thread's
history (cleaned of abandoned and unpaired tool calls) plus the new messages — registers it as
the thread's active run and drives the agent loop. ``stream(request)`` yields the same events
as an async iterator. Live runs are controlled by id: ``cancel``, ``send_decision(s)``,
``send_messages``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping, Sequence

from awaken_contract.actions import ClearToolCallStates, ToolCallStatesKey
from awaken_contract.contract.event import AgentEvent
from awaken_contract.contract.event_sink import ChannelEventSink, EventSink, NullEventSink
from awaken_contract.contract.identity import RunIdentity, RunOrigin
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest, RunRequestOrigin
from awaken_contract.contract.run_plan import RunPlan, find_waiting_run
from awaken_contract.contract.storage import (
    ProfileStore,
    RunDecision,
    RunRecord,
    RunRequestSnapshot,
    ThreadRunStore,
)
from awaken_contract.contract.storage import RunRequestOrigin as StoredOrigin
from awaken_contract.contract.suspension import ToolCallResume, ToolCallStatus
from awaken_contract.errors import AwakenError, InvalidResume, ResolveError, ResolveFailed
from awaken_contract.ids import check_id, new_id
from awaken_contract.registry_spec import AgentSpec
from awaken_contract.runtime import AgentRunResult, DecisionBatch
from awaken_contract.scoped_state import ScopedStateEntries
from awaken_contract.state import KeyScope, MutationBatch, UnknownKeyPolicy

from awaken_runtime.loop_runner.history import (
    has_visible_user_message,
    strip_unpaired_tool_calls,
    supersede_suspended_calls,
)
from awaken_runtime.loop_runner.loop import run_agent_loop
from awaken_runtime.loop_runner.params import AgentLoopParams, decisions_message, inbox_message
from awaken_runtime.loop_runner.run_state import new_run_state
from awaken_runtime.registry.registries import RegistrySet
from awaken_runtime.registry.resolved import AgentResolver, ResolvedAgent
from awaken_runtime.runtime.active_registry import ActiveRunRegistry, RunHandle
from awaken_runtime.runtime.completion import Decider, run_to_completion
from awaken_runtime.state.scoped import ScopedStateSync
from awaken_runtime.state.store import StateStore

__all__ = ["AgentRuntime"]

_log = logging.getLogger(__name__)
_ORIGINS = {
    RunRequestOrigin.USER: RunOrigin.USER,
    RunRequestOrigin.A2A: RunOrigin.SUBAGENT,
    RunRequestOrigin.INTERNAL: RunOrigin.INTERNAL,
}
_ACTIVE_AGENT_KEY = "__runtime.active_agent"

# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_USER_ORIGIN = RunOrigin.USER
_NULL_SINK = NullEventSink()  # stateless: shared by the runs given no sink

_NEW_RUN = frozenset({KeyScope.THREAD})
_CONTINUED = frozenset({KeyScope.THREAD, KeyScope.RUN})


class AgentRuntime:
    """Runs agents resolved by ``resolver``; persists through ``thread_run_store`` if set.

    Implements :class:`awaken_contract.runtime.AgentRuntimeApi`, the server's view of it.
    """

    def __init__(
        self,
        resolver: AgentResolver,
        *,
        registries: RegistrySet | None = None,
        thread_run_store: ThreadRunStore | None = None,
        profile_store: ProfileStore | None = None,
    ) -> None:
        self.resolver = resolver
        self.registries = registries
        self.thread_run_store = thread_run_store
        self.profile_store = profile_store
        self.active_runs = ActiveRunRegistry()

    # ------------------------------------------------------------------ running
    async def run(
        self,
        request: RunRequest,
        sink: EventSink | None = None,
        *,
        wait_for_decisions: bool = True,
        user_id: str | None = None,
    ) -> AgentRunResult:
        """Run ``request`` to its end, sending every event to ``sink``; ``user_id`` (or
        ``request.user_id``) is the user the run acts for — a resumed run keeps its own.

        When a tool call suspends, the run emits ``run_finish(suspended)`` and — with
        ``wait_for_decisions`` (default) — waits for decisions sent through
        :meth:`send_decisions` (or cancellation). With ``wait_for_decisions=False`` it
        returns at once with termination ``suspended``; resume later with a new request that
        carries decisions (possibly from another process sharing the store).
        """
        store = self.thread_run_store
        if user_id is not None:
            request.user_id = user_id
        plan = request.plan
        agent_id = (plan.agent_id if plan is not None else request.agent_id) or (
            await self._infer_agent_id(request.thread_id)
        )
        try:
            agent = self.resolver.resolve_for_run(agent_id)
        except ResolveError as exc:
            raise ResolveFailed(str(exc)) from exc
        unrecorded: tuple[RunRecord | None] | None = None
        if plan is None:
            plan, unrecorded = await self._plan(request, agent_id)
        run_id, continuation = plan.run_id, plan.resumes
        previous = (
            await self._planned_run(plan)
            if store is not None or plan.resumes or plan.record is not None
            else None  # nothing to check
        )
        user_id = self._user_of(request, previous)
        handle = RunHandle(request.thread_id, run_id, request.dispatch_id)
        self.active_runs.register(handle)
        try:
            phase = new_run_state(agent)
            state = phase.store
            history: list[Message] = []
            if store is not None and not (plan.new_thread and previous is None):
                # (a new thread has nothing stored: no latest run, no messages)
                if previous is not None:
                    latest: RunRecord | None = previous
                elif unrecorded is not None:  # (what _latest_run reads for a thread without
                    latest = unrecorded[0]  # a record: planning just read it)
                else:
                    latest = await self._latest_run(request)
                if latest is not None and latest.state is not None:
                    # an unfinished run continued (crashed, or parked and resumed) picks up its
                    # own Run-scoped state too; a new or a finished run starts from the thread's
                    unfinished = previous is not None and previous.status is not RunStatus.DONE
                    scopes = _CONTINUED if continuation and unfinished else _NEW_RUN
                    state.restore_scoped(latest.state, scopes, UnknownKeyPolicy.SKIP)
                history = await store.load_messages(request.thread_id) or []
            scoped: ScopedStateSync | None = None
            if self.profile_store is not None:
                scoped = ScopedStateSync(
                    ScopedStateEntries(self.profile_store, agent_id, user_id), state
                )
                await scoped.load()
            if history:
                history = self._clean_history(state, history, request)
            if not request.messages_already_persisted:
                history.extend(_not_yet_in(history, request.messages))
            identity = RunIdentity(
                thread_id=request.thread_id,
                run_id=run_id,
                agent_id=agent_id,
                origin=_ORIGINS.get(request.origin, _USER_ORIGIN),
                parent_thread_id=request.parent_thread_id,
                parent_run_id=request.parent_run_id,
                dispatch_id=request.dispatch_id,
                session_id=request.session_id,
                transport_request_id=request.transport_request_id,
                run_mode=request.run_mode,
                adapter=request.adapter,
                trace_parent=request.trace_parent,
                user_id=user_id,
            )
            params = AgentLoopParams(
                resolver=self.resolver,
                agent_id=agent_id,
                runtime=phase,
                sink=sink if sink is not None else _NULL_SINK,
                checkpoint_store=store,
                messages=history,
                run_identity=identity,
                cancellation_token=handle.token,
                canceller=handle,
                decision_rx=handle.control,
                is_continuation=continuation,
                input_message_count=len(history),
                previous_run=previous,
                request_snapshot=self._snapshot(request, len(history)) if store else None,
                resolved=agent,
                wait_for_decisions=wait_for_decisions,
                profile_store=self.profile_store,
                scoped_state=scoped,
                request=request,
                new_run=plan.new_run,
            )
            return await run_agent_loop(params)
        finally:
            self.active_runs.unregister(handle)

    async def stream(
        self, request: RunRequest, *, wait_for_decisions: bool = False
    ) -> AsyncIterator[AgentEvent]:
        """Run ``request`` and yield its events; leaving the iteration early cancels the run.

        By default the stream ends at a suspension (the run stays resumable).
        """
        sink = ChannelEventSink()

        async def drive() -> AgentRunResult:
            try:
                return await self.run(request, sink, wait_for_decisions=wait_for_decisions)
            finally:
                await sink.close()

        task = asyncio.ensure_future(drive())
        finished = False
        try:
            async for event in sink:
                yield event
            finished = True
            await task
        finally:
            if not finished and not task.done():
                handle = self.active_runs.by_thread(request.thread_id)
                if handle is not None:
                    handle.cancel()
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await task

    async def run_to_completion(
        self,
        request: RunRequest,
        sink: EventSink | None = None,
        *,
        decide: Decider | None = None,
    ) -> AgentRunResult:
        """Run ``request`` answering every suspension inline; see :func:`run_to_completion`."""
        return await run_to_completion(self, request, sink, decide=decide)

    # ------------------------------------------------------------------ control plane
    @staticmethod
    def _cancel(handle: RunHandle | None) -> bool:
        if handle is None:
            return False
        handle.cancel()
        return True

    def cancel(self, id_: str) -> bool:
        """Cancel the live run with this run id or thread id."""
        return self._cancel(self.active_runs.lookup(id_))

    def cancel_by_thread(self, thread_id: str) -> bool:
        """Cancel the live run of a thread."""
        return self._cancel(self.active_runs.by_thread(thread_id))

    def cancel_by_run_id(self, run_id: str) -> bool:
        """Cancel a live run by id."""
        return self._cancel(self.active_runs.by_run(run_id))

    async def cancel_and_wait_by_thread(self, thread_id: str, wait_secs: float = 5.0) -> bool:
        """Cancel the thread's live run and wait (≤ ``wait_secs`` s) until it is released."""
        handle = self.active_runs.by_thread(thread_id)
        if handle is None:
            return False
        if handle.released is None:
            handle.released = asyncio.Event()
        handle.cancel()
        try:
            async with asyncio.timeout(wait_secs):
                await handle.released.wait()
        except TimeoutError:
            return False
        return True

    def send_decisions(self, id_: str, decisions: DecisionBatch) -> bool:
        """Deliver decisions (``(call id or suspension id, decision)``) to a live run."""
        handle = self.active_runs.lookup(id_)
        if handle is None or not decisions:
            return False
        handle.send(decisions_message(decisions))
        return True

    def send_decision(self, id_: str, call_id: str, resume: ToolCallResume) -> bool:
        """Deliver one decision to a live run (by run id or thread id)."""
        return self.send_decisions(id_, [(call_id, resume)])

    def send_messages(self, id_: str, messages: Sequence[Message]) -> bool:
        """Deliver messages to a live run; they join the conversation at the next boundary."""
        handle = self.active_runs.lookup(id_)
        if handle is None or not messages:
            return False
        handle.send(inbox_message(list(messages)))
        return True

    def active_run_id(self, thread_id: str) -> str | None:
        """The id of the thread's live run."""
        handle = self.active_runs.by_thread(thread_id)
        return handle.run_id if handle is not None else None

    def resolve(self, agent_id: str) -> ResolvedAgent:
        """Resolve an agent (raises ``ResolveError``)."""
        return self.resolver.resolve(agent_id)

    def agents(self) -> Mapping[str, AgentSpec]:
        """The registered agent specs by id (empty without registries)."""
        if self.registries is None:
            return {}
        return dict(self.registries.agents.items())

    def can_resolve(self, agent_id: str) -> bool:
        """True when ``agent_id`` resolves to a runnable agent."""
        try:
            self.resolver.resolve(agent_id)
        except AwakenError:
            return False
        return True

    # ------------------------------------------------------------------ preparation
    async def _latest_run(self, request: RunRequest) -> RunRecord | None:
        store = self.thread_run_store
        if store is None:
            return None
        thread = await store.load_thread(request.thread_id)
        if thread is not None and thread.latest_run_id:
            record = await store.load_run(thread.latest_run_id)
            if record is not None:
                return record
        return await store.latest_run(request.thread_id)

    async def _infer_agent_id(self, thread_id: str) -> str:
        store = self.thread_run_store
        if store is not None:
            latest = await self._latest_run(RunRequest(thread_id))
            if latest is not None:
                state = latest.state
                active = state.extensions.get(_ACTIVE_AGENT_KEY) if state is not None else None
                registered = self.registries is None or (
                    isinstance(active, str) and active.strip() in self.registries.agents
                )
                if isinstance(active, str) and active.strip() and registered:
                    return active.strip()
                # a handoff overlay is not a registered agent: start from the run's base
                # agent, whose handoff plugin switches to the overlay before the first step
                if latest.agent_id:
                    return latest.agent_id
        registries = self.registries
        if registries is not None and "default" not in registries.agents:
            ids = registries.agents.ids()
            local = [i for i in ids if (spec := registries.agents.get(i)) and not spec.endpoint]
            if len(local) == 1:
                return local[0]  # the only runnable agent
        return "default"

    async def _plan(
        self, request: RunRequest, agent_id: str
    ) -> tuple[RunPlan, tuple[RunRecord | None] | None]:
        """The run a request without a plan executes, by the spec's rules: the run it
        continues, its hinted run id, the thread's waiting run, else a new run. With it, for
        a thread the store has no record of, the thread's latest run as read to plan (what
        :meth:`_latest_run` would read again)."""
        store = self.thread_run_store
        if request.continue_run_id:
            return RunPlan(agent_id=agent_id, run_id=request.continue_run_id, resumes=True), None
        hint = (request.run_id_hint or "").strip()
        if hint:
            return RunPlan(agent_id=agent_id, run_id=hint), None
        if request.dispatch_id_hint:
            dispatch = request.dispatch_id_hint
            if store is not None and await store.load_run(dispatch) is not None:
                raise InvalidResume(f"dispatch_id_hint '{dispatch}' already exists as a run")
            return RunPlan(agent_id=agent_id, run_id=dispatch), None
        unrecorded: tuple[RunRecord | None] | None = None
        if store is not None:
            thread = await store.load_thread(request.thread_id)
            if thread is None:
                latest = await store.latest_run(request.thread_id)
                unrecorded = (latest,)
                waiting = await find_waiting_run(store, request.thread_id, latest, thread=None)
            else:
                waiting = await find_waiting_run(store, request.thread_id, thread=thread)
            if waiting is not None:
                return RunPlan.resume(waiting, agent_id), unrecorded
        return RunPlan(agent_id=agent_id, run_id=new_id(), new_run=True), unrecorded

    async def _planned_run(self, plan: RunPlan) -> RunRecord | None:
        """Check a submitted plan against the store; the record it resumes."""
        store = self.thread_run_store
        record = plan.record
        if not plan.record_read and not plan.new_run and store is not None:
            record = await store.load_run(plan.run_id)
        if plan.resumes:
            if store is None:
                raise InvalidResume(f"continue_run_id '{plan.run_id}' requires run storage")
            if record is None:
                raise InvalidResume(
                    f"continue_run_id '{plan.run_id}' does not reference an existing run"
                )
            return record
        if record is not None and record.status.value != "created":
            raise InvalidResume(f"run_id_hint '{plan.run_id}' already exists as a run")
        return None

    @staticmethod
    def _user_of(request: RunRequest, previous: RunRecord | None) -> str | None:
        """The run's user: a resumed run keeps the one it started with, else the request's
        (checked by the id rule)."""
        if previous is not None and previous.user_id is not None:
            return previous.user_id
        return None if request.user_id is None else check_id(request.user_id, "user id")

    @staticmethod
    def _clean_history(
        state: StateStore, history: list[Message], request: RunRequest
    ) -> list[Message]:
        if not history:
            return history
        if not request.decisions and has_visible_user_message(request.messages):
            calls = state.snapshot().get(ToolCallStatesKey)
            if calls is not None:
                suspended = {
                    c.call_id for c in calls.calls.values() if c.status is ToolCallStatus.SUSPENDED
                }
                if suspended:
                    history = supersede_suspended_calls(history, suspended)
                    state.commit(MutationBatch().update(ToolCallStatesKey, ClearToolCallStates()))
        return strip_unpaired_tool_calls(history)

    @staticmethod
    def _snapshot(request: RunRequest, total: int) -> RunRequestSnapshot:
        return RunRequestSnapshot(
            origin=StoredOrigin(request.origin.value),
            input_message_ids=[m.id for m in request.messages if m.id],
            input_message_count=len(request.messages),
            decisions=[RunDecision(call_id=c, resume=r) for c, r in request.decisions],
            frontend_tools=list(request.frontend_tools),
            parent_thread_id=request.parent_thread_id,
            transport_request_id=request.transport_request_id,
        )


def _not_yet_in(history: list[Message], messages: list[Message]) -> list[Message]:
    """``messages`` minus those already in ``history`` (by id): the input an earlier attempt
    of the same job wrote is not appended twice."""
    if not history:
        return messages
    ids = {m.id for m in messages if m.id is not None}
    if not ids:
        return messages
    present = {m.id for m in history if m.id in ids}
    return [m for m in messages if m.id is None or m.id not in present] if present else messages
