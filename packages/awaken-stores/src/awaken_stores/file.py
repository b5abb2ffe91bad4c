"""File stores: JSON files under one directory, atomic writes, a rollback journal for checkpoints.

Layout (directories are created on first write; constructing the store creates nothing)::

    <base>/threads/<thread_id>.json        Thread
    <base>/messages/<thread_id>.json       [Message]
    <base>/heads/<thread_id>.json          MessageHead of the stored message list
    <base>/runs/<run_id>.json              RunRecord
    <base>/journal/<run_id>.jsonl          JournalEntry per line (seq = line number)
    <base>/profiles/<owner>/<key>.json     ProfileEntry (owner ``system``, ``agent_<name>``,
                                           ``user@<id>`` or ``agent@<name>@user@<id>``)
    <base>/config/<namespace>/<id>.json    config document
    <base>/mailbox/state.json              mailbox generations and jobs
    <base>/.checkpoint_pending             checkpoint journal (only during/after a crash)

Every write goes to a temp file in the target's directory, is fsynced and renamed over the
target, or is a *splice*: bytes appended in place at an offset (new messages replace the closing
``]`` of the message array; journal lines are appended). A checkpoint stages its files, records a
rollback journal (with the old size and tail of every spliced file), swaps and splices, and
deletes the journal; a crash in between is rolled back by the next ``FileStore`` opened on the
directory. So a step writes only its new messages and journal entries, however long the history.
Thread/run ids, config namespaces and ids are validated so no id can escape the directory.
Operations run on one worker thread per store and take an exclusive ``fcntl`` lock on
``<base>/.lock`` while writing, so several processes can share a directory.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import shutil
import threading
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import msgspec
from awaken_contract.contract.journal import (
    JournaledThreadRunStore,
    JournalEntry,
    JournalKind,
    JournalRecord,
    JournalSubscription,
)
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.mailbox import MailboxJob
from awaken_contract.contract.message import Message
from awaken_contract.contract.retention import (
    PruneReport,
    RetentionPolicy,
    RunSummary,
    select_prunable,
)
from awaken_contract.contract.storage import (
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
from awaken_contract.errors import (
    AlreadyExists,
    SerializationError,
    StorageIoError,
    VersionConflict,
)
from awaken_contract.ids import new_id, now_ms
from awaken_contract.ids import now_secs as _now_secs

from awaken_stores._codec import decode, encode
from awaken_stores._ids import validate_id
from awaken_stores._journal_local import hub_for, select_entries
from awaken_stores._mailbox_queries import LocalMailboxQueries
from awaken_stores._message_log import KnownLogs, LogWrite, MessageHead
from awaken_stores._paging import page
from awaken_stores.mailbox_engine import MailboxEngine, MailboxTxn

__all__ = [
    "FileConfigStore",
    "FileMailboxStore",
    "FileProfileStore",
    "FileStore",
    "validate_id",
]

T = TypeVar("T")

JOURNAL = ".checkpoint_pending"


def _encode_name(name: str) -> str:
    """A reversible, path-safe file name for free-form names (profile owners and keys)."""
    encoded = quote(name, safe="-_")
    return encoded if encoded else "%"


def _pretty_json(value: Any) -> bytes:
    return msgspec.json.format(encode(value), indent=2)


# --------------------------------------------------------------------------- low-level file ops


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _stage(target: Path, data: bytes) -> Path:
    """Write ``data`` to a fsynced temp file next to ``target`` and return its path."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".{target.stem}.{new_id().replace('-', '')}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _atomic_write(target: Path, data: bytes) -> None:
    tmp = _stage(target, data)
    try:
        os.replace(tmp, target)
        _fsync_dir(target.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _read(path: Path, type_: type[T]) -> T | None:
    """Decode a JSON file; ``None`` when missing."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StorageIoError(f"{path}: {exc}") from exc
    try:
        value: T = decode(data, type_)
    except SerializationError as exc:
        raise SerializationError(f"{path}: {exc.message}") from exc
    return value


def _last_byte(path: Path, size: int) -> bytes:
    with open(path, "rb") as fh:
        fh.seek(size - 1)
        return fh.read(1)


def _read_any(path: Path) -> Any:
    """A JSON document of any shape; ``None`` when missing."""
    return _read(path, object)


def _json_files(directory: Path) -> list[Path]:
    """``*.json`` files of a directory (temp and backup files are dot-files and skipped)."""
    try:
        return sorted(
            p for p in directory.iterdir() if p.suffix == ".json" and not p.name.startswith(".")
        )
    except FileNotFoundError:
        return []


def _recover(base: Path) -> None:
    """Roll back a checkpoint interrupted mid-commit (no-op without a journal)."""
    journal = base / JOURNAL
    if not journal.exists():
        return
    try:
        pending = json.loads(journal.read_text())
        writes, splices = pending["writes"], pending.get("splices", [])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        journal.unlink(missing_ok=True)
        return
    for splice in reversed(splices):
        _undo_splice(base / splice["target"], splice["offset"], splice["tail"].encode())
    for write in reversed(writes):
        target, tmp, backup = (base / write[k] for k in ("target", "tmp", "backup"))
        if write["had_target"] and backup.exists():
            os.replace(backup, target)
        elif not write["had_target"] and target.exists():
            target.unlink()
        elif backup.exists():
            backup.unlink()
        tmp.unlink(missing_ok=True)
        _fsync_dir(target.parent)
    journal.unlink(missing_ok=True)
    _fsync_dir(base)


def _undo_splice(target: Path, offset: int, tail: bytes) -> None:
    """Cut ``target`` back to ``offset`` and restore the ``tail`` bytes it had there (a file
    that did not exist, offset 0 and no tail, is removed)."""
    if not target.exists():
        return
    if offset == 0 and not tail:
        target.unlink()
    else:
        with open(target, "r+b") as fh:
            fh.truncate(offset)
            fh.seek(offset)
            fh.write(tail)
            fh.flush()
            os.fsync(fh.fileno())
    _fsync_dir(target.parent)


def _splice(target: Path, offset: int, data: bytes) -> None:
    """Write ``data`` at ``offset`` (creating the file), cut anything after it, fsync."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "r+b" if target.exists() else "wb") as fh:
        fh.seek(offset)
        fh.write(data)
        fh.truncate()
        fh.flush()
        os.fsync(fh.fileno())


class _Splice(msgspec.Struct, frozen=True):
    """Bytes to write at ``offset`` of ``target``; ``tail`` is what the file held from there."""

    target: Path
    offset: int
    tail: bytes
    data: bytes


class _FileDb:
    """The base directory, its worker thread and its cross-process write lock."""

    def __init__(self, base: str | Path) -> None:
        self.base = Path(base)
        self._executor: ThreadPoolExecutor | None = None
        self._lock_fd: int | None = None
        self._lock_depth = 0
        self._thread_lock = threading.RLock()
        self.journal_hub = hub_for(str(self.base.resolve()))
        if (self.base / JOURNAL).exists():
            with self.write_lock():
                _recover(self.base)
        for sub in ("threads", "messages", "heads", "runs"):
            for orphan in (self.base / sub).glob(".*.bak") if (self.base / sub).is_dir() else ():
                orphan.unlink(missing_ok=True)

    async def run(self, fn: Callable[[], T]) -> T:
        """Run blocking file work on the store's worker thread; OS errors become Io errors."""
        loop = asyncio.get_running_loop()
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="awaken-file")
        try:
            return await loop.run_in_executor(self._executor, fn)
        except OSError as exc:
            raise StorageIoError(str(exc)) from exc

    async def run_locked(self, fn: Callable[[], T]) -> T:
        """:meth:`run` ``fn`` while holding the write lock."""

        def locked() -> T:
            with self.write_lock():
                return fn()

        return await self.run(locked)

    @contextmanager
    def write_lock(self) -> Iterator[None]:
        """Exclusive lock on ``<base>/.lock`` (re-entrant within the process)."""
        with self._thread_lock:
            if self._lock_depth == 0:
                self.base.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.base / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
                fcntl.flock(fd, fcntl.LOCK_EX)
                self._lock_fd = fd
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
                if self._lock_depth == 0 and self._lock_fd is not None:
                    fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
                    os.close(self._lock_fd)
                    self._lock_fd = None

    def close(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)


