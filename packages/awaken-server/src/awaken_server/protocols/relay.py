"""Relaying a run into a protocol stream, and helpers the protocol routes share.

Runs submitted through the mailbox are streamed from their run hub (:mod:`.run_stream`), so
the frames carry journal seqs and can be resumed from the journal. A run outside the mailbox
(a draft-agent preview) writes into an :class:`EncodingSink`, which runs the protocol encoder
and publishes every frame into its own :class:`~awaken_server.sse.RunEventHub`: the HTTP
response reads the hub, never the run, so a client that goes away never slows the run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from awaken_contract.codec import encode_json
from awaken_contract.contract.event import AgentEvent, RunFinish
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.run_plan import find_waiting_run
from starlette.responses import Response, StreamingResponse

from awaken_server.mailbox.submission import RunSubmission
from awaken_server.protocols.run_stream import ProtocolCodec, live_response
from awaken_server.sse import RunEventHub, sse_response
from awaken_server.state import AppState

Frame = dict[str, Any]

_log = logging.getLogger("awaken.protocols")


class EncodingSink(EventSink):
    """Encodes events with a protocol encoder and publishes the frames into ``hub``.

    ``close_on_terminal`` closes the hub after the first terminal frame: for streams that
    join a live run (no task whose end would close it).
    """

    __slots__ = ("_close_on_terminal", "_encode", "_is_terminal", "hub")

    def __init__(
        self,
        encode: Callable[[AgentEvent], list[Frame]],
        hub: RunEventHub,
        is_terminal: Callable[[Frame], bool],
        *,
        close_on_terminal: bool = False,
    ) -> None:
        self._encode = encode
        self._is_terminal = is_terminal
        self._close_on_terminal = close_on_terminal
        self.hub = hub

    async def emit(self, event: AgentEvent) -> None:
        """Encode ``event`` and buffer its frames (never blocks on clients).

        A final ``run_finish`` (not a suspension) closes the hub at once: the run is over even
        if its job is still writing the last checkpoint, so a client reconnecting right after
        the terminal frame is told there is nothing to resume.
        """
        for frame in self._encode(event):
            terminal = self._is_terminal(frame)
            self.hub.publish_encoded(encode_json(frame), terminal)
            if terminal and self._close_on_terminal:
                self.hub.close()
        if isinstance(event, RunFinish) and event.termination.type is not TerminationKind.SUSPENDED:
            self.hub.close()


def close_when_done(task: asyncio.Task[Any], hub: RunEventHub) -> None:
    """Close ``hub`` once the run's task ends (a failure is logged, never left unretrieved)."""

    def done(finished: asyncio.Task[Any]) -> None:
        hub.close()
        if not finished.cancelled() and finished.exception() is not None:
            _log.warning("protocol run ended with an error", exc_info=finished.exception())

    task.add_done_callback(done)


def stream_frames(
    state: AppState,
    hub: RunEventHub,
    headers: dict[str, str],
    *,
    after: int | None = None,
) -> StreamingResponse:
    """SSE of ``hub`` from ``after`` (replayed, then live) up to its first terminal frame."""
    metrics = state.metrics
    metrics.sse_connections.inc()

    async def frames() -> AsyncIterator[bytes]:
        async for frame in hub.subscribe(after):
            yield frame.data

    return sse_response(
        frames(),
        heartbeat_interval=state.config.heartbeat_interval_secs,
        headers=headers,
        on_close=metrics.sse_connections.dec,
    )


async def submit_and_stream(
    state: AppState, submission: RunSubmission, codec: ProtocolCodec, headers: dict[str, str]
) -> StreamingResponse:
    """Queue ``submission`` (foreground) and stream its run's events, encoded by ``codec``,
    until the protocol's terminal frame (ids are journal seqs, see :mod:`.run_stream`)."""
    handle = await state.mailbox.submit(submission)
    return live_response(state, codec, handle.hub, headers, reserved=handle.reservation)


def empty_stream(headers: dict[str, str]) -> Response:
    """An SSE response that closes immediately (nothing to stream)."""
    return Response(b"", media_type="text/event-stream", headers=headers)


async def waiting_targets(state: AppState, thread_id: str) -> set[str]:
    """Decision targets of the thread's waiting run (empty when nothing waits)."""
    run = await find_waiting_run(state.store, thread_id)
    return set() if run is None else run.decision_targets()


async def stored_message_ids(state: AppState, thread_id: str) -> set[str]:
    """Ids of the messages already persisted on ``thread_id``."""
    messages = await state.store.load_messages(thread_id) or []
    return {m.id for m in messages if m.id}


async def latest_run_id(state: AppState, thread_id: str) -> str | None:
    """The thread's live run in this process, else its latest recorded run."""
    hub = state.hubs.for_thread(thread_id)
    if hub is not None and not hub.closed:
        return hub.run_id
    run = await state.store.latest_run(thread_id)
    return None if run is None else run.run_id
