"""The durable run journal: an append-only, per-run sequence of entries numbered by ``seq``.

A run's journal records what the run did, in order, so it can be replayed (SSE ``Last-Event-ID``,
deterministic replay) and resumed after a crash:

* ``EventRecord`` — an ``AgentEvent`` the run emitted;
* ``InferenceRecord`` — one inference: the digest of its request and its ``StreamResult``;
* ``ToolStartedRecord`` / ``ToolFinishedRecord`` — the lifecycle of one tool call (a finished
  call also keeps the state command its tool returned, so a recorded result re-applies it);
* ``AttemptRecord`` — an attempt of the run's loop started (what it started from);
* ``InputRecord`` — decisions or messages a live run received through its control channel.

Attempt and input records are what deterministic replay needs to re-run the loop exactly.

The store assigns ``seq`` (1, 2, 3 … per run, no gaps, no duplicates) in the transaction that
writes the entries, so numbers are stable across restarts and store instances. A
``JournaledThreadRunStore`` writes a step's entries in the same transaction as the step
checkpoint (``checkpoint_step``). Readers wait for new entries through ``subscribe`` (LISTEN/NOTIFY
on PostgreSQL, in-process notification elsewhere) or simply ``follow`` a run.
"""

from __future__ import annotations

import enum
import hashlib
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Collection, Sequence
from types import TracebackType
from typing import Any

import msgspec

from awaken_contract.codec import encode_json
from awaken_contract.contract.event import AnyAgentEvent
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.message import Message
from awaken_contract.contract.retention import PruneReport, RetentionPolicy
from awaken_contract.contract.storage import RunDecision, RunRecord, ThreadRunStore
from awaken_contract.contract.tool import ToolDescriptor, ToolResult
from awaken_contract.model import ScheduledAction, TypedEffect
from awaken_contract.state import PersistedState

__all__ = [
    "DEFAULT_FOLLOW_POLL_SECONDS",
    "DIGEST_VERSION",
    "AttemptRecord",
    "ControlInput",
    "EventRecord",
    "InferenceRecord",
    "InputRecord",
    "JournalEntry",
    "JournalKind",
    "JournalRecord",
    "JournalSubscription",
    "JournaledThreadRunStore",
    "RecordedCommand",
    "RecordedOp",
    "RunJournal",
    "ToolFinishedRecord",
    "ToolStartedRecord",
    "kind_of",
    "request_digest",
]

DEFAULT_FOLLOW_POLL_SECONDS = 5.0
"""``RunJournal.follow`` re-reads at least this often even without a notification (a dropped
LISTEN connection or another process writing the same SQLite file is then noticed late, not
never)."""


class JournalKind(enum.StrEnum):
    """What a journal entry records (also the ``kind`` tag of its JSON record)."""

    EVENT = "event"
    INFERENCE = "inference"
    TOOL_STARTED = "tool_started"
    TOOL_FINISHED = "tool_finished"
    ATTEMPT = "attempt"
    INPUT = "input"


DIGEST_VERSION = 2
"""The :func:`request_digest` scheme new ``InferenceRecord``s carry (``digest_version``).
Version 1 (records written before it existed) also hashed message ids and run metadata, which
are fresh in every attempt, so a replay cannot check it."""


class _Record(msgspec.Struct, tag_field="kind", omit_defaults=True):
    """Base of the journal records (JSON tagged by ``"kind"``)."""


class EventRecord(_Record, tag="event"):
    """An ``AgentEvent`` the run emitted; its entry ``seq`` is the event's SSE id."""

    event: AnyAgentEvent


class InferenceRecord(_Record, tag="inference"):
    """One inference of step ``step_index``: the request digest and the collected result.

    Resume and replay use the recorded ``result`` instead of calling the model again; a replay
    whose request digest differs has diverged."""

    step_index: int
    request_digest: str
    result: StreamResult
    digest_version: int = 1


class ToolStartedRecord(_Record, tag="tool_started"):
    """Tool call ``call_id`` is about to execute (written before the tool runs)."""

    call_id: str
    tool_name: str
    arguments: Any = None
    step_index: int = 0
    idempotent: bool = False


