"""Store interfaces and the records they persist (threads, messages, runs, profiles, config).

A store is any object implementing these abstract classes; ``awaken_stores`` ships in-memory, file,
SQLite and PostgreSQL implementations and ``awaken_contract.testing`` holds the conformance suite
every implementation (including third-party ones) must pass.

Timestamps: thread metadata and profile entries are unix **milliseconds**; run records are unix
**seconds**.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable
from typing import Any
from urllib.parse import quote

import msgspec

from awaken_contract.contract.identity import RunRequestOrigin
from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.message import Message, Visibility
from awaken_contract.contract.suspension import ToolCallResume, ToolCallResumeMode, WaitingReason
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.errors import StorageNotFound, UserIdRequired
from awaken_contract.ids import new_id, now_ms
from awaken_contract.key_codec import ProfileOwnerKind
from awaken_contract.state import PersistedState

__all__ = [
    "MAX_RUN_PAGE_LIMIT",
    "ConfigChangeEvent",
    "ConfigChangeKind",
    "ConfigChangeNotifier",
    "ConfigStore",
    "MessagePage",
    "MessageQuery",
    "MessageRecord",
    "MessageSeqRange",
    "ProfileEntry",
    "ProfileOwner",
    "ProfileStore",
    "RunDecision",
    "RunMessageInput",
    "RunMessageOutput",
    "RunOutcome",
    "RunPage",
    "RunQuery",
    "RunRecord",
    "RunRequestOrigin",
    "RunRequestSnapshot",
    "RunStore",
    "RunWaitingState",
    "RunWaitingTicket",
    "Thread",
    "ThreadMetadata",
    "ThreadRunStore",
    "ThreadStore",
    "checkpoint_thread",
    "require_thread",
    "sort_thread_ids",
]

MAX_RUN_PAGE_LIMIT = 200
"""``RunQuery.limit`` is clamped to ``1..=MAX_RUN_PAGE_LIMIT``."""


def _none() -> None:
    """Default factory for keys that are always written, even when null."""
    return None


def _zero() -> int:
    """Default factory for integer keys that are always written, even when 0."""
    return 0


# --------------------------------------------------------------------------- threads


class ThreadMetadata(msgspec.Struct, omit_defaults=True):
    """Metadata of a thread; timestamps are unix milliseconds."""

    created_at: int | None = None
    updated_at: int | None = None
    title: str | None = None
    custom: dict[str, Any] = msgspec.field(default_factory=dict)


class Thread(msgspec.Struct, omit_defaults=True):
    """A persisted conversation. Messages are stored separately, not inside the thread."""

    id: str
    metadata: ThreadMetadata = msgspec.field(default_factory=ThreadMetadata)
    active_run_id: str | None = None
    open_run_id: str | None = None
    latest_run_id: str | None = None

    @classmethod
    def new(cls) -> Thread:
        """A thread with a fresh UUID v7 id."""
        return cls(id=new_id())

    @classmethod
    def with_id(cls, thread_id: str) -> Thread:
        """A thread with the given id and empty metadata."""
        return cls(id=thread_id)

    def with_title(self, title: str) -> Thread:
        """Set the title and return the thread (builder style)."""
        self.metadata.title = title
        return self

    def activity_ms(self) -> int:
        """Sort key of ``list_threads``: updated_at, else created_at, else 0."""
        meta = self.metadata
        if meta.updated_at is not None:
            return meta.updated_at
        return meta.created_at if meta.created_at is not None else 0

    def apply_run_projection(self, run: RunRecord) -> None:
        """Update the run pointers from ``run`` as every ``checkpoint`` does (contract §8.2)."""
        self.latest_run_id = run.run_id
        if run.status is RunStatus.CREATED or run.status is RunStatus.WAITING:
            self.active_run_id = None
            self.open_run_id = run.run_id
        elif run.status is RunStatus.RUNNING:
            self.active_run_id = run.run_id
            self.open_run_id = run.run_id
        else:
            if self.active_run_id == run.run_id:
                self.active_run_id = None
            if self.open_run_id == run.run_id:
                self.open_run_id = None


def checkpoint_thread(existing: Thread | None, thread_id: str, run: RunRecord) -> Thread:
    """The thread a checkpoint writes: loaded or created, timestamps stamped, projection applied."""
    thread = msgspec.structs.replace(existing) if existing is not None else Thread(id=thread_id)
    thread.metadata = msgspec.structs.replace(thread.metadata, custom=dict(thread.metadata.custom))
    now = now_ms()
    if thread.metadata.created_at is None:
        thread.metadata.created_at = now
    thread.metadata.updated_at = now
    thread.apply_run_projection(run)
    return thread


def sort_thread_ids(threads: Iterable[Thread], offset: int, limit: int) -> list[str]:
    """Order by recent activity (newest first, ties by id), then skip/take without clamping."""
    ordered = sorted(threads, key=lambda t: (-t.activity_ms(), t.id))
    return [t.id for t in ordered[offset : offset + limit]]


# --------------------------------------------------------------------------- messages


class MessageRecord(msgspec.Struct, omit_defaults=True):
    """A message of the durable thread log with its 1-based position ``seq``."""

    message_id: str
    thread_id: str
    seq: int
    message: Message
    produced_by_run_id: str | None = None
    step_index: int | None = None
    tool_call_id: str | None = None
    created_at: int | None = None

    @classmethod
    def from_message(cls, thread_id: str, seq: int, message: Message) -> MessageRecord:
        """Project ``message`` at position ``seq`` (a message without id gets a fresh one)."""
        meta = message.metadata
        return cls(
            message_id=message.id if message.id is not None else new_id(),
            thread_id=thread_id,
            seq=seq,
            message=message,
            produced_by_run_id=meta.run_id if meta is not None else None,
            step_index=meta.step_index if meta is not None else None,
            tool_call_id=message.tool_call_id,
        )


class MessageSeqRange(msgspec.Struct, gc=False):
    """Inclusive, 1-based range of message sequence numbers."""

    from_seq: int
    to_seq: int

    def __post_init__(self) -> None:
        if self.from_seq == 0:
            raise ValueError("from_seq must be >= 1")
        if self.from_seq > self.to_seq:
            raise ValueError(f"from_seq {self.from_seq} > to_seq {self.to_seq}")

    def __len__(self) -> int:
        return self.to_seq - self.from_seq + 1

    def contains(self, seq: int) -> bool:
        """True when ``seq`` lies inside the range."""
        return self.from_seq <= seq <= self.to_seq


class MessageQuery(msgspec.Struct, omit_defaults=True, gc=False):
    """A page of a thread's messages; ``cursor`` (a stringified offset) wins over ``offset``."""

    offset: int = 0
    limit: int = 50
    cursor: str | None = None
    include_internal: bool = False

    def start(self) -> int:
        """The effective offset (``cursor`` when present and non-blank)."""
        if self.cursor is not None and self.cursor.strip():
            value = self.cursor.strip()
            if not value.isdigit():
                raise ValueError("cursor must be an unsigned integer offset")
            return int(value)
        return max(self.offset, 0)


