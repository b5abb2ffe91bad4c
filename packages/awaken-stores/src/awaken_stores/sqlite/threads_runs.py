"""``SqliteStore``: threads, messages, runs and the step checkpoint (journal: see ``journal``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from awaken_contract.contract.checkpoint_writer import (
    JobAck,
    JobCheckpointStore,
    JobClaim,
    StepCheckpoint,
)
from awaken_contract.contract.journal import (
    JournaledThreadRunStore,
    JournalEntry,
    JournalRecord,
)
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.mailbox import MailboxJob, MailboxJobList
from awaken_contract.contract.message import Message
from awaken_contract.contract.retention import (
    PruneReport,
    RetentionPolicy,
    RunSummary,
    select_prunable,
)
from awaken_contract.contract.storage import (
    RunPage,
    RunQuery,
    RunRecord,
    Thread,
    ThreadMetadata,
    checkpoint_thread,
    require_thread,
)
from awaken_contract.errors import AlreadyExists, StorageError
from awaken_contract.ids import now_secs as _now_secs

from awaken_stores._codec import decode, encode_str
from awaken_stores._ids import validate_id
from awaken_stores._job_checkpoints import ack_change, enqueue_claimed_change, refuse_known_job
from awaken_stores._message_log import KnownLogs, LogWrite, MessageHead
from awaken_stores.sqlite.config import SqliteConfigStore
from awaken_stores.sqlite.connection import _one, insert_rows
from awaken_stores.sqlite.journal import SqliteJournal, _append_journal
from awaken_stores.sqlite.mailbox import SqliteMailboxStore, mailbox_change
from awaken_stores.sqlite.profile import SqliteProfileStore


def _thread_row(thread: Thread) -> tuple[str, str, int]:
    return (thread.id, encode_str(thread), thread.activity_ms())


_UPSERT_THREAD = (
    "INSERT INTO awaken_threads (id, data, activity_ms) VALUES (?, ?, ?)"
    " ON CONFLICT (id) DO UPDATE SET data = excluded.data, activity_ms = excluded.activity_ms"
)
_UPSERT_HEAD = (
    "INSERT INTO awaken_message_heads VALUES (?, ?, ?) ON CONFLICT (thread_id) DO UPDATE"
    " SET count = excluded.count, token = excluded.token"
)
_UPSERT_MESSAGES_TAIL = " ON CONFLICT (thread_id, seq) DO UPDATE SET data = excluded.data"
_UPSERT_RUN = (
    "INSERT INTO awaken_runs (run_id, thread_id, status, created_at, updated_at, data)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET thread_id = excluded.thread_id,"
    " status = excluded.status, created_at = excluded.created_at,"
    " updated_at = excluded.updated_at, data = excluded.data"
)


def _run_row(run: RunRecord) -> tuple[str, str, str, int, int, str]:
    return (
        run.run_id,
        run.thread_id,
        run.status.value,
        run.created_at,
        run.updated_at,
        encode_str(run),
    )


def _load_head(c: sqlite3.Connection, thread_id: str) -> MessageHead | None:
    row = c.execute(
        "SELECT count, token FROM awaken_message_heads WHERE thread_id = ?", (thread_id,)
    ).fetchone()
    return None if row is None else MessageHead(int(row[0]), row[1])


_INLINE_HISTORY = 64
"""Histories of up to this many messages are read like point reads, on the loop's thread."""


def _history(
    c: sqlite3.Connection, thread_id: str, at_most: int | None
) -> tuple[MessageHead, list[Any] | None] | None:
    """The log's head and rows in one read transaction (no rows when it holds more than
    ``at_most`` messages); ``None`` without a log."""
    own = not c.in_transaction  # (on a worker thread it runs inside the group's transaction)
    if own:
        c.execute("BEGIN")
    try:
        head = _load_head(c, thread_id)
        if head is None:
            return None
        if at_most is not None and head.count > at_most:
            return head, None
        rows = c.execute(
            "SELECT data FROM awaken_messages WHERE thread_id = ? ORDER BY seq", (thread_id,)
        ).fetchall()
        return head, rows
    finally:
        if own:
            c.execute("COMMIT")