class _FileBacked:
    def __init__(self, base: str | Path | _FileDb) -> None:
        self._db = base if isinstance(base, _FileDb) else _FileDb(base)
        self.base = self._db.base

    async def close(self) -> None:
        """Stop the worker thread (a later operation starts a new one)."""
        await asyncio.get_running_loop().run_in_executor(None, self._db.close)


# --------------------------------------------------------------------------- threads and runs


class FileStore(_FileBacked, JournaledThreadRunStore):
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

    def _journal_path(self, run_id: str) -> Path:
        return self.base / "journal" / f"{validate_id('run id', run_id)}.jsonl"

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

    def _journal_splice(
        self, run_id: str, records: Sequence[JournalRecord], expected_last_seq: int | None
    ) -> tuple[_Splice | None, list[JournalEntry]]:
        """The append of ``records`` to the run's journal file (call with the write lock)."""
        path = self._journal_path(run_id)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        last = data.count(b"\n")
        if expected_last_seq is not None and expected_last_seq != last:
            raise VersionConflict(expected_last_seq, last)
        if not records:
            return None, []
        now = now_ms()
        entries = [
            JournalEntry(run_id=run_id, seq=last + i + 1, created_at=now, record=record)
            for i, record in enumerate(records)
        ]
        lines = b"".join(encode(e) + b"\n" for e in entries)
        return _Splice(path, len(data), b"", lines), entries

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
            self._commit(files, splices)
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
            self._commit(files, splices if journal is None else [*splices, journal])
            return plan, entries

        plan, entries = await self._db.run_locked(commit)
        self._known.settle(thread_id, messages, plan.head, run.status is RunStatus.DONE)
        if entries:
            self._db.journal_hub.notify(run.run_id)
        return entries

    # ------------------------------------------------------------------ journal
    async def append(
        self,
        run_id: str,
        records: Sequence[JournalRecord],
        *,
        expected_last_seq: int | None = None,
    ) -> list[JournalEntry]:
        records = list(records)
        self._journal_path(run_id)  # validate the id before any I/O

        def commit() -> list[JournalEntry]:
            _recover(self.base)
            journal, entries = self._journal_splice(run_id, records, expected_last_seq)
            if journal is not None:
                self._commit([], [journal])
            return entries

        entries = await self._db.run_locked(commit)
        if entries:
            self._db.journal_hub.notify(run_id)
        return entries

    def _entries(self, run_id: str) -> list[JournalEntry]:
        try:
            data = self._journal_path(run_id).read_bytes()
        except FileNotFoundError:
            return []
        return [decode(line, JournalEntry) for line in data.splitlines() if line]

    async def read(
        self,
        run_id: str,
        *,
        after_seq: int = 0,
        kinds: Collection[JournalKind] | None = None,
        limit: int | None = None,
    ) -> list[JournalEntry]:
        entries = await self._db.run(lambda: self._entries(run_id))
        return select_entries(entries, after_seq, kinds, limit)

    async def last_seq(self, run_id: str) -> int:
        path = self._journal_path(run_id)

        def count() -> int:
            try:
                return path.read_bytes().count(b"\n")
            except FileNotFoundError:
                return 0

        return await self._db.run(count)

    def subscribe(self, run_id: str) -> JournalSubscription:
        """In-process notification: appends through any ``FileStore`` of this process on the
        same directory wake the subscriber; other processes are seen by ``follow``'s poll."""
        return self._db.journal_hub.subscribe(run_id)

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

    def _commit(self, files: list[tuple[Path, bytes]], splices: Sequence[_Splice] = ()) -> None:
        """Swap in several files and splice others at once through the rollback journal (see
        module docs)."""
        staged: list[Path] = []
        try:
            for target, data in files:
                staged.append(_stage(target, data))
        except BaseException:
            for tmp in staged:
                tmp.unlink(missing_ok=True)
            raise
        tx_id = new_id().replace("-", "")
        writes: list[dict[str, Any]] = [
            {
                "target": str(target.relative_to(self.base)),
                "tmp": str(tmp.relative_to(self.base)),
                "backup": str(
                    (target.parent / f".{target.name}.{tx_id}.bak").relative_to(self.base)
                ),
                "had_target": target.exists(),
            }
            for (target, _), tmp in zip(files, staged, strict=True)
        ]
        undo = [
            {
                "target": str(splice.target.relative_to(self.base)),
                "offset": splice.offset,
                "tail": splice.tail.decode(),
            }
            for splice in splices
        ]
        journal = self.base / JOURNAL
        try:
            _atomic_write(journal, json.dumps({"writes": writes, "splices": undo}).encode())
            for write in writes:
                target = self.base / write["target"]
                if write["had_target"]:
                    os.replace(target, self.base / write["backup"])
                os.replace(self.base / write["tmp"], target)
            for splice in splices:
                _splice(splice.target, splice.offset, splice.data)
            touched = [self.base / w["target"] for w in writes] + [s.target for s in splices]
            for directory in {path.parent for path in touched}:
                _fsync_dir(directory)
            journal.unlink()
            _fsync_dir(self.base)
        except Exception:
            _recover(self.base)
            for tmp in staged:
                tmp.unlink(missing_ok=True)
            raise
        for write in writes:
            with suppress(OSError):
                (self.base / write["backup"]).unlink(missing_ok=True)