class MessagePage(msgspec.Struct):
    """One page of messages plus the cursor of the next page (``None`` on the last page)."""

    messages: list[Message]
    total: int
    has_more: bool
    next_cursor: str | None = None


# --------------------------------------------------------------------------- runs


def _user_origin() -> RunRequestOrigin:
    return RunRequestOrigin.USER


def _replay_mode() -> ToolCallResumeMode:
    return ToolCallResumeMode.REPLAY_TOOL_CALL


class RunDecision(msgspec.Struct):
    """A resume decision attached to a run request."""

    call_id: str
    resume: ToolCallResume


class RunRequestSnapshot(msgspec.Struct, omit_defaults=True):
    """What is needed to rebuild a run request from the durable record."""

    origin: RunRequestOrigin = msgspec.field(default_factory=_user_origin)
    sender_id: str | None = None
    input_message_ids: list[str] = msgspec.field(default_factory=list)
    input_message_count: int = 0
    request_extras: Any | None = None
    decisions: list[RunDecision] = msgspec.field(default_factory=list)
    frontend_tools: list[ToolDescriptor] = msgspec.field(default_factory=list)
    parent_thread_id: str | None = None
    transport_request_id: str | None = None


class RunMessageInput(msgspec.Struct, omit_defaults=True):
    """Which thread messages were the input of a run."""

    thread_id: str
    range: MessageSeqRange | None = None
    trigger_message_ids: list[str] = msgspec.field(default_factory=list)
    selected_message_ids: list[str] = msgspec.field(default_factory=list)
    context_policy: Any | None = None
    compacted_snapshot_id: str | None = None


