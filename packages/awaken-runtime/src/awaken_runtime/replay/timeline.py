"""A finished run's journal split into the loop attempts that produced it.

Each :class:`AttemptRecord` opens an attempt — it is journaled right after the attempt's first
``run_start`` (so a run's first event keeps seq 1), which therefore belongs to it; the
attempt's events follow in order, and every other record is placed at its *position*: the
number of the attempt's events journaled before it. An attempt that does not end with a
``run_finish`` was cut off (a crash); the next one resumed the run.

Replay uses positions to serve a recorded inference when the replayed loop asks for one (its
streamed deltas are the events between that point and the record), to feed control inputs at
the moment the original loop took them, and to re-emit what a tool emitted while it ran (the
events between its ``tool_started`` and ``tool_finished`` records).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from awaken_contract.contract.event import (
    ActivityDelta,
    ActivitySnapshot,
    AgentEvent,
    Error,
    InferenceComplete,
    RunFinish,
    ToolCallStreamDelta,
    is_final_finish,
)
from awaken_contract.contract.journal import (
    AttemptRecord,
    EventRecord,
    InferenceRecord,
    InputRecord,
    JournalEntry,
    ToolFinishedRecord,
    ToolStartedRecord,
)

from awaken_runtime.replay.errors import JournalUnavailable

__all__ = ["RecordedAttempt", "RecordedInference", "RecordedRun", "RecordedTool"]


@dataclass(slots=True)
class RecordedInference:
    """An inference of an attempt: journaled after ``position`` events, at ``seq``."""

    position: int
    seq: int
    record: InferenceRecord
    used: bool = False


@dataclass(slots=True)
class RecordedTool:
    """A finished tool execution and the events its tool emitted while running."""

    seq: int
    record: ToolFinishedRecord
    emitted: list[AgentEvent]
    used: bool = False


@dataclass(slots=True)
class RecordedAttempt:
    """One invocation of the run's loop, as journaled."""

    seq: int
    start: AttemptRecord
    events: list[JournalEntry] = field(default_factory=list)
    inferences: list[RecordedInference] = field(default_factory=list)
    inputs: dict[int, list[InputRecord]] = field(default_factory=dict)
    cancelled_inferences: list[int] = field(default_factory=list)
    """Positions of ``inference_complete`` events without a recorded inference: the run was
    cancelled while streaming (a cancelled inference is not journaled)."""
    started: dict[str, int] = field(default_factory=dict)
    """Tool calls that started in this attempt, each with the position it started at."""
    interrupted: bool = False
    """The attempt was cut off (a crash, a lost lease): a later attempt resumed the run."""

    def event(self, index: int) -> AgentEvent:
        """The attempt's ``index``-th event."""
        record = self.events[index].record
        assert isinstance(record, EventRecord)
        return record.event

    def emitted_until_cancelled(self, call_id: str) -> list[AgentEvent]:
        """What tool call ``call_id`` emitted in this attempt before it was cancelled (it
        started and never finished): the activity and output events of tools that follow its
        start, those of this call."""
        emitted: list[AgentEvent] = []
        for index in range(self.started.get(call_id, len(self.events)), len(self.events)):
            match self.event(index):
                case ActivitySnapshot(message_id=owner) | ActivityDelta(message_id=owner):
                    pass
                case ToolCallStreamDelta(id=owner):
                    pass
                case _:
                    break
            if owner == call_id:
                emitted.append(self.event(index))
        return emitted

    def next_inference(self, position: int) -> RecordedInference | int | None:
        """What answers an inference asked for at ``position``: the first unused recorded
        one, or the position where the original was cancelled mid-stream (whichever is
        first), or ``None``."""
        recorded = next((i for i in self.inferences if not i.used and i.position >= position), None)
        cancelled = next((p for p in self.cancelled_inferences if p >= position), None)
        if cancelled is not None and (recorded is None or cancelled < recorded.position):
            return cancelled
        return recorded

    def failed_inference(self, position: int) -> int | None:
        """The position of the ``error`` an inference asked for at ``position`` ended with
        (the provider failed; a failed inference is not journaled), else ``None``."""
        for index in range(position, len(self.events)):
            event = self.event(index)
            if isinstance(event, InferenceComplete):
                return None
            if isinstance(event, Error) and event.code == "inference_failed":
                return index
        return None


