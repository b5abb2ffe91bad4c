"""SSE of a run from its journal: replay the committed events, then tail.

Used by ``GET /v1/runs/:id/events`` when the store keeps run journals, so the stream works after
a restart and from any instance. SSE ids are journal seqs. When this process executes the run,
the committed events before the current attempt come from the journal and the attempt's own
frames (deltas included) from its in-memory hub, whose ids continue the journal's seqs; elsewhere
the journal is followed (PostgreSQL: ``LISTEN/NOTIFY``; SQLite/file: within one host).

``Last-Event-ID`` greater than the last committed seq means the client saw events of an attempt
that never committed (its process died mid-step): the stream starts with an ``event: reset``
frame carrying ``{"last_seq": N}`` and continues after ``N`` (docs/durability.md).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator

from awaken_contract.contract.event import RunFinish, encode_event
from awaken_contract.contract.journal import EventRecord, JournaledThreadRunStore, JournalKind

from awaken_server.sse import RunEventHub, format_sse_data_with_id

__all__ = ["journal_frames", "reset_frame"]

_EVENTS = (JournalKind.EVENT,)


def reset_frame(last_seq: int) -> bytes:
    """The ``reset`` frame: resume after the last committed seq."""
    return b"event: reset\ndata: " + json.dumps({"last_seq": last_seq}).encode() + b"\n\n"


async def journal_frames(
    store: JournaledThreadRunStore,
    run_id: str,
    after: int | None,
    hub: RunEventHub | None,
    *,
    finished: bool = False,
    max_batch: int = 64,
) -> AsyncIterator[bytes]:
    """Encoded SSE frames of ``run_id`` after ``after`` until the next ``run_finish`` (for a
    ``finished`` run: until the journal's end)."""
    live = hub if hub is not None and not hub.closed and hub.first_seq > 0 else None
    last = await store.last_seq(run_id)
    cursor = after or 0
    if cursor > last and (live is None or cursor >= live.next_seq):
        yield reset_frame(last)
        cursor = last
    if live is not None and cursor < live.first_seq - 1:
        for entry in await store.read(run_id, after_seq=cursor, kinds=_EVENTS):
            if entry.seq >= live.first_seq:
                break
            assert isinstance(entry.record, EventRecord)
            yield format_sse_data_with_id(entry.seq, encode_event(entry.record.event))
            if isinstance(entry.record.event, RunFinish):
                return
        cursor = live.first_seq - 1
    if live is not None:
        async for chunk in live.stream(cursor, heartbeat=None, max_batch=max_batch):
            yield chunk
        return
    if finished:
        for entry in await store.read(run_id, after_seq=cursor, kinds=_EVENTS):
            assert isinstance(entry.record, EventRecord)
            yield format_sse_data_with_id(entry.seq, encode_event(entry.record.event))
            if isinstance(entry.record.event, RunFinish):
                return
        return
    async with contextlib.aclosing(store.follow(run_id, cursor)) as entries:
        async for entry in entries:
            record = entry.record
            if not isinstance(record, EventRecord):
                continue
            yield format_sse_data_with_id(entry.seq, encode_event(record.event))
            if isinstance(record.event, RunFinish):
                return