class RunMessageOutput(msgspec.Struct, omit_defaults=True):
    """Which thread messages a run produced."""

    thread_id: str
    range: MessageSeqRange | None = None
    message_ids: list[str] = msgspec.field(default_factory=list)


class RunWaitingTicket(msgspec.Struct, omit_defaults=True):
    """One suspended tool call a waiting run needs a decision for."""

    ticket_id: str
    tool_call_id: str
    tool_name: str
    arguments: Any | None = None
    resume_mode: ToolCallResumeMode = msgspec.field(default_factory=_replay_mode)
    reason: str | None = None
    updated_at: int = msgspec.field(default_factory=_zero)


class RunWaitingState(msgspec.Struct, omit_defaults=True):
    """Why (and on what) a run waits."""

    reason: WaitingReason
    ticket_ids: list[str] = msgspec.field(default_factory=list)
    tickets: list[RunWaitingTicket] = msgspec.field(default_factory=list)
    since_dispatch_id: str | None = None
    message: str | None = None

    def call_targets(self) -> list[str]:
        """One decision target per waiting call: its tool-call id (else its ticket id)."""
        targets = sorted({t.tool_call_id or t.ticket_id for t in self.tickets})
        return targets or list(self.ticket_ids)

    def decision_targets(self) -> set[str]:
        """Every id a decision may address: ticket ids and their tool-call ids."""
        targets = set(self.ticket_ids)
        for ticket in self.tickets:
            targets.add(ticket.ticket_id)
            targets.add(ticket.tool_call_id)
        targets.discard("")
        return targets


class RunOutcome(msgspec.Struct, omit_defaults=True):
    """How a run ended."""

    termination_reason: TerminationReason
    final_output: str | None = None
    error_payload: Any | None = None


class RunRecord(msgspec.Struct, omit_defaults=True, kw_only=True):
    """The durable record of one run; timestamps are unix seconds."""

    run_id: str
    thread_id: str
    agent_id: str
    parent_run_id: str | None = msgspec.field(default_factory=_none)
    request: RunRequestSnapshot | None = None
    input: RunMessageInput | None = None
    output: RunMessageOutput | None = None
    status: RunStatus
    termination_reason: TerminationReason | None = None
    final_output: str | None = None
    error_payload: Any | None = None
    dispatch_id: str | None = None
    session_id: str | None = None
    transport_request_id: str | None = None
    user_id: str | None = None
    """The user the run acts for (its Profile-scoped state is this user's); kept on resume."""
    waiting: RunWaitingState | None = None
    outcome: RunOutcome | None = None
    created_at: int
    started_at: int | None = None
    finished_at: int | None = None
    updated_at: int
    steps: int = msgspec.field(default_factory=_zero)
    input_tokens: int = msgspec.field(default_factory=_zero)
    output_tokens: int = msgspec.field(default_factory=_zero)
    cost: float | None = None
    state: PersistedState | None = msgspec.field(default_factory=_none)

    def waiting_reason(self) -> WaitingReason | None:
        """The waiting reason, only while the run's status is ``waiting``."""
        if self.status is RunStatus.WAITING and self.waiting is not None:
            return self.waiting.reason
        return None

    def is_resumable_waiting(self) -> bool:
        """True when the run waits and says why."""
        return self.waiting_reason() is not None

    def is_background_task_waiting(self) -> bool:
        """True when the run waits on background tasks."""
        return self.waiting_reason() is WaitingReason.BACKGROUND_TASKS

    def decision_targets(self) -> set[str]:
        """Ids a decision may address on this run (empty unless it waits on tickets)."""
        return set() if self.waiting is None else self.waiting.decision_targets()


