"""``replay_run``: re-run a finished run's loop against its journal and compare the events.

Each attempt of the run (see :mod:`~awaken_runtime.replay.timeline`) is rebuilt from its
``AttemptRecord`` — the thread's first ``message_count`` messages, the recorded state,
decisions, frontend tools and overrides, the identity of its ``run_start`` — and driven through
the real loop (:func:`run_agent_loop`) with the model, the tools and the control channel
answered from the journal (:mod:`~awaken_runtime.replay.recorded`). Nothing is written: the
replayed loop has no checkpoint store and no profile store, and no tool runs. The produced
events are compared with the journaled ones after :mod:`~awaken_runtime.replay.normalise`.
"""

from __future__ import annotations

from awaken_contract.contract.event import AgentEvent, RunFinish, RunStart
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.journal import RunJournal
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import RunRecord, ThreadRunStore
from awaken_contract.registry_spec import InferenceOverride
from awaken_contract.state import UnknownKeyPolicy

from awaken_runtime.loop_runner.loop import run_agent_loop
from awaken_runtime.loop_runner.params import AgentLoopParams
from awaken_runtime.loop_runner.run_state import new_run_state
from awaken_runtime.registry.resolved import AgentResolver
from awaken_runtime.replay.errors import JournalUnavailable, RunNotFinished, UnknownRun
from awaken_runtime.replay.normalise import EventNormaliser, field_diff
from awaken_runtime.replay.recorded import CancelPlan, RecordedResolver, ReplayState
from awaken_runtime.replay.report import Divergence, ReplayReport, ReplayStatus
from awaken_runtime.replay.timeline import RecordedAttempt, RecordedRun
from awaken_runtime.run_journal import resume_point_of
from awaken_runtime.runtime.agent_runtime import AgentRuntime

__all__ = ["replay_run"]

_UNFINISHED = (RunStatus.CREATED, RunStatus.RUNNING, RunStatus.WAITING)


async def replay_run(
    runtime: AgentRuntime | AgentResolver, store: ThreadRunStore, run_id: str
) -> ReplayReport:
    """Replay finished run ``run_id`` of ``store`` with the agents of ``runtime`` (or a
    resolver): ``identical``, or the first divergence. Raises ``UnknownRun``,
    ``RunNotFinished`` or ``JournalUnavailable``."""
    resolver = runtime.resolver if isinstance(runtime, AgentRuntime) else runtime
    record = await store.load_run(run_id)
    if record is None:
        raise UnknownRun(run_id)
    if record.status in _UNFINISHED:
        raise RunNotFinished(run_id, record.status.value)
    if not isinstance(store, RunJournal):
        raise JournalUnavailable(run_id, "the store keeps no run journals")
    entries = await store.read(run_id)
    recorded = RecordedRun.parse(run_id, entries)
    history = await store.load_messages(record.thread_id) or []
    divergence = await _replay(recorded, resolver, record, history, None)
    if divergence is not None and _cancelled(recorded):
        # A cancellation that landed between two steps is not timed by the journal: find the
        # token check that noticed it (near where the events start to differ).
        for plan in _cancel_plans(recorded, divergence.index):
            again = RecordedRun.parse(run_id, entries)
            if await _replay(again, resolver, record, history, plan) is None:
                divergence = None
                break
    return ReplayReport(
        run_id=run_id,
        status=ReplayStatus.IDENTICAL if divergence is None else ReplayStatus.DIVERGED,
        events=recorded.event_count,
        attempts=len(recorded.attempts),
        divergence=divergence,
    )


async def _replay(
    recorded: RecordedRun,
    resolver: AgentResolver,
    record: RunRecord,
    history: list[Message],
    cancel: CancelPlan | None,
) -> Divergence | None:
    """Replay every attempt (``cancel``: where to cancel); the first divergence, if any."""
    state = ReplayState(recorded, cancel)
    replayed: list[AgentEvent] = []
    expected: list[tuple[int, AgentEvent]] = []
    for number, attempt in enumerate(recorded.attempts):
        await _replay_attempt(state, resolver, record, number, history)
        events = state.sink.events
        replayed.extend(events[: state.cut[number]] if number in state.cut else events)
        expected.extend((e.seq, attempt.event(i)) for i, e in enumerate(attempt.events))
    return _compare(expected, replayed, state)


_PLAN_DEPTH = 6
"""Event positions (back from the divergence), and token checks, tried for a cancellation."""


