"""A run's events as a protocol stream, live or resumed from the run journal.

A protocol stream is the run's ``AgentEvent``s (seq = journal seq) put through the protocol's
encoder, from the ``run_start`` that opened the stream up to the protocol's first terminal
frame. The live ``POST`` streams read the run's hub on the executing instance; the resume
routes read :func:`~awaken_server.journal_stream.run_events` (journal, then live), so they work
after a restart and from any instance. Because the encoder is replayed from that ``run_start``,
a resumed client gets exactly the frames it would have got live.

SSE ids: every frame an event produces is sent together and the **last** of them carries the
event's journal seq (``id: <seq>``); the others have no id. A client that resumes with
``Last-Event-ID: N`` gets the frames of the events after seq ``N``. An id beyond the journal's
committed end (an attempt that died before committing) continues after the last committed seq.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from awaken_contract.codec import encode_json
from awaken_contract.contract.event import AgentEvent, RunStart
from awaken_contract.contract.journal import JournaledThreadRunStore
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.suspension import ToolCallResume
from starlette.responses import Response, StreamingResponse

from awaken_server.journal_stream import (
    RunEvent,
    committed_after,
    known_events,
    live_hub,
    run_events,
)
from awaken_server.sse import (
    HEARTBEAT_FRAME,
    RunEventHub,
    format_sse_data,
    format_sse_data_with_id,
    sse_response,
)
from awaken_server.sse_response import DisconnectWatch, watched_stream
from awaken_server.state import AppState

__all__ = [
    "ProtocolCodec",
    "hub_events",
    "live_decision_response",
    "live_response",
    "resume_response",
    "stream_events",
]

Frame = dict[str, Any]
Encode = Callable[[AgentEvent], list[Frame]]


@dataclass(frozen=True, slots=True)
class ProtocolCodec:
    """How a protocol turns a run's events into frames: a fresh encoder per stream and the
    test for the frame that ends a stream."""

    new_encoder: Callable[[], Encode]
    is_terminal: Callable[[Frame], bool]

    def encode(self, encode: Encode, seq: int, event: AgentEvent) -> tuple[bytes, bool]:
        """The SSE bytes of ``event`` (the last frame carries ``seq``) and whether they end
        the stream (frames after a terminal one are dropped)."""
        frames = encode(event)
        chunks: list[bytes] = []
        for index, frame in enumerate(frames):
            terminal = self.is_terminal(frame)
            payload = encode_json(frame)
            if terminal or index == len(frames) - 1:
                chunks.append(format_sse_data_with_id(seq, payload))
                return b"".join(chunks), terminal
            chunks.append(format_sse_data(payload))
        return b"", False


async def stream_events(
    codec: ProtocolCodec, events: AsyncIterator[RunEvent], after: int = -1
) -> AsyncIterator[bytes]:
    """Encode ``events`` with a fresh encoder; send the frames of events after ``after`` and
    stop after the first terminal frame."""
    encode = codec.new_encoder()
    async for seq, event in events:
        chunk, terminal = codec.encode(encode, seq, event)
        if seq > after and chunk:
            yield chunk
        if terminal:
            return


async def hub_events(
    hub: RunEventHub, after: int | None = None, reserved: int | None = None
) -> AsyncIterator[RunEvent]:
    """The events of a live run's hub after ``after`` (all when ``None``), until it closes."""
    async for frame in hub.subscribe(after, stop_at_terminal=False, reserved=reserved):
        if frame.event is not None:
            yield RunEvent(frame.seq, frame.event)


def _stream_start(events: Iterable[RunEvent], after: int | None) -> int | None:
    """The seq of the ``run_start`` that opened the stream holding ``after`` (the latest
    stream when ``after`` is ``None``); ``None`` when no stream started yet."""
    start = None
    for seq, event in events:
        if after is not None and seq > after:
            break
        if isinstance(event, RunStart):
            start = seq
    return start


def _ended_by(codec: ProtocolCodec, events: list[RunEvent], start: int, after: int) -> bool:
    """True when the stream from ``start`` already ended at or before ``after``."""
    encode = codec.new_encoder()
    for seq, event in events:
        if seq > after:
            return False
        if seq >= start and codec.encode(encode, seq, event)[1]:
            return True
    return False