class RunQuery(msgspec.Struct, omit_defaults=True, gc=False):
    """Filter and page of ``list_runs``."""

    offset: int = 0
    limit: int = 50
    thread_id: str | None = None
    status: RunStatus | None = None

    def matches(self, run: RunRecord) -> bool:
        """True when ``run`` passes the thread and status filters."""
        if self.thread_id is not None and run.thread_id != self.thread_id:
            return False
        return self.status is None or run.status is self.status

    def effective_limit(self) -> int:
        """``limit`` clamped to ``1..=200``."""
        return min(max(self.limit, 1), MAX_RUN_PAGE_LIMIT)

    def page(self, runs: Iterable[RunRecord]) -> RunPage:
        """Filter, sort by created_at ascending and page ``runs`` (for stores that scan)."""
        matching = sorted((r for r in runs if self.matches(r)), key=lambda r: r.created_at)
        total = len(matching)
        start = min(max(self.offset, 0), total)
        items = matching[start : start + self.effective_limit()]
        return RunPage(items=items, total=total, has_more=start + len(items) < total)


class RunPage(msgspec.Struct):
    """One page of ``list_runs``."""

    items: list[RunRecord]
    total: int
    has_more: bool


# --------------------------------------------------------------------------- interfaces


class ThreadStore(ABC):
    """Threads and their message lists."""

    @abstractmethod
    async def load_thread(self, thread_id: str) -> Thread | None:
        """The thread, or ``None`` when unknown."""

    @abstractmethod
    async def save_thread(self, thread: Thread) -> None:
        """Create or overwrite the whole thread."""

    @abstractmethod
    async def delete_thread(self, thread_id: str) -> None:
        """Remove the thread and its messages (idempotent); run records stay."""

    @abstractmethod
    async def list_threads(self, offset: int, limit: int) -> list[str]:
        """Thread ids, most recently active first (ties by id ascending)."""

    @abstractmethod
    async def load_messages(self, thread_id: str) -> list[Message] | None:
        """The thread's messages, or ``None`` when no list was ever stored."""

    @abstractmethod
    async def save_messages(self, thread_id: str, messages: list[Message]) -> None:
        """Overwrite the thread's message list (the thread need not exist)."""

    @abstractmethod
    async def delete_messages(self, thread_id: str) -> None:
        """Remove the message list; a missing thread raises ``StorageNotFound``."""

    @abstractmethod
    async def update_thread_metadata(self, thread_id: str, metadata: ThreadMetadata) -> None:
        """Replace the metadata, keeping run pointers; missing thread → ``StorageNotFound``."""

    async def load_message_records(self, thread_id: str) -> list[MessageRecord] | None:
        """The message log as records numbered from 1, or ``None`` when no messages exist."""
        messages = await self.load_messages(thread_id)
        if messages is None:
            return None
        return [MessageRecord.from_message(thread_id, i + 1, m) for i, m in enumerate(messages)]

    async def append_message_records(
        self, thread_id: str, messages: list[Message]
    ) -> list[MessageRecord]:
        """Append ``messages`` to the log and return their records."""
        existing = await self.load_messages(thread_id) or []
        await self.save_messages(thread_id, [*existing, *messages])
        base = len(existing)
        return [
            MessageRecord.from_message(thread_id, base + i + 1, m) for i, m in enumerate(messages)
        ]

    async def load_message_record(self, thread_id: str, message_id: str) -> MessageRecord | None:
        """The first record whose message id is ``message_id``."""
        for record in await self.load_message_records(thread_id) or []:
            if record.message.id == message_id:
                return record
        return None

    async def load_message_records_range(
        self, thread_id: str, seq_range: MessageSeqRange
    ) -> list[MessageRecord]:
        """Records with ``from_seq <= seq <= to_seq`` (``[]`` for a missing thread)."""
        records = await self.load_message_records(thread_id) or []
        return [r for r in records if seq_range.contains(r.seq)]

    async def load_messages_page(self, thread_id: str, query: MessageQuery) -> MessagePage:
        """A page of the thread's messages (internal ones only when asked for)."""
        messages = await self.load_messages(thread_id) or []
        if not query.include_internal:
            messages = [m for m in messages if m.visibility is not Visibility.INTERNAL]
        total = len(messages)
        start = min(query.start(), total)
        page = messages[start : start + max(query.limit, 0)]
        end = start + len(page)
        has_more = end < total
        return MessagePage(
            messages=page,
            total=total,
            has_more=has_more,
            next_cursor=str(end) if has_more else None,
        )


