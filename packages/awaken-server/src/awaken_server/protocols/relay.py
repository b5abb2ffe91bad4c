"""Relaying a run into a protocol stream: encode each event, buffer the frames, stream them.

A protocol route hands an :class:`EncodingSink` to the mailbox (or reconnects a live run to
it). The sink runs the protocol encoder and publishes every frame into a
:class:`~awaken_server.sse.RunEventHub`, so the HTTP response (and any reconnecting client)
reads frames from the hub, never from the run: a client that goes away never slows the run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

from awaken_contract.codec import encode_json
from awaken_contract.contract.event import AgentEvent, RunFinish
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.run_plan import find_waiting_run
from awaken_contract.contract.suspension import ToolCallResume
from starlette.responses import Response, StreamingResponse

from awaken_server.mailbox.submission import RunSubmission
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
    state: AppState,
    submission: RunSubmission,
    hub: RunEventHub,
    sink: EncodingSink,
    headers: dict[str, str],
) -> StreamingResponse:
    """Queue ``submission`` with ``sink`` attached and stream ``hub`` until the run ends."""
    handle = await state.mailbox.submit(submission, sink=sink)
    close_when_done(handle.task, hub)
    return stream_frames(state, hub, headers)


async def deliver_live(
    state: AppState,
    thread_id: str,
    run_id: str,
    decisions: Iterable[tuple[str, ToolCallResume]],
    hub: RunEventHub,
    sink: EncodingSink,
) -> bool:
    """Switch the thread's live run ``run_id`` to ``sink`` and hand it ``decisions``.

    The sink is switched first, so that no resumed event is lost. When no decision is
    accepted ``hub`` is closed and the answer is ``False``.
    """
    accepted = False
    if state.mailbox.reconnect_sink(thread_id, sink):
        for target, resume in decisions:
            delivered = state.runtime.send_decision(run_id, target, resume)
            accepted = delivered or accepted
    if not accepted:
        hub.close()
    return accepted


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