_CHECKPOINT_READ = (
    "SELECT (SELECT data FROM awaken_threads WHERE id = ?1),"
    " (SELECT count FROM awaken_message_heads WHERE thread_id = ?1),"
    " (SELECT token FROM awaken_message_heads WHERE thread_id = ?1),"
    " (SELECT MAX(seq) FROM awaken_journal WHERE run_id = ?2)"
)
"""Everything a checkpoint reads before it writes, in one statement (one SQLite step): the
stored thread, the message log's head and the run journal's last seq."""


def _write_messages(
    c: sqlite3.Connection,
    known: KnownLogs,
    thread_id: str,
    messages: list[Message],
    stored: MessageHead | None,
) -> LogWrite:
    """Store ``messages`` as the thread's log stored under head ``stored``, writing only what
    changed (see _message_log). The log holds exactly rows ``1..stored.count``, so rows past
    the new list exist only when it is shorter (or the head is missing)."""
    plan = known.plan(thread_id, stored, messages)
    start = plan.start
    insert_rows(
        c,
        "INSERT INTO awaken_messages (thread_id, seq, data)",
        [(thread_id, start + i + 1, encode_str(m)) for i, m in enumerate(messages[start:])],
        _UPSERT_MESSAGES_TAIL,
    )
    if plan.head_changed:
        if stored is None or stored.count > len(messages):
            c.execute(
                "DELETE FROM awaken_messages WHERE thread_id = ? AND seq > ?",
                (thread_id, len(messages)),
            )
        c.execute(_UPSERT_HEAD, (thread_id, plan.head.count, plan.head.token))
    return plan


def _delete_messages(c: sqlite3.Connection, thread_id: str) -> None:
    c.execute("DELETE FROM awaken_messages WHERE thread_id = ?", (thread_id,))
    c.execute("DELETE FROM awaken_message_heads WHERE thread_id = ?", (thread_id,))


class _NotClaimed(Exception):
    """The job of a claiming checkpoint could not be claimed (rolls the write back)."""


