"""In-memory stores: fast, asyncio-safe, lost on process exit (tests, examples, single process).

Every write of ``InMemoryStore`` runs to its end without awaiting, so it is atomic on the event
loop: no reader or other writer sees half of it, and no lock is needed."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Collection, Sequence
from typing import Any, TypeVar

import msgspec
from awaken_contract.contract.journal import (
    JournalEntry,
    JournalKind,
    JournalRecord,
    JournalSubscription,
)
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.message import Message
from awaken_contract.contract.retention import (
    PruneReport,
    RetentionPolicy,
    RunSummary,
    select_prunable,
)
from awaken_contract.contract.storage import (
    ConfigChangeEvent,
    ConfigChangeKind,
    ConfigChangeNotifier,
    ConfigStore,
    ProfileEntry,
    ProfileOwner,
    ProfileStore,
    RunPage,
    RunQuery,
    RunRecord,
    Thread,
    ThreadMetadata,
    checkpoint_thread,
    require_thread,
    sort_thread_ids,
)
from awaken_contract.errors import AlreadyExists
from awaken_contract.ids import now_ms
from awaken_contract.ids import now_secs as _now_secs

from awaken_stores._codec import clone
from awaken_stores._job_checkpoints import LocalJobCheckpoints
from awaken_stores._journal_local import LocalJournalHub
from awaken_stores._memory_mailbox import InMemoryMailboxStore
from awaken_stores._memory_rows import (
    EntryBatch,
    RunRow,
    RunTable,
    decode_messages,
    encode_each,
    journal_length,
    read_batches,
    stage_entries,
)
from awaken_stores._message_log import KnownLogs, MessageHead
from awaken_stores._paging import page

T = TypeVar("T")

_DONE = RunStatus.DONE  # (an enum member read as a constant on the hot path)

__all__ = ["InMemoryConfigStore", "InMemoryMailboxStore", "InMemoryProfileStore", "InMemoryStore"]


def _copy(value: T) -> T:
    """A JSON round-trip copy: callers never share state with the store, and only values a
    durable store could persist are accepted (others raise ``SerializationError``). Runs,
    journal entries and messages are kept encoded instead (``_memory_rows``)."""
    return clone(value, type(value) if isinstance(value, msgspec.Struct) else Any)


def _copy_opt(value: T | None) -> T | None:
    return None if value is None else _copy(value)


class InMemoryStore(LocalJobCheckpoints):
    """Threads, messages, runs and run journals in dicts; sub-stores ``profiles``, ``config``,
    ``mailbox`` (whose jobs ride the checkpoints, see ``_job_checkpoints``)."""

    def __init__(self) -> None:
        self._threads: dict[str, Thread] = {}
        self._messages: dict[str, list[bytes]] = {}
        self._heads: dict[str, MessageHead] = {}
        tokens = itertools.count(1)
        self._known = KnownLogs(new_token=lambda: str(next(tokens)))  # heads only it writes
        self._runs = RunTable()
        self._journals: dict[str, list[EntryBatch]] = {}
        self._hub = LocalJournalHub()
        self.profiles = InMemoryProfileStore()
        self.config = InMemoryConfigStore()
        self.mailbox = InMemoryMailboxStore()

    @property
    def job_mailbox(self) -> InMemoryMailboxStore:
        return self.mailbox

    def _local_mailbox(self) -> InMemoryMailboxStore:
        return self.mailbox

    # ------------------------------------------------------------------ threads
    async def load_thread(self, thread_id: str) -> Thread | None:
        return _copy_opt(self._threads.get(thread_id))

    async def save_thread(self, thread: Thread) -> None:
        self._threads[thread.id] = _copy(thread)

    async def delete_thread(self, thread_id: str) -> None:
        self._threads.pop(thread_id, None)
        self._drop_messages(thread_id)

    async def list_threads(self, offset: int, limit: int) -> list[str]:
        return sort_thread_ids(self._threads.values(), offset, limit)

    def _drop_messages(self, thread_id: str) -> None:
        self._messages.pop(thread_id, None)
        self._heads.pop(thread_id, None)
        self._known.forget(thread_id)

    async def load_messages(self, thread_id: str) -> list[Message] | None:
        rows = self._messages.get(thread_id)
        if rows is None:
            return None
        loaded = decode_messages(rows)
        self._known.remember_loaded(thread_id, loaded, self._heads[thread_id])
        return loaded

    async def save_messages(self, thread_id: str, messages: list[Message]) -> None:
        rows = encode_each(messages, 0)
        self._drop_messages(thread_id)
        head = self._known.new_head(len(messages))
        self._messages[thread_id] = rows
        self._heads[thread_id] = head
        self._known.remember(thread_id, messages, head)

    async def delete_messages(self, thread_id: str) -> None:
        require_thread(self._threads.get(thread_id), thread_id)
        self._drop_messages(thread_id)

    async def update_thread_metadata(self, thread_id: str, metadata: ThreadMetadata) -> None:
        thread = require_thread(self._threads.get(thread_id), thread_id)
        self._threads[thread_id] = msgspec.structs.replace(thread, metadata=_copy(metadata))

    # ------------------------------------------------------------------ runs
    async def create_run(self, record: RunRecord) -> None:
        if record.run_id in self._runs:
            raise AlreadyExists(record.run_id)
        self._runs[record.run_id] = RunRow.of(record)

    async def load_run(self, run_id: str) -> RunRecord | None:
        row = self._runs.get(run_id)
        return None if row is None else row.load()

    async def latest_run(self, thread_id: str) -> RunRecord | None:
        row = self._runs.latest(thread_id)
        return None if row is None else row.load()

    async def list_runs(self, query: RunQuery) -> RunPage:
        rows, total, has_more = query.select(self._runs.values())
        return RunPage(items=[r.load() for r in rows], total=total, has_more=has_more)

    # ------------------------------------------------------------------ checkpoint
    async def checkpoint_step(
        self,
        thread_id: str,
        messages: list[Message],
        run: RunRecord,
        records: Sequence[JournalRecord] = (),
        *,
        expected_last_seq: int | None = None,
    ) -> list[JournalEntry]:
        # Everything that can fail (the fence, the encodes) runs before the first write, so a
        # failure leaves the previous state untouched; nothing awaits, so no reader sees half.
        run_id, now = run.run_id, now_ms()  # (one stamp: the entries and the thread)
        batches = self._journals.get(run_id)
        entries, batch = stage_entries(run_id, batches, records, expected_last_seq, now)
        plan = self._known.plan(thread_id, self._heads.get(thread_id), messages)
        start = plan.start
        run_row = RunRow.of(run)
        rows = encode_each(messages, start)
        # (nothing below raises)
        self._project(thread_id, run, now)
        stored = self._messages.get(thread_id)
        if stored is None:
            self._messages[thread_id] = rows
        else:
            stored[start:] = rows
        self._heads[thread_id] = plan.head
        self._runs[run_id] = run_row
        if batch is not None:
            self._commit_entries(run_id, batches, batch)
        self._known.settle(thread_id, messages, plan.head, run.status is _DONE)
        return entries

    def _project(self, thread_id: str, run: RunRecord, now: int) -> None:
        """Apply a checkpoint of ``run`` to the stored thread (created on first use): the
        store's own object, never handed out, so it is updated in place."""
        thread = self._threads.get(thread_id)
        if thread is None:
            self._threads[thread_id] = checkpoint_thread(None, thread_id, run, now)
            return
        meta = thread.metadata
        if meta.created_at is None:
            meta.created_at = now
        meta.updated_at = now
        thread.apply_run_projection(run)

    # ------------------------------------------------------------------ journal
    def _commit_entries(
        self, run_id: str, batches: list[EntryBatch] | None, batch: EntryBatch
    ) -> None:
        """Store ``batch`` after ``batches`` (the run's batches when it was staged)."""
        if batches is None:
            self._journals[run_id] = [batch]
        else:
            batches.append(batch)
        self._hub.notify(run_id)

    async def append(
        self,
        run_id: str,
        records: Sequence[JournalRecord],
        *,
        expected_last_seq: int | None = None,
    ) -> list[JournalEntry]:
        batches = self._journals.get(run_id)
        entries, batch = stage_entries(run_id, batches, records, expected_last_seq, now_ms())
        if batch is not None:
            self._commit_entries(run_id, batches, batch)
        return entries

    async def read(
        self,
        run_id: str,
        *,
        after_seq: int = 0,
        kinds: Collection[JournalKind] | None = None,
        limit: int | None = None,
    ) -> list[JournalEntry]:
        return read_batches(self._journals.get(run_id, ()), after_seq, kinds, limit)

    async def last_seq(self, run_id: str) -> int:
        return journal_length(self._journals.get(run_id, ()))

    def subscribe(self, run_id: str) -> JournalSubscription:
        return self._hub.subscribe(run_id)

    async def prune(self, policy: RetentionPolicy, *, now_secs: int | None = None) -> PruneReport:
        now = _now_secs() if now_secs is None else now_secs
        summaries = [
            RunSummary(r.run_id, r.thread_id, r.status, r.updated_at) for r in self._runs.values()
        ]
        report = PruneReport()
        for run_id in select_prunable(summaries, policy, now):
            del self._runs[run_id]
            report.runs_deleted += 1
            batches = self._journals.pop(run_id, ())
            report.journal_entries_deleted += journal_length(batches)
        return report


