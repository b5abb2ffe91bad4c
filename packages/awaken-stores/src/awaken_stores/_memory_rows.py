"""What ``InMemoryStore`` keeps: runs, journal entries and messages as encoded JSON rows.

Encoding a value when it is written is the one check that it is storable (what a durable
store could not persist raises ``SerializationError``) and the one copy: the store keeps the
bytes, never the caller's objects, so nothing a caller holds — what it passed, or what a read
returned (each read decodes a fresh value) — can change the store. Bytes are also invisible to
the cyclic GC, so a store holding many runs does not make every collection slower. The few
fields queries look at (a run's thread, status and timestamps; an entry's kind) are kept next
to the bytes, so ``latest_run``, ``list_runs`` and journal reads decode only what they return.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec
from awaken_contract.contract.journal import JournalEntry, JournalKind, kind_of
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import RunRecord

from awaken_stores._codec import decode, encode

__all__ = ["RunRow", "RunTable", "StoredEntry", "decode_entries", "decode_messages"]


class RunRow(msgspec.Struct, frozen=True, gc=False):
    """One stored run: its JSON and the keys queries filter and sort on."""

    run_id: str
    thread_id: str
    status: RunStatus
    created_at: int
    updated_at: int
    data: bytes

    @classmethod
    def of(cls, run: RunRecord) -> RunRow:
        """The row storing ``run`` (``SerializationError`` when it cannot be stored)."""
        data = encode(run)
        return cls(run.run_id, run.thread_id, run.status, run.created_at, run.updated_at, data)

    def load(self) -> RunRecord:
        """A fresh copy of the stored run."""
        run: RunRecord = decode(self.data, RunRecord)
        return run


class StoredEntry(msgspec.Struct, frozen=True, gc=False):
    """One stored journal entry: its kind and the entry's JSON."""

    kind: JournalKind
    data: bytes

    @classmethod
    def of(cls, entry: JournalEntry) -> StoredEntry:
        """The row storing ``entry`` (``SerializationError`` when it cannot be stored)."""
        return cls(kind_of(entry.record), encode(entry))


def _join(parts: Iterable[bytes]) -> bytes:
    return b"[" + b",".join(parts) + b"]"


def decode_entries(rows: Sequence[StoredEntry]) -> list[JournalEntry]:
    """Fresh copies of the stored entries (one decode call for all of them)."""
    if not rows:
        return []
    entries: list[JournalEntry] = decode(_join(r.data for r in rows), list[JournalEntry])
    return entries


def decode_messages(rows: Sequence[bytes]) -> list[Message]:
    """Fresh copies of the stored messages (one decode call for all of them)."""
    messages: list[Message] = decode(_join(rows), list[Message])
    return messages


class RunTable(dict[str, RunRow]):
    """Run rows by id that also index their ids per thread, so ``latest_run`` looks at one
    thread's runs instead of every stored run (writes go through ``[]=``, ``del`` and ``pop``)."""

    def __init__(self) -> None:
        super().__init__()
        self.by_thread: dict[str, dict[str, None]] = {}

    def __setitem__(self, run_id: str, row: RunRow) -> None:
        old = self.get(run_id)
        if old is not None and old.thread_id != row.thread_id:
            self._unindex(old)
        super().__setitem__(run_id, row)
        self.by_thread.setdefault(row.thread_id, {})[run_id] = None

    def __delitem__(self, run_id: str) -> None:
        self._unindex(self[run_id])
        super().__delitem__(run_id)

    def pop(self, run_id: str, *default: Any) -> Any:
        row = self.get(run_id)
        if row is not None:
            self._unindex(row)
        return super().pop(run_id, *default)

    def _unindex(self, row: RunRow) -> None:
        ids = self.by_thread.get(row.thread_id)
        if ids is not None:
            ids.pop(row.run_id, None)
            if not ids:
                del self.by_thread[row.thread_id]

    def latest(self, thread_id: str) -> RunRow | None:
        """The most recently updated run of ``thread_id`` (the first stored among equals)."""
        rows = [self[run_id] for run_id in self.by_thread.get(thread_id, ())]
        return max(rows, key=lambda r: r.updated_at) if rows else None
