"""The thread and run store interfaces (``ThreadStore``, ``RunStore``, ``ThreadRunStore``).

A store is any object implementing these abstract classes; ``awaken_stores`` ships in-memory,
file, SQLite and PostgreSQL implementations and ``awaken_contract.testing`` holds the
conformance suite every implementation (including third-party ones) must pass."""

from __future__ import annotations

from abc import ABC, abstractmethod

from awaken_contract.contract.message import Message, Visibility
from awaken_contract.contract.message_record import (
    MessagePage,
    MessageQuery,
    MessageRecord,
    MessageSeqRange,
)
from awaken_contract.contract.run_record import RunPage, RunQuery, RunRecord
from awaken_contract.contract.thread import (
    Thread,
    ThreadMetadata,
)

__all__ = [
    "RunStore",
    "ThreadRunStore",
    "ThreadStore",
]


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