class SqliteStore(SqliteJournal, JournaledThreadRunStore, JobCheckpointStore):
    """Threads, messages and runs in one SQLite file (``awaken-stores[sqlite]``).

    Sub-stores sharing the connection: ``profiles``, ``config`` and ``mailbox``. Use
    ``await store.close()`` (or ``async with``) when done.
    """

    def __init__(
        self, path: str | Path, *, busy_timeout_ms: int = 5_000, synchronous: str = "FULL"
    ) -> None:
        super().__init__(path, busy_timeout_ms=busy_timeout_ms, synchronous=synchronous)
        self.profiles = SqliteProfileStore(self._db)
        self.config = SqliteConfigStore(self._db)
        self.mailbox = SqliteMailboxStore(self._db)
        self._known = KnownLogs()

    async def __aenter__(self) -> SqliteStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def schema_version(self) -> int:
        """The highest applied migration version."""
        version = await self._db.run(
            lambda c: _one(c, "SELECT MAX(version) FROM awaken_schema_migrations", ())
        )
        return int(version or 0)

    # ------------------------------------------------------------------ threads
    async def load_thread(self, thread_id: str) -> Thread | None:
        data = await self._db.peek(
            lambda c: _one(c, "SELECT data FROM awaken_threads WHERE id = ?", (thread_id,))
        )
        return None if data is None else decode(data, Thread)

    async def save_thread(self, thread: Thread) -> None:
        validate_id("thread id", thread.id)
        row = _thread_row(thread)
        await self._db.write(lambda c: c.execute(_UPSERT_THREAD, row))

    async def delete_thread(self, thread_id: str) -> None:
        def delete(c: sqlite3.Connection) -> None:
            _delete_messages(c, thread_id)
            c.execute("DELETE FROM awaken_threads WHERE id = ?", (thread_id,))

        self._known.forget(thread_id)
        await self._db.write(delete)

    async def list_threads(self, offset: int, limit: int) -> list[str]:
        rows = await self._db.run(
            lambda c: c.execute(
                "SELECT id FROM awaken_threads ORDER BY activity_ms DESC, id ASC LIMIT ? OFFSET ?",
                (max(limit, 0), max(offset, 0)),
            ).fetchall()
        )
        return [r[0] for r in rows]

    async def load_messages(self, thread_id: str) -> list[Message] | None:
        found = await self._db.peek(lambda c: _history(c, thread_id, _INLINE_HISTORY))
        if found is not None and found[1] is None:  # a long one: read on the reader thread
            found = await self._db.run(lambda c: _history(c, thread_id, None))
        if found is None:
            return None
        head, rows = found
        assert rows is not None
        messages: list[Message] = decode(f"[{','.join(r[0] for r in rows)}]", list[Message])
        self._known.remember_loaded(thread_id, messages, head)
        return messages

    async def save_messages(self, thread_id: str, messages: list[Message]) -> None:
        validate_id("thread id", thread_id)
        self._known.forget(thread_id)

        def save(c: sqlite3.Connection) -> LogWrite:
            _delete_messages(c, thread_id)
            return _write_messages(c, self._known, thread_id, messages, None)

        plan = await self._db.write(save)
        self._known.remember(thread_id, messages, plan.head)

    async def delete_messages(self, thread_id: str) -> None:
        def delete(c: sqlite3.Connection) -> None:
            exists = _one(c, "SELECT 1 FROM awaken_threads WHERE id = ?", (thread_id,))
            require_thread(Thread(id=thread_id) if exists else None, thread_id)
            _delete_messages(c, thread_id)

        self._known.forget(thread_id)
        await self._db.write(delete)

    async def update_thread_metadata(self, thread_id: str, metadata: ThreadMetadata) -> None:
        def update(c: sqlite3.Connection) -> None:
            data = _one(c, "SELECT data FROM awaken_threads WHERE id = ?", (thread_id,))
            thread = require_thread(None if data is None else decode(data, Thread), thread_id)
            thread.metadata = metadata
            c.execute(_UPSERT_THREAD, _thread_row(thread))

        await self._db.write(update)

    # ------------------------------------------------------------------ runs
    async def create_run(self, record: RunRecord) -> None:
        validate_id("run id", record.run_id)
        row = _run_row(record)

        def insert(c: sqlite3.Connection) -> None:
            try:
                c.execute("INSERT INTO awaken_runs VALUES (?, ?, ?, ?, ?, ?)", row)
            except sqlite3.IntegrityError:
                raise AlreadyExists(record.run_id) from None

        await self._db.write(insert)

    async def load_run(self, run_id: str) -> RunRecord | None:
        data = await self._db.peek(
            lambda c: _one(c, "SELECT data FROM awaken_runs WHERE run_id = ?", (run_id,))
        )
        return None if data is None else decode(data, RunRecord)

    async def latest_run(self, thread_id: str) -> RunRecord | None:
        data = await self._db.peek(
            lambda c: _one(
                c,
                "SELECT data FROM awaken_runs WHERE thread_id = ?"
                " ORDER BY updated_at DESC, run_id DESC LIMIT 1",
                (thread_id,),
            )
        )
        return None if data is None else decode(data, RunRecord)

    async def list_runs(self, query: RunQuery) -> RunPage:
        where: list[str] = []
        params: list[Any] = []
        if query.thread_id is not None:
            where.append("thread_id = ?")
            params.append(query.thread_id)
        if query.status is not None:
            where.append("status = ?")
            params.append(query.status.value)
        clause = f" WHERE {' AND '.join(where)}" if where else ""

        def select(c: sqlite3.Connection) -> tuple[int, list[Any]]:
            total = int(_one(c, f"SELECT COUNT(*) FROM awaken_runs{clause}", tuple(params)) or 0)
            start = min(max(query.offset, 0), total)
            rows = c.execute(
                f"SELECT data FROM awaken_runs{clause} ORDER BY created_at ASC, run_id ASC"
                " LIMIT ? OFFSET ?",
                (*params, query.effective_limit(), start),
            ).fetchall()
            return total, rows

        total, rows = await self._db.run(select)
        items: list[RunRecord] = [decode(r[0], RunRecord) for r in rows]
        start = min(max(query.offset, 0), total)
        return RunPage(items=items, total=total, has_more=start + len(items) < total)

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
        step = StepCheckpoint(thread_id, messages, run, list(records), expected_last_seq)
        write = self._checkpoint_work(step)
        return self._settle(step, *(await self._db.write(write)))

    def _checkpoint_work(
        self, step: StepCheckpoint
    ) -> Callable[[sqlite3.Connection], tuple[LogWrite, list[JournalEntry]]]:
        """The writes of ``checkpoint_step`` (run inside a write transaction)."""
        thread_id, run = step.thread_id, step.run
        validate_id("thread id", thread_id)
        validate_id("run id", run.run_id)
        run_row = _run_row(run)

        def write(c: sqlite3.Connection) -> tuple[LogWrite, list[JournalEntry]]:
            read = c.execute(_CHECKPOINT_READ, (thread_id, run.run_id))
            data, count, token, last = read.fetchone()
            existing = None if data is None else decode(data, Thread)
            c.execute(_UPSERT_THREAD, _thread_row(checkpoint_thread(existing, thread_id, run)))
            stored = None if count is None else MessageHead(int(count), token)
            plan = _write_messages(c, self._known, thread_id, step.messages, stored)
            c.execute(_UPSERT_RUN, run_row)
            entries = _append_journal(
                c, run.run_id, step.records, step.expected_last_seq, int(last or 0)
            )
            return plan, entries

        return write

    def _settle(
        self, step: StepCheckpoint, plan: LogWrite, entries: list[JournalEntry]
    ) -> list[JournalEntry]:
        """After a checkpoint committed: remember the log head, wake journal followers."""
        self._known.settle(
            step.thread_id, step.messages, plan.head, step.run.status is RunStatus.DONE
        )
        if entries:
            self._db.journal_hub.notify(step.run.run_id)
        return entries

    # ------------------------------------------------------------------ jobs riding checkpoints
    @property
    def job_mailbox(self) -> SqliteMailboxStore:
        return self.mailbox

    async def checkpoint_claiming(
        self, checkpoint: StepCheckpoint, claim: JobClaim
    ) -> tuple[list[JournalEntry], MailboxJob] | None:
        job = claim.job
        await refuse_known_job(self.mailbox, claim)
        change = enqueue_claimed_change(claim)
        write = self._checkpoint_work(checkpoint)

        def work(c: sqlite3.Connection) -> tuple[LogWrite, list[JournalEntry], MailboxJobList]:
            claimed, changed = mailbox_change(c, job.mailbox_id, job.job_id, change)
            if claimed is None:
                raise _NotClaimed  # rolls the whole write back (its savepoint)
            return (*write(c), changed)

        try:
            plan, entries, changed = await self._db.write(work)
        except _NotClaimed:
            return None
        self.mailbox.remember_all(changed)
        claimed_job = next(j for j in changed if j.job_id == job.job_id)
        return self._settle(checkpoint, plan, entries), claimed_job

    async def checkpoint_acking(
        self, checkpoint: StepCheckpoint, ack: JobAck
    ) -> tuple[list[JournalEntry], bool]:
        mailbox_id = await self.mailbox._mailbox_of(ack.job_id)
        write = self._checkpoint_work(checkpoint)
        if mailbox_id is None:  # an unknown job: nothing to ack
            return self._settle(checkpoint, *(await self._db.write(write))), False
        change = ack_change(ack.job_id, ack.claim_token, ack.now, ack.result)

        def work(c: sqlite3.Connection) -> tuple[LogWrite, list[JournalEntry], bool]:
            plan, entries = write(c)
            outcome, _ = mailbox_change(c, mailbox_id, ack.job_id, change)
            return plan, entries, not isinstance(outcome, StorageError)

        plan, entries, acked = await self._db.write(work)
        return self._settle(checkpoint, plan, entries), acked

    # ------------------------------------------------------------------ retention
    async def prune(self, policy: RetentionPolicy, *, now_secs: int | None = None) -> PruneReport:
        now = _now_secs() if now_secs is None else now_secs

        def prune(c: sqlite3.Connection) -> PruneReport:
            rows = c.execute(
                "SELECT run_id, thread_id, updated_at FROM awaken_runs WHERE status = ?",
                (RunStatus.DONE.value,),
            ).fetchall()
            summaries = [RunSummary(r[0], r[1], RunStatus.DONE, int(r[2])) for r in rows]
            report = PruneReport()
            for run_id in select_prunable(summaries, policy, now):
                report.journal_entries_deleted += c.execute(
                    "DELETE FROM awaken_journal WHERE run_id = ?", (run_id,)
                ).rowcount
                report.runs_deleted += c.execute(
                    "DELETE FROM awaken_runs WHERE run_id = ? AND status = ?",
                    (run_id, RunStatus.DONE.value),
                ).rowcount
            return report

        return await self._db.write(prune)
