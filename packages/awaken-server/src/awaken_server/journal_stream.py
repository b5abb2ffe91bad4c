"""A run's events from its journal: replay the committed events, then tail.

Used by ``GET /v1/runs/:id/events`` (:func:`journal_frames`) and by every protocol's resume
route (:func:`run_events`, re-encoded by the protocol) when the store keeps run journals, so
the streams work after a restart and from any instance. Ids are journal seqs. When this process
executes the run, the committed events before the current attempt come from the journal and the
attempt's own events (deltas included) from its in-memory hub, whose ids continue the journal's
seqs; elsewhere the journal is followed (PostgreSQL: ``LISTEN/NOTIFY``; SQLite and file
stores: a cheap cross-process change check every 0.1 s).

``Last-Event-ID`` greater than the last committed seq means the client saw events of an attempt
that never committed (its process died mid-step): :func:`journal_frames` starts with an
``event: reset`` frame carrying ``{"last_seq": N}`` and continues after ``N``
(docs/durability.md); protocol streams simply continue after ``N``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import NamedTuple

from awaken_contract.contract.event import AgentEvent, RunFinish, encode_event
from awaken_contract.contract.journal import EventRecord, JournaledThreadRunStore, JournalKind

from awaken_server.sse import RunEventHub, format_sse_data_with_id

__all__ = [
    "RunEvent",
    "committed_after",
    "journal_frames",
    "known_events",
    "live_hub",
    "reset_frame",
    "run_events",
]

_EVENTS = (JournalKind.EVENT,)


class RunEvent(NamedTuple):
    """One event of a run and its journal seq (the SSE id)."""

    seq: int
    event: AgentEvent


def reset_frame(last_seq: int) -> bytes:
    """The ``reset`` frame: resume after the last committed seq."""
    return b"event: reset\ndata: " + json.dumps({"last_seq": last_seq}).encode() + b"\n\n"


def live_hub(hub: RunEventHub | None) -> RunEventHub | None:
    """``hub`` when it is the live, journal-numbered hub of an attempt executing here."""
    return hub if hub is not None and not hub.closed and hub.first_seq > 0 else None


async def committed_after(
    store: JournaledThreadRunStore, run_id: str, after: int | None, live: RunEventHub | None
) -> tuple[int, bool]:
    """The cursor to stream after, and whether ``after`` was beyond anything committed (or
    issued by the live attempt): the client saw an attempt that never committed."""
    cursor = after or 0
    if live is not None and cursor < live.next_seq:
        return cursor, False
    last = await store.last_seq(run_id)
    return (last, True) if cursor > last else (cursor, False)


async def _journal_events(
    store: JournaledThreadRunStore, run_id: str, after: int, before: int | None = None
) -> list[RunEvent]:
    events: list[RunEvent] = []
    for entry in await store.read(run_id, after_seq=after, kinds=_EVENTS):
        if before is not None and entry.seq >= before:
            break
        assert isinstance(entry.record, EventRecord)
        events.append(RunEvent(entry.seq, entry.record.event))
    return events


async def run_events(
    store: JournaledThreadRunStore,
    run_id: str,
    after: int,
    hub: RunEventHub | None,
    *,
    finished: bool = False,
) -> AsyncIterator[RunEvent]:
    """Every event of ``run_id`` with seq > ``after``: the committed ones, then live ones (from
    this instance's ``hub`` until it closes, else the journal's tail for ever). For a
    ``finished`` run the iteration ends at the journal's end."""
    live = live_hub(hub)
    if live is not None:
        for item in await _journal_events(store, run_id, after, live.first_seq):
            yield item
        async for frame in live.subscribe(max(after, live.first_seq - 1), stop_at_terminal=False):
            if frame.event is not None:
                yield RunEvent(frame.seq, frame.event)
        return
    if finished:
        for item in await _journal_events(store, run_id, after):
            yield item
        return
    async with contextlib.aclosing(store.follow(run_id, after)) as entries:
        async for entry in entries:
            if isinstance(entry.record, EventRecord):
                yield RunEvent(entry.seq, entry.record.event)


async def known_events(
    store: JournaledThreadRunStore, run_id: str, hub: RunEventHub | None
) -> list[RunEvent]:
    """The events of ``run_id`` available now (committed, plus the live attempt's buffer)."""
    live = live_hub(hub)
    events = await _journal_events(store, run_id, 0, live.first_seq if live else None)
    if live is not None:
        events += [RunEvent(f.seq, f.event) for f in live.buffered() if f.event is not None]
    return events


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
    live = live_hub(hub)
    cursor, reset = await committed_after(store, run_id, after, live)
    if reset:
        yield reset_frame(cursor)
    if live is not None:
        for seq, event in await _journal_events(store, run_id, cursor, live.first_seq):
            yield format_sse_data_with_id(seq, encode_event(event))
            if isinstance(event, RunFinish):
                return
        cursor = max(cursor, live.first_seq - 1)
        async for chunk in live.stream(cursor, heartbeat=None, max_batch=max_batch):
            yield chunk
        return
    async for seq, event in run_events(store, run_id, cursor, None, finished=finished):
        yield format_sse_data_with_id(seq, encode_event(event))
        if isinstance(event, RunFinish):
            return
