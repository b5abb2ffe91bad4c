"""What ``InMemoryStore`` keeps: runs, journal entries and messages as encoded JSON rows.

Encoding a value when it is written is the one check that it is storable (what a durable
store could not persist raises ``SerializationError``) and the one copy: the store keeps the
bytes, never the caller's objects, so nothing a caller holds — what it passed, or what a read
returned (each read decodes a fresh value) — can change the store. Bytes are also invisible to
the cyclic GC, so a store holding many runs does not make every collection slower. The few
fields queries look at (a run's thread, status and timestamps; a journal batch's seqs) are kept
next to the bytes, so ``latest_run``, ``list_runs`` and journal reads decode only what they
return (the records of journal entries appended together are encoded, and decoded, as one
array; the batch keeps their run id, first seq and stamp once).
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable, Sequence
from typing import Any

import msgspec
from awaken_contract.contract.journal import JournalEntry, JournalKind, JournalRecord
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import RunRecord

from awaken_stores._codec import decode, encode, encode_many
from awaken_stores._journal_local import entries_after, select_entries

__all__ = [
    "EntryBatch",
    "RunRow",
    "RunTable",
    "decode_messages",
    "encode_each",
    "journal_length",
    "read_batches",
    "stage_entries",
]


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


class EntryBatch(msgspec.Struct, frozen=True, gc=False):
    """Journal entries appended together: seqs ``first_seq …`` of run ``run_id``, all stamped
    ``created_at``; ``data`` is the JSON array of their records (the envelope fields are the
    same for the whole batch, so they are kept once, not per entry)."""

    run_id: str
    first_seq: int
    last_seq: int
    created_at: int
    data: bytes

    @property
    def count(self) -> int:
        """How many entries the batch holds."""
        return self.last_seq - self.first_seq + 1


def stage_entries(
    run_id: str,
    batches: Sequence[EntryBatch] | None,
    records: Sequence[JournalRecord],
    expected_last_seq: int | None,
    now: int,
) -> tuple[list[JournalEntry], EntryBatch | None]:
    """The entries appending ``records`` after the run's ``batches`` (returned to the caller:
    they hold its records) and their encoded batch, the one thing stored (``None`` for no
    records); ``VersionConflict`` / ``SerializationError`` before anything is written."""
    last = batches[-1].last_seq if batches else 0
    entries = entries_after(run_id, records, last, expected_last_seq=expected_last_seq, now=now)
    if not entries:
        return entries, None
    return entries, EntryBatch(run_id, last + 1, last + len(entries), now, encode(records))


def encode_each(messages: Sequence[Message], start: int) -> list[bytes]:
    """The rows of ``messages[start:]`` (``SerializationError`` when one cannot be stored)."""
    return encode_many(messages[start:] if start else messages)


def _join(parts: Iterable[bytes]) -> bytes:
    return b"[" + b",".join(parts) + b"]"


def journal_length(batches: Sequence[EntryBatch]) -> int:
    """The last seq of a run's journal (0 when empty)."""
    return batches[-1].last_seq if batches else 0


def read_batches(
    batches: Sequence[EntryBatch],
    after_seq: int,
    kinds: Collection[JournalKind] | None,
    limit: int | None,
) -> list[JournalEntry]:
    """Fresh copies of the entries ``read`` selects (the records of the batches holding seqs
    after ``after_seq`` are decoded in one call, then numbered and selected)."""
    first = bisect.bisect_right(batches, after_seq, key=lambda b: b.last_seq)
    if first == len(batches) or (limit is not None and limit <= 0):
        return []
    tail = batches[first:]
    records: list[JournalRecord] = decode(_join(b.data[1:-1] for b in tail), list[JournalRecord])
    entries: list[JournalEntry] = []
    at = 0
    for batch in tail:
        run_id, stamp, count = batch.run_id, batch.created_at, batch.count
        entries.extend(
            JournalEntry(run_id, seq, stamp, record)
            for seq, record in enumerate(records[at : at + count], batch.first_seq)
        )
        at += count
    return select_entries(entries, max(after_seq - tail[0].first_seq + 1, 0), kinds, limit)


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
        if old is None or old.thread_id != row.thread_id:
            if old is not None:
                self._unindex(old)
            ids = self.by_thread.get(row.thread_id)
            if ids is None:
                self.by_thread[row.thread_id] = {run_id: None}
            else:
                ids[run_id] = None
        dict.__setitem__(self, run_id, row)

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
