"""Run journals as ``journal/<run_id>.jsonl`` (one ``JournalEntry`` per line, seq = line number)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from awaken_contract.contract.journal import (
    JournalEntry,
    JournalKind,
    JournalRecord,
    JournalSubscription,
)

from awaken_stores._codec import decode, encode
from awaken_stores._ids import validate_id
from awaken_stores._journal_local import entries_after, select_entries
from awaken_stores.file.db import _FileBacked
from awaken_stores.file.rollback import _recover, _Splice, commit_files


class FileJournal(_FileBacked):
    """The journal half of ``FileStore`` (append, read, last seq, subscriptions)."""

    def _journal_path(self, run_id: str) -> Path:
        return self.base / "journal" / f"{validate_id('run id', run_id)}.jsonl"

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
        entries = entries_after(run_id, records, last, expected_last_seq=expected_last_seq)
        if not entries:
            return None, []
        lines = b"".join(encode(e) + b"\n" for e in entries)
        return _Splice(path, len(data), b"", lines), entries

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
                commit_files(self.base, [], [journal])
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
        entries: list[JournalEntry] = decode(
            b"[" + b",".join(line for line in data.splitlines() if line) + b"]", list[JournalEntry]
        )
        return entries

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
        """Appends through any ``FileStore`` of this process on the same directory wake the
        subscriber at once; commits by other processes within ~0.1 s (the base directory's
        modification time is checked while anyone is subscribed)."""
        return self._db.journal_watch.subscribe(run_id)
