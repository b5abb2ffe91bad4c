"""``FileStore``: threads, messages, runs and the step checkpoint (journal: see ``journal``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from awaken_contract.contract.journal import (
    JournaledThreadRunStore,
    JournalEntry,
    JournalRecord,
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
    RunPage,
    RunQuery,
    RunRecord,
    Thread,
    ThreadMetadata,
    checkpoint_thread,
    require_thread,
    sort_thread_ids,
)
from awaken_contract.errors import (
    AlreadyExists,
)
from awaken_contract.ids import now_secs as _now_secs

from awaken_stores._codec import encode
from awaken_stores._ids import validate_id
from awaken_stores._message_log import KnownLogs, LogWrite, MessageHead
from awaken_stores.file.config import FileConfigStore
from awaken_stores.file.files import _atomic_write, _json_files, _last_byte, _pretty_json, _read
from awaken_stores.file.journal import FileJournal
from awaken_stores.file.mailbox import FileMailboxStore
from awaken_stores.file.profile import FileProfileStore
from awaken_stores.file.rollback import _recover, _Splice, commit_files


class FileStore(FileJournal, JournaledThreadRunStore):
    """Threads, messages, runs and run journals as files; sub-stores ``profiles``, ``config``,
    ``mailbox`` share the directory."""

    def __init__(self, base: str | Path) -> None:
        super().__init__(base)
        self.profiles = FileProfileStore(self._db)
        self.config = FileConfigStore(self._db)
        self.mailbox = FileMailboxStore(self._db)
        self._known = KnownLogs()

    def _thread_path(self, thread_id: str) -> Path:
        return self.base / "threads" / f"{validate_id('thread id', thread_id)}.json"

    def _messages_path(self, thread_id: str) -> Path:
        return self.base / "messages" / f"{validate_id('thread id', thread_id)}.json"

    def _run_path(self, run_id: str) -> Path:
        return self.base / "runs" / f"{validate_id('run id', run_id)}.json"

    def _head_path(self, thread_id: str) -> Path:
        return self.base / "heads" / f"{validate_id('thread id', thread_id)}.json"

    def _message_writes(
        self, thread_id: str, messages: list[Message], *, replace: bool = False
    ) -> tuple[list[tuple[Path, bytes]], list[_Splice], LogWrite]:
        """The file writes storing ``messages`` as the thread's list (call with the write lock):
        a splice of the new ones before the array's closing ``]`` when they only extend the
        stored list, nothing when nothing changed, else the whole file."""
        path, head_path = self._messages_path(thread_id), self._head_path(thread_id)
        stored = None if replace else _read(head_path, MessageHead)
        plan = self._known.plan(thread_id, stored, messages)
        files: list[tuple[Path, bytes]] = []
        splices: list[_Splice] = []
        if not plan.head_changed:
            return files, splices, plan
        size = path.stat().st_size if path.exists() else 0
        appends = stored is not None and plan.start == stored.count and plan.start > 0
        if appends and size >= 2 and _last_byte(path, size) == b"]":
            joined = b",".join(encode(m) for m in messages[plan.start :])
            splices.append(_Splice(path, size - 1, b"]", b"," + joined + b"]"))
        else:
            files.append((path, encode(messages)))
        files.append((head_path, encode(plan.head)))
        return files, splices, plan

    def _all_runs(self) -> list[RunRecord]:
        runs = [_read(p, RunRecord) for p in _json_files(self.base / "runs")]
        return [r for r in runs if r is not None]

    # ------------------------------------------------------------------ threads
    async def load_thread(self, thread_id: str) -> Thread | None:
        path = self._thread_path(thread_id)
        return await self._db.run(lambda: _read(path, Thread))

    async def save_thread(self, thread: Thread) -> None:
        path, data = self._thread_path(thread.id), _pretty_json(thread)

        await self._db.run_locked(lambda: _atomic_write(path, data))

    async def delete_thread(self, thread_id: str) -> None:
        paths = (
            self._thread_path(thread_id),
            self._messages_path(thread_id),
            self._head_path(thread_id),
        )

        def delete() -> None:
            for path in paths:
                path.unlink(missing_ok=True)

        self._known.forget(thread_id)
        await self._db.run_locked(delete)

    async def list_threads(self, offset: int, limit: int) -> list[str]:
        def scan() -> list[str]:
            threads = [_read(p, Thread) for p in _json_files(self.base / "threads")]
            return sort_thread_ids((t for t in threads if t is not None), offset, limit)

        return await self._db.run(scan)

    async def load_messages(self, thread_id: str) -> list[Message] | None:
        path, head_path = self._messages_path(thread_id), self._head_path(thread_id)

        def load() -> tuple[list[Message] | None, MessageHead | None]:
            return _read(path, list[Message]), _read(head_path, MessageHead)

        messages, head = await self._db.run(load)
        if messages is not None and head is not None and head.count == len(messages):
            self._known.remember_loaded(thread_id, messages, head)
        return messages

    async def save_messages(self, thread_id: str, messages: list[Message]) -> None:
        self._known.forget(thread_id)

        def save() -> LogWrite:
            _recover(self.base)
            files, splices, plan = self._message_writes(thread_id, messages, replace=True)
            commit_files(self.base, files, splices)
            return plan

        plan = await self._db.run_locked(save)
        self._known.remember(thread_id, messages, plan.head)

    async def delete_messages(self, thread_id: str) -> None:
        thread_path, path = self._thread_path(thread_id), self._messages_path(thread_id)
        head_path = self._head_path(thread_id)

        def delete() -> None:
            require_thread(_read(thread_path, Thread), thread_id)
            path.unlink(missing_ok=True)
            head_path.unlink(missing_ok=True)

        self._known.forget(thread_id)
        await self._db.run_locked(delete)

    async def update_thread_metadata(self, thread_id: str, metadata: ThreadMetadata) -> None:
        path = self._thread_path(thread_id)

        def update() -> None:
            thread = require_thread(_read(path, Thread), thread_id)
            thread.metadata = metadata
            _atomic_write(path, _pretty_json(thread))

        await self._db.run_locked(update)

    # ------------------------------------------------------------------ runs
    async def create_run(self, record: RunRecord) -> None:
        path, data = self._run_path(record.run_id), _pretty_json(record)

        def create() -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                raise AlreadyExists(record.run_id) from None
            os.close(fd)
            try:
                _atomic_write(path, data)
            except BaseException:
                path.unlink(missing_ok=True)
                raise

        await self._db.run_locked(create)

    async def load_run(self, run_id: str) -> RunRecord | None:
        path = self._run_path(run_id)
        return await self._db.run(lambda: _read(path, RunRecord))

    async def latest_run(self, thread_id: str) -> RunRecord | None:
        def scan() -> RunRecord | None:
            runs = [r for r in self._all_runs() if r.thread_id == thread_id]
            return max(runs, key=lambda r: r.updated_at) if runs else None

        return await self._db.run(scan)

    async def list_runs(self, query: RunQuery) -> RunPage:
        return await self._db.run(lambda: query.page(self._all_runs()))

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
        thread_path = self._thread_path(thread_id)
        run_path = self._run_path(run.run_id)
        run_data = _pretty_json(run)
        records = list(records)

        def commit() -> tuple[LogWrite, list[JournalEntry]]:
            _recover(self.base)
            thread = checkpoint_thread(_read(thread_path, Thread), thread_id, run)
            files, splices, plan = self._message_writes(thread_id, messages)
            journal, entries = self._journal_splice(run.run_id, records, expected_last_seq)
            files = [(thread_path, _pretty_json(thread)), *files, (run_path, run_data)]
            commit_files(self.base, files, splices if journal is None else [*splices, journal])
            return plan, entries

        plan, entries = await self._db.run_locked(commit)
        self._known.settle(thread_id, messages, plan.head, run.status is RunStatus.DONE)
        if entries:
            self._db.journal_hub.notify(run.run_id)
        return entries

    # ------------------------------------------------------------------ retention
    async def prune(self, policy: RetentionPolicy, *, now_secs: int | None = None) -> PruneReport:
        now = _now_secs() if now_secs is None else now_secs

        def prune() -> PruneReport:
            runs = self._all_runs()
            summaries = [RunSummary(r.run_id, r.thread_id, r.status, r.updated_at) for r in runs]
            report = PruneReport()
            for run_id in select_prunable(summaries, policy, now):
                report.journal_entries_deleted += len(self._entries(run_id))
                self._journal_path(run_id).unlink(missing_ok=True)
                self._run_path(run_id).unlink()
                report.runs_deleted += 1
            return report

        return await self._db.run_locked(prune)
