"""Threads: the ``Thread`` record, its metadata and the checkpoint projection of a run onto it.

Timestamps: thread metadata is unix **milliseconds**."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.run_record import RunRecord
from awaken_contract.errors import StorageNotFound
from awaken_contract.ids import new_id, now_ms

# Enum members read on the hot path, as module constants (Python 3.11 routes every
# ``Enum.MEMBER`` lookup through ``EnumType.__getattr__``).
_CREATED = RunStatus.CREATED
_WAITING = RunStatus.WAITING
_RUNNING = RunStatus.RUNNING

__all__ = [
    "Thread",
    "ThreadMetadata",
    "checkpoint_thread",
    "require_thread",
    "sort_thread_ids",
]


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
        status = run.status
        if status is _CREATED or status is _WAITING:
            self.active_run_id = None
            self.open_run_id = run.run_id
        elif status is _RUNNING:
            self.active_run_id = run.run_id
            self.open_run_id = run.run_id
        else:
            if self.active_run_id == run.run_id:
                self.active_run_id = None
            if self.open_run_id == run.run_id:
                self.open_run_id = None


def checkpoint_thread(
    existing: Thread | None, thread_id: str, run: RunRecord, now: int | None = None
) -> Thread:
    """The thread a checkpoint writes: loaded or created, timestamps stamped (``now``, default
    the current time), projection applied."""
    if existing is None:
        thread = Thread(id=thread_id)  # (its metadata is fresh: nothing to copy)
    else:
        thread = msgspec.structs.replace(existing)
        meta = thread.metadata
        thread.metadata = msgspec.structs.replace(meta, custom=dict(meta.custom))
    if now is None:
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


def require_thread(thread: Thread | None, thread_id: str) -> Thread:
    """Return ``thread`` or raise ``StorageNotFound(thread_id)``."""
    if thread is None:
        raise StorageNotFound(thread_id)
    return thread