async def _live_chunks(
    codec: ProtocolCodec,
    hub: RunEventHub,
    after: int | None,
    reserved: int | None,
    heartbeat: float | None,
    max_batch: int,
    before_wait: Callable[[], None],
) -> AsyncIterator[bytes]:
    """The protocol stream of a live hub (as ``stream_events(codec, hub_events(...))``): the
    frames of the events available at each wake-up written together, up to the first
    terminal frame; ``: heartbeat`` after ``heartbeat`` idle seconds, or at the next wake-up
    when events that encode to nothing arrived meanwhile."""
    encode = codec.new_encoder()
    last_output = time.monotonic()
    batches = hub.batches(
        after, reserved=reserved, heartbeat=heartbeat, max_batch=max_batch, before_wait=before_wait
    )
    async for batch in batches:
        chunks: list[bytes] = []
        terminal = False
        for frame in batch:
            if frame.event is None:
                continue
            chunk, terminal = codec.encode(encode, frame.seq, frame.event)
            if chunk:
                chunks.append(chunk)
            if terminal:
                break
        if chunks:
            yield b"".join(chunks)
            if terminal:
                return
            last_output = time.monotonic()
        elif heartbeat is not None and time.monotonic() - last_output >= heartbeat:
            yield HEARTBEAT_FRAME
            last_output = time.monotonic()
        if terminal:
            return


def _response(state: AppState, frames: AsyncIterator[bytes], headers: dict[str, str]) -> Response:
    metrics = state.metrics
    metrics.sse_connections.inc()
    return sse_response(
        frames,
        heartbeat_interval=state.config.heartbeat_interval_secs,
        headers=headers,
        on_close=metrics.sse_connections.dec,
    )


def live_response(
    state: AppState,
    codec: ProtocolCodec,
    hub: RunEventHub,
    headers: dict[str, str],
    *,
    after: int | None = None,
    reserved: int | None = None,
) -> StreamingResponse:
    """SSE of the live run of ``hub`` (after ``after``) up to the protocol's terminal frame.

    Heartbeats come from the hub's own idle wait and a client's disconnect is watched for only
    once the stream waits (``DisconnectWatch``): no task per frame, none for a run whose
    frames are all there when its response starts."""
    config = state.config
    watch = DisconnectWatch()
    frames = _live_chunks(
        codec,
        hub,
        after,
        reserved,
        config.heartbeat_interval_secs,
        config.sse_buffer_size,
        watch,
    )
    return watched_stream(frames, watch, state.metrics.sse_connections, headers)


async def resume_response(
    state: AppState,
    codec: ProtocolCodec,
    run_id: str | None,
    after: int | None,
    headers: dict[str, str],
) -> Response:
    """Resume the stream of ``run_id`` after ``after`` (the latest stream when ``None``) from
    the journal, then live; 204 when there is nothing to resume (no run, no stream yet and the
    run finished, the stream already ended at ``after``, or — without ``after`` — the run
    finished)."""
    store = state.store
    if run_id is None or not isinstance(store, JournaledThreadRunStore):
        return Response(status_code=204)
    hub = live_hub(state.hubs.get(run_id))
    run = await store.load_run(run_id)
    if run is None:
        return Response(status_code=204)
    # DONE is committed by the final checkpoint, which also journals ``run_finish``: from then
    # on the journal holds the whole stream, even while the live hub is still being closed.
    finished = run.status is RunStatus.DONE
    if after is None and finished:
        return Response(status_code=204)
    if after is not None:
        after, _ = await committed_after(store, run_id, after, hub)
    known = await known_events(store, run_id, hub)
    start = _stream_start(known, after)
    if start is None:
        if finished:
            return Response(status_code=204)
        start = 1
    after = start - 1 if after is None else after
    if _ended_by(codec, known, start, after) or (finished and known[-1].seq <= after):
        return Response(status_code=204)
    events = run_events(store, run_id, start - 1, state.hubs.get(run_id), finished=finished)
    return _response(state, stream_events(codec, events, after), headers)


def live_decision_response(
    state: AppState,
    codec: ProtocolCodec,
    run_id: str,
    decisions: Iterable[tuple[str, ToolCallResume]],
    headers: dict[str, str],
) -> StreamingResponse | None:
    """Hand ``decisions`` to the run waiting live in this process and stream what follows
    (it starts with the resumed ``run_start``); ``None`` when none was accepted."""
    hub = live_hub(state.hubs.get(run_id))
    if hub is None:
        return None
    after = hub.next_seq - 1
    reserved = hub.reserve(after + 1)
    accepted = False
    for target, resume in decisions:
        accepted = state.runtime.send_decision(run_id, target, resume) or accepted
    if not accepted:
        hub.release(reserved)
        return None
    return live_response(state, codec, hub, headers, after=after, reserved=reserved)