class RunStore(ABC):
    """Run records."""

    @abstractmethod
    async def create_run(self, record: RunRecord) -> None:
        """Insert a run; an existing ``run_id`` raises ``AlreadyExists``."""

    @abstractmethod
    async def load_run(self, run_id: str) -> RunRecord | None:
        """The run, or ``None`` when unknown."""

    @abstractmethod
    async def latest_run(self, thread_id: str) -> RunRecord | None:
        """The thread's run with the greatest ``updated_at``, or ``None``."""

    @abstractmethod
    async def list_runs(self, query: RunQuery) -> RunPage:
        """Runs filtered by thread/status, oldest first, paged (limit clamped to 1..=200)."""


class ThreadRunStore(ThreadStore, RunStore):
    """Threads, messages and runs, plus the atomic step checkpoint the runtime uses."""

    @abstractmethod
    async def checkpoint(self, thread_id: str, messages: list[Message], run: RunRecord) -> None:
        """Atomically: create/stamp the thread, apply the run projection, replace the messages,
        upsert the run. A failure leaves thread, messages and run exactly as before."""


# --------------------------------------------------------------------------- profiles


class ProfileOwner(msgspec.Struct, frozen=True, gc=False):
    """Owner of profile entries: the system, an agent, a user, or an agent for one user.

    ``ProfileOwner.system()``, ``.agent(name)``, ``.user(user_id)``, ``.agent_user(name,
    user_id)``. ``str(owner)`` is the key stores file entries under: injective (user parts are
    percent-encoded) and, for system and agent owners, the form earlier versions wrote.
    """

    agent_name: str | None = None
    user_id: str | None = None

    @classmethod
    def agent(cls, name: str) -> ProfileOwner:
        """The owner ``Agent(name)``."""
        return cls(agent_name=name)

    @classmethod
    def system(cls) -> ProfileOwner:
        """The owner ``System``."""
        return cls()

    @classmethod
    def user(cls, user_id: str) -> ProfileOwner:
        """The owner ``User(user_id)``: one user's entries across agents."""
        return cls(user_id=user_id)

    @classmethod
    def agent_user(cls, name: str, user_id: str) -> ProfileOwner:
        """The owner ``AgentUser(name, user_id)``: one user's entries of one agent."""
        return cls(agent_name=name, user_id=user_id)

    @classmethod
    def of(cls, per: ProfileOwnerKind, agent_id: str, user_id: str | None) -> ProfileOwner:
        """The owner a key declared ``PER = per`` resolves to in a run of ``agent_id`` for
        ``user_id``; :class:`UserIdRequired` when ``per`` needs a user and there is none."""
        if per is ProfileOwnerKind.AGENT:
            return cls.agent(agent_id)
        if user_id is None:
            raise UserIdRequired(per.value)
        if per is ProfileOwnerKind.USER:
            return cls.user(user_id)
        return cls.agent_user(agent_id, user_id)

    @property
    def is_system(self) -> bool:
        """True for the system owner."""
        return self.agent_name is None and self.user_id is None

    def __str__(self) -> str:
        if self.user_id is None:
            return "system" if self.agent_name is None else f"agent:{self.agent_name}"
        user = quote(self.user_id, safe="")
        if self.agent_name is None:
            return f"user:{user}"
        return f"agent_user:{quote(self.agent_name, safe='')}:{user}"

    def to_json(self) -> Any:
        """Externally tagged JSON: ``"System"``, ``{"Agent": name}``, ``{"User": id}`` or
        ``{"AgentUser": [name, id]}``."""
        if self.user_id is None:
            return "System" if self.agent_name is None else {"Agent": self.agent_name}
        if self.agent_name is None:
            return {"User": self.user_id}
        return {"AgentUser": [self.agent_name, self.user_id]}

    @classmethod
    def from_json(cls, value: Any) -> ProfileOwner:
        """Inverse of :meth:`to_json`."""
        if value == "System":
            return cls.system()
        if isinstance(value, dict) and len(value) == 1:
            (tag, inner), *_ = value.items()
            if tag in ("Agent", "User") and isinstance(inner, str):
                return cls.agent(inner) if tag == "Agent" else cls.user(inner)
            if (
                tag == "AgentUser"
                and isinstance(inner, list)
                and len(inner) == 2
                and all(isinstance(part, str) for part in inner)
            ):
                return cls.agent_user(inner[0], inner[1])
        raise ValueError(f"invalid profile owner: {value!r}")