@dataclass(slots=True)
class RecordedRun:
    """A run's attempts and its finished tool executions (by call id, in order: a call that
    suspended itself runs again with the same id once a decision resumes it)."""

    run_id: str
    attempts: list[RecordedAttempt]
    tools: dict[str, list[RecordedTool]]
    entries: list[JournalEntry]

    def before(self, attempt: RecordedAttempt) -> list[JournalEntry]:
        """The journal as it was when ``attempt`` started."""
        first = attempt.events[0].seq if attempt.events else attempt.seq
        return [e for e in self.entries if e.seq < first]

    def take_tool(self, call_id: str) -> RecordedTool | None:
        """The next unused recorded execution of ``call_id``."""
        for recorded in self.tools.get(call_id, ()):
            if not recorded.used:
                recorded.used = True
                return recorded
        return None

    @property
    def event_count(self) -> int:
        """The run's journaled events."""
        return sum(len(a.events) for a in self.attempts)

    @classmethod
    def parse(cls, run_id: str, entries: list[JournalEntry]) -> RecordedRun:
        """Split ``entries`` (the whole journal, in seq order) into attempts; raises
        ``JournalUnavailable`` / ``RunNotReplayable`` for journals replay cannot use."""
        if not entries:
            raise JournalUnavailable(run_id, "its journal is empty (pruned, or never recorded)")
        if len(entries) < 2 or not isinstance(entries[1].record, AttemptRecord):
            raise JournalUnavailable(
                run_id, "it was recorded before attempt records existed (no starting point)"
            )
        attempts: list[RecordedAttempt] = [RecordedAttempt(entries[1].seq, entries[1].record)]
        tools: dict[str, list[RecordedTool]] = {}
        started: dict[str, int] = {}
        last_finished = 0
        for entry in entries[:1] + entries[2:]:
            record = entry.record
            if isinstance(record, AttemptRecord):
                run_start = attempts[-1].events.pop() if attempts[-1].events else None
                attempts.append(RecordedAttempt(entry.seq, record))
                if run_start is not None:
                    attempts[-1].events.append(run_start)
                started.clear()
                last_finished = 0
                continue
            attempt = attempts[-1]
            position = len(attempt.events)
            if isinstance(record, EventRecord):
                if isinstance(record.event, InferenceComplete) and not (
                    attempt.inferences and attempt.inferences[-1].position == position
                ):
                    attempt.cancelled_inferences.append(position)
                attempt.events.append(entry)
            elif isinstance(record, InferenceRecord):
                attempt.inferences.append(RecordedInference(position, entry.seq, record))
            elif isinstance(record, InputRecord):
                attempt.inputs.setdefault(position, []).append(record)
            elif isinstance(record, ToolStartedRecord):
                started[record.call_id] = position
                attempt.started[record.call_id] = position
            else:
                begin = max(started.get(record.call_id, position), last_finished)
                emitted = [attempt.event(i) for i in range(begin, position)]
                tools.setdefault(record.call_id, []).append(
                    RecordedTool(entry.seq, record, emitted)
                )
                last_finished = position
        for attempt in attempts[:-1]:
            last = attempt.event(len(attempt.events) - 1) if attempt.events else None
            attempt.interrupted = not isinstance(last, RunFinish)
        final = attempts[-1]
        last = final.event(len(final.events) - 1) if final.events else None
        if last is None or not is_final_finish(last):
            raise JournalUnavailable(run_id, "its journal does not end with the final run_finish")
        return cls(run_id, attempts, tools, entries)