# --------------------------------------------------------------------------- profiles and config


class FileProfileStore(_FileBacked, ProfileStore):
    """Profile entries as ``profiles/<owner>/<key>.json`` (names percent-encoded)."""

    def _owner_dir(self, owner: ProfileOwner) -> Path:
        # encoded names never hold "@", so the user forms cannot collide with "agent_<name>"
        agent = None if owner.agent_name is None else _encode_name(owner.agent_name)
        if owner.user_id is not None:
            user = _encode_name(owner.user_id)
            name = f"user@{user}" if agent is None else f"agent@{agent}@user@{user}"
        else:
            name = "system" if agent is None else f"agent_{agent}"
        return self.base / "profiles" / name

    def _path(self, owner: ProfileOwner, key: str) -> Path:
        return self._owner_dir(owner) / f"{_encode_name(key)}.json"

    async def get(self, owner: ProfileOwner, key: str) -> ProfileEntry | None:
        path = self._path(owner, key)
        return await self._db.run(lambda: _read(path, ProfileEntry))

    async def set(self, owner: ProfileOwner, key: str, value: Any) -> None:
        path = self._path(owner, key)
        data = _pretty_json(ProfileEntry(key=key, value=value, updated_at=now_ms()))

        await self._db.run_locked(lambda: _atomic_write(path, data))

    async def delete(self, owner: ProfileOwner, key: str) -> None:
        path = self._path(owner, key)

        await self._db.run_locked(lambda: path.unlink(missing_ok=True))

    async def list(self, owner: ProfileOwner) -> list[ProfileEntry]:
        directory = self._owner_dir(owner)

        def scan() -> list[ProfileEntry]:
            entries = [_read(p, ProfileEntry) for p in _json_files(directory)]
            return sorted((e for e in entries if e is not None), key=lambda e: e.key)

        return await self._db.run(scan)

    async def clear_owner(self, owner: ProfileOwner) -> None:
        directory = self._owner_dir(owner)

        await self._db.run_locked(lambda: shutil.rmtree(directory, ignore_errors=True))


