"""Recording a run into its journal, and what an interrupted attempt left there to resume from.

:class:`StepJournal` buffers the step's records (every event, each inference's request digest
and result) and hands them to the step checkpoint, which writes them in the same transaction.
Tool lifecycle records are made durable at once: ``tool_started`` *before* the tool runs (a
crash mid-call must be visible after restart) and ``tool_finished`` right after it returns (a
finished call is never run again). The loop is the run's only writer while it holds the
mailbox claim, so it fences every write with ``expected_last_seq``: a zombie attempt whose
claim was taken over fails with ``VersionConflict`` instead of interleaving.

:class:`ResumePoint` is read at the start of a continued attempt: the last recorded inference
whose tool calls never reached a committed checkpoint (the interrupted step), and the tool
records of those calls. See docs/durability.md and ADR 0017.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from awaken_contract.contract.checkpoint_writer import CheckpointWriter, StepCheckpoint
from awaken_contract.contract.event import AgentEvent
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.journal import (
    DIGEST_VERSION,
    AttemptRecord,
    ControlInput,
    EventRecord,
    InferenceRecord,
    InputRecord,
    JournaledThreadRunStore,
    JournalEntry,
    JournalKind,
    JournalRecord,
    ToolFinishedRecord,
    ToolStartedRecord,
    request_digest,
)
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.run_record import RunRecord
from awaken_contract.contract.suspension import PendingToolCall, SuspendTicket, Suspension
from awaken_contract.contract.tool import ToolOutput, ToolResult
from awaken_contract.errors import LoopStorageFailed, StorageError
from awaken_contract.model import Phase
from awaken_contract.state import StateCommand

from awaken_runtime.plugins.registrar import TaggedPhaseHook
from awaken_runtime.state.command_codec import decode_command, encode_command
from awaken_runtime.state.scoped import ScopedStateSync
from awaken_runtime.state.store import StateStore

__all__ = [
    "INTERRUPTED_TOOL_CALL",
    "JournalingSink",
    "RecordedTool",
    "ResumePoint",
    "StepJournal",
    "ToolJournal",
    "finish_can_ride",
    "interrupted_ticket",
    "load_resume_point",
    "resume_point_of",
]

INTERRUPTED_TOOL_CALL = "interrupted_tool_call"
"""Suspension action (and waiting reason) of a non-idempotent call cut off by a crash."""

_RESUME_KINDS = (JournalKind.INFERENCE, JournalKind.TOOL_STARTED, JournalKind.TOOL_FINISHED)

#: A result answered from the journal: the recorded result and the state command to re-apply.
RecordedTool = tuple[ToolResult, StateCommand | None]


class StepJournal:
    """The run's journal writer: a buffer flushed by the step checkpoint (or a tool record)."""

    __slots__ = ("_buffer", "_held", "holding", "last_seq", "run_id", "sink", "store")

    def __init__(
        self,
        store: JournaledThreadRunStore,
        run_id: str,
        last_seq: int,
        sink: EventSink | None = None,
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.last_seq = last_seq
        self.sink = sink
        self._buffer: list[JournalRecord] = []
        self.holding = False
        """A ``tool_finished`` waits in the buffer for the step checkpoint: live events (and
        seq skips) are held until it committed (:meth:`release`)."""
        self._held: list[AgentEvent | int] = []

    def _record(self, record: JournalRecord) -> None:
        """Buffer a record that is not an event (its seq is skipped by seq-numbering sinks)."""
        self._buffer.append(record)
        if self.sink is not None:
            if self.holding:
                self._held.append(1)
            else:
                self.sink.skip_seq(1)

    def hold(self, event: AgentEvent) -> None:
        """Keep a live event until the buffered ``tool_finished`` committed."""
        self._held.append(event)

    async def release(self) -> None:
        """Send the held events (and seq skips) in order, once the buffer committed (or its
        commit failed)."""
        held, self._held, self.holding = self._held, [], False
        if self.sink is None:
            return
        for item in held:
            if isinstance(item, int):
                self.sink.skip_seq(item)
            else:
                await self.sink.emit(item)

    def record_event(self, event: AgentEvent) -> None:
        """Buffer an event (written with the next flush or checkpoint)."""
        self._buffer.append(EventRecord(event))  # type: ignore[arg-type]  # (no cast call)

    def record_inference(
        self, step_index: int, request: InferenceRequest, result: StreamResult
    ) -> None:
        """Buffer an inference's request digest and result."""
        self._record(
            InferenceRecord(
                step_index=step_index,
                request_digest=request_digest(request),
                result=result,
                digest_version=DIGEST_VERSION,
            )
        )

    def record_attempt(self, attempt: AttemptRecord, *, skip_seq: bool = True) -> None:
        """Buffer what this attempt of the loop starts from (committed with its first
        checkpoint); deterministic replay rebuilds the attempt from it. ``skip_seq=False``:
        the caller skips its seq on the sink itself (after sending the ``run_start`` that
        precedes it)."""
        if skip_seq:
            self._record(attempt)
        else:
            self._buffer.append(attempt)

    def record_inputs(self, entries: Sequence[ControlInput]) -> None:
        """Buffer the control-channel entries the run took in one read."""
        if entries:
            self._record(InputRecord(entries=list(entries)))

    async def tools_started(self, calls: Sequence[tuple[ToolCall, bool]], step_index: int) -> None:
        """Durably record that the calls (with their idempotency) are about to execute —
        before any side effect."""
        for call, idempotent in calls:
            self._record(
                ToolStartedRecord(
                    call_id=call.id,
                    tool_name=call.name,
                    arguments=call.arguments,
                    step_index=step_index,
                    idempotent=idempotent,
                )
            )
        await self.flush()

    async def tools_finished(
        self, results: Sequence[tuple[ToolCall, ToolOutput]], *, with_checkpoint: bool = False
    ) -> None:
        """Record the results of executed calls, with the state commands they returned (a
        recorded result re-applies them), durably at once — or, ``with_checkpoint``, in the
        step checkpoint that follows with nothing in between that can wait (ADR 0028)."""
        self.holding = self.holding or with_checkpoint
        for call, output in results:
            self._record(
                ToolFinishedRecord(
                    call_id=call.id,
                    tool_name=call.name,
                    result=output.result,
                    command=encode_command(output.command),
                )
            )
        if not with_checkpoint:
            await self.flush()

    def take(self) -> list[JournalRecord]:
        """The buffered records, handed to a checkpoint (which commits them)."""
        records, self._buffer = self._buffer, []
        return records

    async def flush_held(self) -> None:
        """Commit a ``tool_finished`` held for the step checkpoint now (the step does not go
        straight to it)."""
        if self.holding:
            await self.flush()

    async def checkpoint(
        self,
        thread_id: str,
        messages: list[Message],
        run: RunRecord,
        writer: CheckpointWriter | None,
        *,
        first: bool = False,
        termination: TerminationReason | None = None,
        response: str = "",
    ) -> None:
        """Commit the buffered records with a checkpoint of ``messages`` and ``run`` (through
        the run's ``writer`` when it has one, as a :class:`StepCheckpoint`; else straight to
        ``checkpoint_step``); events held for it are sent afterwards, whatever the outcome."""
        records = self.take()
        try:
            if writer is None:
                entries = await self.store.checkpoint_step(
                    thread_id, messages, run, records, expected_last_seq=self.last_seq
                )
            else:
                step = StepCheckpoint(
                    thread_id,
                    messages,
                    run,
                    records,
                    self.last_seq,
                    first=first,
                    termination=termination,
                    response=response,
                )
                entries = await writer.write(self.store, step)
        finally:
            if self.holding:
                await self.release()
        self.last_seq += len(entries)

    async def flush(self) -> None:
        """Append the buffered records now (fenced by the last seq this writer knows)."""
        records = self._buffer
        if not records:
            return
        self._buffer = []
        try:
            entries = await self.store.append(self.run_id, records, expected_last_seq=self.last_seq)
        except StorageError as exc:
            raise LoopStorageFailed(str(exc)) from exc
        finally:
            if self.holding:
                await self.release()
        self.last_seq += len(entries)


class JournalingSink(EventSink):
    """Forwards events to the run's sink and records them in its :class:`StepJournal`."""

    def __init__(self, inner: EventSink, journal: StepJournal) -> None:
        self.inner = inner
        self.journal = journal
        # As the wrapped sink: nobody reads a snapshot the run's own consumer does not want.
        self.wants_state_snapshots = inner.wants_state_snapshots
        self._forwards = inner.wants_events
        """False: the run's own sink drops every event (only the journal records them)."""

    async def emit(self, event: AgentEvent) -> None:
        journal = self.journal
        journal._buffer.append(EventRecord(event))  # type: ignore[arg-type]  # (record_event)
        if journal.holding:
            journal.hold(event)
        elif self._forwards:
            await self.inner.emit(event)

    async def close(self) -> None:
        await self.inner.close()


class ResumePoint:
    """What the interrupted attempt of a run left: its unfinished step's inference and calls."""

    __slots__ = ("finished", "inference", "started")

    def __init__(
        self,
        inference: StreamResult | None = None,
        started: dict[str, ToolStartedRecord] | None = None,
        finished: dict[str, ToolFinishedRecord] | None = None,
    ) -> None:
        self.inference = inference
        self.started = started or {}
        self.finished = finished or {}

    def take_inference(self) -> StreamResult | None:
        """The recorded answer of the interrupted step (once; ``None`` afterwards)."""
        result, self.inference = self.inference, None
        return result

    def interrupted(self, call_id: str) -> bool:
        """The call started in the interrupted attempt but its result was never recorded."""
        return call_id in self.started and call_id not in self.finished


class ToolJournal:
    """The tool pipeline's view of the journal: record executions, answer resumed calls."""

    __slots__ = ("_finish_rides", "_step_index", "journal", "resume", "store")

    def __init__(
        self,
        journal: StepJournal | None,
        resume: ResumePoint | None,
        step_index: Callable[[], int],
        store: StateStore,
        finish_rides: bool = False,
    ) -> None:
        self.journal = journal
        self.resume = resume
        self._step_index = step_index
        self.store = store
        self._finish_rides = finish_rides
        """The agent's hooks let a step's last ``tool_finished`` ride the step checkpoint."""

    def recorded(self, call_id: str) -> RecordedTool | None:
        """The result an earlier attempt recorded for ``call_id`` (never execute it again)
        and the state command it re-applies."""
        record = None if self.resume is None else self.resume.finished.get(call_id)
        if record is None:
            return None
        return record.result, decode_command(record.command, self.store)

    def interrupted(self, call_id: str) -> bool:
        """``call_id`` was executing when the earlier attempt died."""
        return self.resume is not None and self.resume.interrupted(call_id)

    async def started(self, calls: Sequence[tuple[ToolCall, bool]]) -> None:
        """Durable ``tool_started`` records, before execution."""
        if calls and self.journal is not None:
            await self.journal.tools_started(calls, self._step_index())

    async def finished(
        self, results: Sequence[tuple[ToolCall, ToolOutput]], *, last_of_step: bool = False
    ) -> None:
        """Durable ``tool_finished`` records, right after execution: on their own, or — the
        step's last call, when nothing between it and the step checkpoint can wait (no hook,
        action or effect to run, no Shared/Profile key to save) — in that checkpoint."""
        if results and self.journal is not None:
            rides = (
                last_of_step and len(results) == 1 and self._finish_rides and _plain(results[0][1])
            )
            await self.journal.tools_finished(results, with_checkpoint=rides)


def finish_can_ride(
    phase_hooks: Mapping[Phase, Sequence[TaggedPhaseHook]], scoped: ScopedStateSync | None
) -> bool:
    """A step's last ``tool_finished`` may ride the step checkpoint: every after-tool and
    step-end hook in between never suspends and no Shared/Profile key is saved first."""
    return all(
        not tagged.hook.waits
        for phase in (Phase.AFTER_TOOL_EXECUTE, Phase.STEP_END)
        for tagged in phase_hooks.get(phase) or ()
    ) and (scoped is None or not scoped.has_keys)


def _plain(output: ToolOutput) -> bool:
    """Completing ``output`` runs nothing that can wait (no suspension, action or effect)."""
    command = output.command
    return output.result.suspension is None and (
        command is None or (not command.scheduled_actions and not command.effects)
    )


def interrupted_ticket(call: ToolCall) -> SuspendTicket:
    """The ticket a human resolves for a non-idempotent call cut off by a crash: ``resume``
    re-executes it, ``cancel`` tells the model it was interrupted."""
    return SuspendTicket(
        suspension=Suspension(
            id=f"interrupted-{call.id}",
            action=INTERRUPTED_TOOL_CALL,
            message=(
                f"Tool '{call.name}' was running when the server stopped; its outcome is "
                "unknown. Resume to run it again, or cancel to tell the model."
            ),
        ),
        pending=PendingToolCall(id=call.id, name=call.name, arguments=call.arguments),
    )


async def load_resume_point(
    store: JournaledThreadRunStore, run_id: str, messages: list[Message]
) -> ResumePoint:
    """Read the journal of ``run_id`` for the step an earlier attempt did not commit (see
    :func:`resume_point_of`)."""
    return resume_point_of(await store.read(run_id, kinds=_RESUME_KINDS), messages)


def resume_point_of(entries: Sequence[JournalEntry], messages: list[Message]) -> ResumePoint:
    """The step an earlier attempt did not commit, from the journal ``entries`` so far.

    The interrupted step is the last recorded inference with tool calls none of which is in
    the committed history ``messages``; its ``tool_started`` / ``tool_finished`` records tell
    which calls ran (text-only answers are simply inferred again: they have no side effects).
    """
    last: InferenceRecord | None = None
    for entry in entries:
        if isinstance(entry.record, InferenceRecord):
            last = entry.record
    if last is None or not last.result.tool_calls:
        return ResumePoint()
    ids = {c.id for c in last.result.tool_calls}
    committed = {c.id for m in messages for c in (m.tool_calls or ())}
    committed |= {m.tool_call_id for m in messages if m.tool_call_id}
    if ids & committed:
        return ResumePoint()
    point = ResumePoint(inference=last.result)
    for entry in entries:
        record = entry.record
        if isinstance(record, ToolStartedRecord) and record.call_id in ids:
            point.started[record.call_id] = record
        elif isinstance(record, ToolFinishedRecord) and record.call_id in ids:
            point.finished[record.call_id] = record
    return point
