"""Run journals in the ``awaken_journal`` table (seq = MAX(seq) + 1 under the write lock)."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence
from typing import Any

from awaken_contract.contract.journal import (
    JournalEntry,
    JournalKind,
    JournalRecord,
    JournalSubscription,
)

from awaken_stores._codec import decode, encode_str
from awaken_stores._journal_local import entries_after
from awaken_stores.sqlite.connection import _one, _SqliteBacked, insert_rows


def _append_journal(
    c: sqlite3.Connection,
    run_id: str,
    records: Sequence[JournalRecord],
    expected_last_seq: int | None,
    last: int | None = None,
) -> list[JournalEntry]:
    """Append ``records`` after the journal's last seq (``last`` when the caller read it in
    this transaction)."""
    if not records and expected_last_seq is None:
        return []
    if last is None:
        last = int(_one(c, "SELECT MAX(seq) FROM awaken_journal WHERE run_id = ?", (run_id,)) or 0)
    entries = entries_after(run_id, records, last, expected_last_seq=expected_last_seq)
    insert_rows(
        c,
        "INSERT INTO awaken_journal",
        [(run_id, e.seq, e.kind.value, e.created_at, encode_str(e.record)) for e in entries],
    )
    return entries


class SqliteJournal(_SqliteBacked):
    """The journal half of ``SqliteStore`` (append, read, last seq, subscriptions)."""

    async def append(
        self,
        run_id: str,
        records: Sequence[JournalRecord],
        *,
        expected_last_seq: int | None = None,
    ) -> list[JournalEntry]:
        records = list(records)
        entries = await self._db.write(
            lambda c: _append_journal(c, run_id, records, expected_last_seq)
        )
        if entries:
            self._db.journal_hub.notify(run_id)
        return entries

    async def read(
        self,
        run_id: str,
        *,
        after_seq: int = 0,
        kinds: Collection[JournalKind] | None = None,
        limit: int | None = None,
    ) -> list[JournalEntry]:
        params: list[Any] = [run_id, after_seq]
        clause = ""
        if kinds is not None:
            wanted = sorted({JournalKind(k).value for k in kinds})
            clause = f" AND kind IN ({','.join('?' * len(wanted))})"
            params += wanted
        params.append(-1 if limit is None else max(limit, 0))
        rows = await self._db.run(
            lambda c: c.execute(
                "SELECT seq, created_at, data FROM awaken_journal WHERE run_id = ? AND seq > ?"
                f"{clause} ORDER BY seq LIMIT ?",
                tuple(params),
            ).fetchall()
        )
        return [
            JournalEntry(run_id, int(r[0]), int(r[1]), decode(r[2], JournalRecord)) for r in rows
        ]

    async def last_seq(self, run_id: str) -> int:
        value = await self._db.peek(
            lambda c: _one(c, "SELECT MAX(seq) FROM awaken_journal WHERE run_id = ?", (run_id,))
        )
        return int(value or 0)

    def subscribe(self, run_id: str) -> JournalSubscription:
        """Appends through any ``SqliteStore`` of this process on the same file wake the
        subscriber at once; commits by other processes within ~0.1 s (``PRAGMA data_version``
        is checked while anyone is subscribed)."""
        return self._db.journal_watch.subscribe(run_id)