class FileConfigStore(_FileBacked, ConfigStore):
    """Config documents as ``config/<namespace>/<id>.json``."""

    def _dir(self, namespace: str) -> Path:
        return self.base / "config" / validate_id("config namespace", namespace)

    def _path(self, namespace: str, id: str) -> Path:
        return self._dir(namespace) / f"{validate_id('config id', id)}.json"

    async def get(self, namespace: str, id: str) -> Any | None:
        path = self._path(namespace, id)
        return await self._db.run(lambda: _read_any(path))

    async def list(self, namespace: str, offset: int, limit: int) -> list[tuple[str, Any]]:
        directory = self._dir(namespace)

        def scan() -> list[tuple[str, Any]]:
            paths = sorted(_json_files(directory), key=lambda p: p.stem)
            return [(p.stem, _read_any(p)) for p in page(paths, offset, limit)]

        return await self._db.run(scan)

    async def put(self, namespace: str, id: str, value: Any) -> None:
        path, data = self._path(namespace, id), _pretty_json(value)

        await self._db.run_locked(lambda: _atomic_write(path, data))

    async def delete(self, namespace: str, id: str) -> None:
        path = self._path(namespace, id)

        await self._db.run_locked(lambda: path.unlink(missing_ok=True))


# --------------------------------------------------------------------------- mailbox