class RecordedOp(msgspec.Struct, omit_defaults=True, frozen=True):
    """One state mutation of a recorded command: ``update`` (JSON) reduced into ``key``, or
    ``clear`` the key."""

    key: str
    update: Any = None
    clear: bool = False


class RecordedCommand(msgspec.Struct, omit_defaults=True, frozen=True):
    """A tool's ``StateCommand`` as JSON data: its mutations, scheduled actions and effects."""

    ops: list[RecordedOp] = msgspec.field(default_factory=list)
    actions: list[ScheduledAction] = msgspec.field(default_factory=list)
    effects: list[TypedEffect] = msgspec.field(default_factory=list)


class ToolFinishedRecord(_Record, tag="tool_finished"):
    """Tool call ``call_id`` finished with ``result``; a resumed run never executes it again.

    ``command`` is the state command the tool returned with it (``None``: none, or a record
    written before commands were kept); a recorded result re-applies it."""

    call_id: str
    tool_name: str
    result: ToolResult
    command: RecordedCommand | None = None


class AttemptRecord(_Record, tag="attempt"):
    """One invocation of the run's loop started (the first, a continuation after a decision,
    or a resume after a crash), with what it started from: the first ``message_count``
    messages of the thread, the persisted ``state``, the request's ``decisions``, frontend
    tools and inference ``overrides`` (JSON), and whether its sink wanted state snapshots.
    Journaled right after the attempt's first ``run_start`` event."""

    message_count: int
    state: PersistedState | None = None
    decisions: list[RunDecision] = msgspec.field(default_factory=list)
    frontend_tools: list[ToolDescriptor] = msgspec.field(default_factory=list)
    overrides: Any = None
    is_continuation: bool = False
    wants_state_snapshots: bool = True


class ControlInput(msgspec.Struct, omit_defaults=True):
    """One control-channel entry: decisions for suspended calls, or messages for the agent."""

    decisions: list[RunDecision] = msgspec.field(default_factory=list)
    messages: list[Message] = msgspec.field(default_factory=list)


class InputRecord(_Record, tag="input"):
    """The control-channel entries a live run took in one read (decisions while parked,
    messages at a step boundary), in order."""

    entries: list[ControlInput]


JournalRecord = (
    EventRecord
    | InferenceRecord
    | ToolStartedRecord
    | ToolFinishedRecord
    | AttemptRecord
    | InputRecord
)
"""Any journal record (a tagged union decodable with msgspec)."""

_KINDS: dict[type[_Record], JournalKind] = {
    EventRecord: JournalKind.EVENT,
    InferenceRecord: JournalKind.INFERENCE,
    ToolStartedRecord: JournalKind.TOOL_STARTED,
    ToolFinishedRecord: JournalKind.TOOL_FINISHED,
    AttemptRecord: JournalKind.ATTEMPT,
    InputRecord: JournalKind.INPUT,
}


def kind_of(record: JournalRecord) -> JournalKind:
    """The kind of ``record``."""
    return _KINDS[type(record)]


class JournalEntry(msgspec.Struct, frozen=True):
    """One committed journal entry: position ``seq`` (1-based) in run ``run_id``'s journal;
    ``created_at`` is unix milliseconds, stamped by the store."""

    run_id: str
    seq: int
    created_at: int
    record: JournalRecord

    @property
    def kind(self) -> JournalKind:
        """The record's kind."""
        return kind_of(self.record)


def _prompt(messages: Sequence[Message]) -> list[tuple[Any, ...]]:
    """The messages as the model sees them: every field but the id and the run metadata
    (fresh per attempt). A new ``Message`` field that reaches the model belongs here."""
    return [(m.role, m.content, m.tool_calls, m.tool_call_id, m.visibility) for m in messages]


def request_digest(request: InferenceRequest | Sequence[Message]) -> str:
    """A stable SHA-256 hex digest of what an inference was asked (messages, tools, options);
    equal requests give equal digests across processes and attempts: message ids and run
    metadata are left out (scheme :data:`DIGEST_VERSION`)."""
    if isinstance(request, InferenceRequest):
        override = request.override
        payload: Any = {
            "upstream_model": request.upstream_model,
            "messages": _prompt(request.messages),
            "tools": request.tools,
            "system": request.system,
            "overrides": None if override is None else override.model_dump(mode="json"),
        }
    else:
        payload = {"messages": _prompt(request)}
    return hashlib.sha256(encode_json(payload)).hexdigest()