class InMemoryProfileStore(ProfileStore):
    """Profile entries in a dictionary per owner."""

    def __init__(self) -> None:
        self._entries: dict[ProfileOwner, dict[str, ProfileEntry]] = {}

    async def get(self, owner: ProfileOwner, key: str) -> ProfileEntry | None:
        return _copy_opt(self._entries.get(owner, {}).get(key))

    async def set(self, owner: ProfileOwner, key: str, value: Any) -> None:
        entry = ProfileEntry(key=key, value=_copy(value), updated_at=now_ms())
        self._entries.setdefault(owner, {})[key] = entry

    async def delete(self, owner: ProfileOwner, key: str) -> None:
        self._entries.get(owner, {}).pop(key, None)

    async def list(self, owner: ProfileOwner) -> list[ProfileEntry]:
        entries = self._entries.get(owner, {})
        return [_copy(entries[k]) for k in sorted(entries)]

    async def clear_owner(self, owner: ProfileOwner) -> None:
        self._entries.pop(owner, None)


class InMemoryConfigStore(ConfigStore, ConfigChangeNotifier):
    """Config documents in a dictionary per namespace, with in-process change notifications."""

    def __init__(self) -> None:
        self._docs: dict[str, dict[str, Any]] = {}
        self._subscribers: list[asyncio.Queue[ConfigChangeEvent]] = []

    async def get(self, namespace: str, id: str) -> Any | None:
        return _copy_opt(self._docs.get(namespace, {}).get(id))

    async def list(self, namespace: str, offset: int, limit: int) -> list[tuple[str, Any]]:
        docs = self._docs.get(namespace, {})
        ids = page(sorted(docs), offset, limit)
        return [(i, _copy(docs[i])) for i in ids]

    async def put(self, namespace: str, id: str, value: Any) -> None:
        self._docs.setdefault(namespace, {})[id] = _copy(value)
        self._publish(ConfigChangeEvent(namespace=namespace, id=id, kind=ConfigChangeKind.PUT))

    async def delete(self, namespace: str, id: str) -> None:
        if self._docs.get(namespace, {}).pop(id, None) is not None:
            self._publish(
                ConfigChangeEvent(namespace=namespace, id=id, kind=ConfigChangeKind.DELETE)
            )

    def _publish(self, event: ConfigChangeEvent) -> None:
        for queue in self._subscribers:
            queue.put_nowait(event)

    def subscribe(self) -> AsyncIterator[ConfigChangeEvent]:
        """Events from this call on (the subscription is registered immediately)."""
        queue: asyncio.Queue[ConfigChangeEvent] = asyncio.Queue()
        self._subscribers.append(queue)
        return self._drain(queue)

    async def _drain(
        self, queue: asyncio.Queue[ConfigChangeEvent]
    ) -> AsyncIterator[ConfigChangeEvent]:
        try:
            while True:
                yield await queue.get()
        finally:
            self._subscribers.remove(queue)