class _MailboxState(msgspec.Struct):
    generations: dict[str, int] = msgspec.field(default_factory=dict)
    jobs: dict[str, MailboxJob] = msgspec.field(default_factory=dict)


class FileMailboxStore(_FileBacked, LocalMailboxQueries, MailboxEngine):
    """Mailbox jobs in ``mailbox/state.json``, rewritten atomically by every transaction under
    the directory's exclusive lock (simple and durable; meant for modest job volumes)."""

    def __init__(self, base: str | Path | _FileDb) -> None:
        super().__init__(base)
        self._lock = asyncio.Lock()

    @property
    def _path(self) -> Path:
        return self.base / "mailbox" / "state.json"

    def _load(self) -> _MailboxState:
        return _read(self._path, _MailboxState) or _MailboxState()

    async def _state(self) -> _MailboxState:
        return await self._db.run(self._load)

    @asynccontextmanager
    async def _transaction(
        self, mailbox_id: str, job_id: str | None = None
    ) -> AsyncIterator[MailboxTxn]:
        async with self._lock:
            lock = self._db.write_lock()
            await self._db.run(lock.__enter__)
            try:
                state = await self._db.run(self._load)
                jobs = [
                    j
                    for j in state.jobs.values()
                    if j.mailbox_id == mailbox_id and (j.job_id == job_id or not j.is_terminal)
                ]
                txn = MailboxTxn(mailbox_id, state.generations.get(mailbox_id, 0), jobs)
                yield txn
                if txn.generation != txn.initial_generation or txn.changed_jobs():
                    state.generations[mailbox_id] = txn.generation
                    for job in txn.changed_jobs():
                        state.jobs[job.job_id] = job
                    data = encode(state)
                    await self._db.run(lambda: _atomic_write(self._path, data))
            finally:
                await self._db.run(lambda: lock.__exit__(None, None, None))

    async def _all_jobs(self) -> dict[str, MailboxJob]:
        return (await self._state()).jobs

    async def current_generation(self, mailbox_id: str) -> int:
        return (await self._state()).generations.get(mailbox_id, 0)

    async def purge_terminal(self, older_than: int) -> int:
        async with self._lock:

            def purge() -> int:
                state = self._load()
                doomed = [
                    i for i, j in state.jobs.items() if j.is_terminal and j.updated_at < older_than
                ]
                for job_id in doomed:
                    del state.jobs[job_id]
                if doomed:
                    _atomic_write(self._path, encode(state))
                return len(doomed)

            return await self._db.run_locked(purge)