# --------------------------------------------------------------------------- interfaces


class JournalSubscription(ABC):
    """Notifications that run ``run_id``'s journal grew; attached on ``__aenter__``.

    Edge-triggered and coalescing: ``wait`` returns ``True`` as soon as at least one append was
    committed since the subscription was attached or since the previous ``wait`` returned, and
    ``False`` on timeout. Wake-ups may repeat (a store can hear of one append twice) and say
    nothing about *which* entries: read them with ``RunJournal.read(run_id, after_seq=…)``."""

    @abstractmethod
    async def __aenter__(self) -> JournalSubscription:
        """Attach the listener; appends committed from now on are noticed."""

    @abstractmethod
    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Detach the listener."""

    @abstractmethod
    async def wait(self, wait_seconds: float | None = None) -> bool:
        """Wait for an append; ``True`` when notified, ``False`` after ``wait_seconds``."""


class RunJournal(ABC):
    """Append-only per-run journals."""

    @abstractmethod
    async def append(
        self,
        run_id: str,
        records: Sequence[JournalRecord],
        *,
        expected_last_seq: int | None = None,
    ) -> list[JournalEntry]:
        """Append ``records`` atomically and return their entries (consecutive seqs after the
        current last one). With ``expected_last_seq`` the append fails with ``VersionConflict``
        unless the journal's last seq is exactly that (fencing a stale writer)."""

    @abstractmethod
    async def read(
        self,
        run_id: str,
        *,
        after_seq: int = 0,
        kinds: Collection[JournalKind] | None = None,
        limit: int | None = None,
    ) -> list[JournalEntry]:
        """Entries with ``seq > after_seq`` in seq order, optionally only ``kinds``, at most
        ``limit`` (``[]`` for an unknown run)."""

    @abstractmethod
    async def last_seq(self, run_id: str) -> int:
        """The greatest committed seq of the run (0 when it has none)."""

    @abstractmethod
    def subscribe(self, run_id: str) -> JournalSubscription:
        """A subscription to appends to ``run_id`` (use as ``async with``)."""

    async def follow(
        self,
        run_id: str,
        after_seq: int = 0,
        *,
        poll_seconds: float = DEFAULT_FOLLOW_POLL_SECONDS,
    ) -> AsyncGenerator[JournalEntry, None]:
        """Every entry after ``after_seq`` — the committed ones, then new ones as they commit —
        gap-free and in order, until the caller stops iterating (close it with
        ``contextlib.aclosing``)."""
        async with self.subscribe(run_id) as subscription:
            seq = after_seq
            while True:
                for entry in await self.read(run_id, after_seq=seq):
                    seq = entry.seq
                    yield entry
                await subscription.wait(poll_seconds)


class JournaledThreadRunStore(ThreadRunStore, RunJournal):
    """A thread/run store with run journals whose step checkpoint also appends journal entries.

    Messages are an append-only log: a store remembers the message objects it last wrote or
    returned from ``load_messages`` and writes only the messages from the first one that is not
    the same object, so a step costs the same however long the history is. Treat checkpointed
    messages as immutable: replace a message by a new object (never edit it in place)."""

    @abstractmethod
    async def checkpoint_step(
        self,
        thread_id: str,
        messages: list[Message],
        run: RunRecord,
        records: Sequence[JournalRecord] = (),
        *,
        expected_last_seq: int | None = None,
    ) -> list[JournalEntry]:
        """Atomically: the ``checkpoint`` writes plus ``append(run.run_id, records)``. A failure
        (including ``VersionConflict``) leaves thread, messages, run and journal as before."""

    async def checkpoint(self, thread_id: str, messages: list[Message], run: RunRecord) -> None:
        await self.checkpoint_step(thread_id, messages, run)

    @abstractmethod
    async def prune(self, policy: RetentionPolicy, *, now_secs: int | None = None) -> PruneReport:
        """Delete the finished (``done``) runs ``policy`` selects, with their journals. Runs that
        are created, running or waiting are never touched; thread messages stay."""