class ProfileEntry(msgspec.Struct):
    """A profile value with the time (ms) the store last wrote it."""

    key: str
    value: Any
    updated_at: int


class ProfileStore(ABC):
    """Raw profile entries keyed by owner and key."""

    @abstractmethod
    async def get(self, owner: ProfileOwner, key: str) -> ProfileEntry | None:
        """The entry, or ``None``."""

    @abstractmethod
    async def set(self, owner: ProfileOwner, key: str, value: Any) -> None:
        """Upsert; the store stamps ``updated_at``."""

    @abstractmethod
    async def delete(self, owner: ProfileOwner, key: str) -> None:
        """Remove the entry (idempotent)."""

    @abstractmethod
    async def list(self, owner: ProfileOwner) -> list[ProfileEntry]:
        """All entries of ``owner`` sorted by key."""

    @abstractmethod
    async def clear_owner(self, owner: ProfileOwner) -> None:
        """Remove every entry of ``owner`` (idempotent)."""


# --------------------------------------------------------------------------- config


class ConfigChangeKind(enum.StrEnum):
    """What happened to a config document."""

    PUT = "put"
    DELETE = "delete"


class ConfigChangeEvent(msgspec.Struct, gc=False):
    """Notification that a config document changed."""

    namespace: str
    id: str
    kind: ConfigChangeKind


class ConfigStore(ABC):
    """Namespaced JSON documents (agents, models, providers, …)."""

    @abstractmethod
    async def get(self, namespace: str, id: str) -> Any | None:
        """The document, or ``None``."""

    @abstractmethod
    async def list(self, namespace: str, offset: int, limit: int) -> list[tuple[str, Any]]:
        """``(id, document)`` pairs ordered by id, then offset/limit."""

    @abstractmethod
    async def put(self, namespace: str, id: str, value: Any) -> None:
        """Create or overwrite."""

    @abstractmethod
    async def delete(self, namespace: str, id: str) -> None:
        """Remove (missing is fine)."""

    async def exists(self, namespace: str, id: str) -> bool:
        """True when the document exists."""
        return await self.get(namespace, id) is not None


class ConfigChangeNotifier(ABC):
    """A config store that pushes change events (callers should keep a polling fallback)."""

    @abstractmethod
    def subscribe(self) -> AsyncIterator[ConfigChangeEvent]:
        """An async iterator of change events, starting now."""


def require_thread(thread: Thread | None, thread_id: str) -> Thread:
    """Return ``thread`` or raise ``StorageNotFound(thread_id)``."""
    if thread is None:
        raise StorageNotFound(thread_id)
    return thread
