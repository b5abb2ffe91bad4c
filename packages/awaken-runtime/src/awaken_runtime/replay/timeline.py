"""A finished run's journal split into the loop attempts that produced it.

Each :class:`AttemptRecord` opens an attempt — it is journaled right after the attempt's first
``run_start`` (so a run's first event keeps seq 1), which therefore belongs to it; the
attempt's events follow in order, and every other record is placed at its *position*: the number of the attempt's events journaled before
it. Replay uses positions to serve a recorded inference when the replayed loop asks for one
(its streamed deltas are the events between that point and the record), to feed control
inputs at the moment the original loop took them, and to re-emit what a tool emitted while it
ran (the events between its ``tool_started`` and ``tool_finished`` records).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from awaken_contract.contract.event import AgentEvent, RunFinish, is_final_finish
from awaken_contract.contract.journal import (
    AttemptRecord,
    EventRecord,
    InferenceRecord,
    InputRecord,
    JournalEntry,
    ToolFinishedRecord,
    ToolStartedRecord,
)

from awaken_runtime.replay.errors import JournalUnavailable, RunNotReplayable

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
    """A finished tool call and the events its tool emitted while running."""

    seq: int
    record: ToolFinishedRecord
    emitted: list[AgentEvent]


@dataclass(slots=True)
class RecordedAttempt:
    """One invocation of the run's loop, as journaled."""

    seq: int
    start: AttemptRecord
    events: list[JournalEntry] = field(default_factory=list)
    inferences: list[RecordedInference] = field(default_factory=list)
    inputs: dict[int, list[InputRecord]] = field(default_factory=dict)

    def event(self, index: int) -> AgentEvent:
        """The attempt's ``index``-th event."""
        record = self.events[index].record
        assert isinstance(record, EventRecord)
        return record.event

    def next_inference(self, position: int) -> RecordedInference | None:
        """The first unused inference journaled at or after ``position``."""
        for inference in self.inferences:
            if not inference.used and inference.position >= position:
                return inference
        return None


@dataclass(slots=True)
class RecordedRun:
    """A run's attempts and its finished tool calls (by call id)."""

    run_id: str
    attempts: list[RecordedAttempt]
    tools: dict[str, RecordedTool]

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
        tools: dict[str, RecordedTool] = {}
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
                attempt.events.append(entry)
            elif isinstance(record, InferenceRecord):
                attempt.inferences.append(RecordedInference(position, entry.seq, record))
            elif isinstance(record, InputRecord):
                attempt.inputs.setdefault(position, []).append(record)
            elif isinstance(record, ToolStartedRecord):
                started[record.call_id] = position
            else:
                begin = max(started.get(record.call_id, position), last_finished)
                emitted = [attempt.event(i) for i in range(begin, position)]
                tools[record.call_id] = RecordedTool(entry.seq, record, emitted)
                last_finished = position
        _check_ends(run_id, attempts)
        return cls(run_id, attempts, tools)


def _check_ends(run_id: str, attempts: list[RecordedAttempt]) -> None:
    """Every attempt but the last ends with a ``run_finish`` (a crash cuts one off: its
    resumed successor depended on uncommitted progress replay does not re-create); the last
    ends with the run's final ``run_finish``."""
    for number, attempt in enumerate(attempts, start=1):
        last = attempt.event(len(attempt.events) - 1) if attempt.events else None
        if number < len(attempts):
            if not isinstance(last, RunFinish):
                raise RunNotReplayable(
                    run_id,
                    f"attempt {number} was cut off (a crash or restart) and the run resumed "
                    "from its journal; replaying crash-resumed runs is not supported",
                )
        elif last is None or not is_final_finish(last):
            raise JournalUnavailable(run_id, "its journal does not end with the final run_finish")