def _cancelled(recorded: RecordedRun) -> bool:
    """Some attempt of the run finished cancelled."""
    return any(
        isinstance(event, RunFinish) and event.termination.type is TerminationKind.CANCELLED
        for attempt in recorded.attempts
        for event in map(attempt.event, range(len(attempt.events)))
    )


def _cancel_plans(recorded: RecordedRun, index: int) -> list[CancelPlan]:
    """Where a cancellation noticed before event ``index`` of the run may have landed."""
    plans: list[CancelPlan] = []
    for position in range(index, max(index - _PLAN_DEPTH, 0) - 1, -1):
        offset = 0
        for number, attempt in enumerate(recorded.attempts):
            if position <= offset + len(attempt.events):
                plans.extend(
                    CancelPlan(number, position - offset, skip) for skip in range(_PLAN_DEPTH)
                )
                break
            offset += len(attempt.events)
    return plans


def _identity(record: RunRecord, attempt: RecordedAttempt) -> RunIdentity:
    """The identity the attempt ran under (its ``run_start``), else one from the record."""
    for index in range(len(attempt.events)):
        event = attempt.event(index)
        if isinstance(event, RunStart) and event.identity is not None:
            return event.identity
    return RunIdentity(thread_id=record.thread_id, run_id=record.run_id, agent_id=record.agent_id)


async def _replay_attempt(
    state: ReplayState,
    resolver: AgentResolver,
    record: RunRecord,
    number: int,
    history: list[Message],
) -> None:
    """Drive attempt ``number`` through the real loop, answered from the journal."""
    attempt = state.run.attempts[number]
    start = attempt.start
    identity = _identity(record, attempt)
    recorded = RecordedResolver(state, resolver)
    agent = recorded.resolve(identity.agent_id)
    phase = new_run_state(agent)
    if start.state is not None:
        phase.store.restore(start.state, UnknownKeyPolicy.SKIP)
    state.begin(number, phase.store)
    overrides = (
        InferenceOverride.model_validate(start.overrides) if start.overrides is not None else None
    )
    messages = list(history[: start.message_count])
    resume = None
    if number > 0 and state.run.attempts[number - 1].interrupted:
        # as the original attempt did: pick up the step the cut-off attempt left uncommitted
        resume = resume_point_of(state.run.before(attempt), messages)
    params = AgentLoopParams(
        resolver=recorded,
        agent_id=identity.agent_id,
        runtime=phase,
        sink=state.sink,
        checkpoint_store=None,
        messages=messages,
        run_identity=identity,
        cancellation_token=state.token,
        decision_rx=state.channel,
        overrides=overrides,
        frontend_tools=list(start.frontend_tools),
        decisions=[(d.call_id, d.resume) for d in start.decisions],
        is_continuation=start.is_continuation,
        input_message_count=start.message_count,
        resolved=agent,
        wait_for_decisions=True,
        resume=resume,
    )
    await run_agent_loop(params)


def _compare(
    expected: list[tuple[int, AgentEvent]], replayed: list[AgentEvent], state: ReplayState
) -> Divergence | None:
    """The first difference between the journaled and the replayed events (normalised), or
    the divergence the journal could not answer when it came first."""
    left, right = EventNormaliser(), EventNormaliser()
    want = [left.normalise(event) for _, event in expected]
    got = [right.normalise(event) for event in replayed]
    first: int | None = None
    for index in range(max(len(want), len(got))):
        if index >= len(want) or index >= len(got) or want[index] != got[index]:
            first = index
            break
    noted = state.divergence
    if noted is not None and (first is None or noted[0] <= first):
        index, seq, reason = noted
        if seq is None and index < len(expected):
            seq = expected[index][0]
        return Divergence(
            index=index,
            reason=reason,
            seq=seq,
            expected=want[index] if index < len(want) else None,
            actual=got[index] if index < len(got) else None,
        )
    if first is None:
        return None
    exp = want[first] if first < len(want) else None
    act = got[first] if first < len(got) else None
    if exp is None:
        reason = "the replay emitted an event the journal does not have"
    elif act is None:
        reason = "the replay ended before this journaled event"
    else:
        reason = f"{exp.get('event_type')} event differs"
    return Divergence(
        index=first,
        reason=reason,
        seq=expected[first][0] if first < len(expected) else None,
        expected=exp,
        actual=act,
        diff=field_diff(exp, act) if exp is not None and act is not None else [],
    )
