"""The streaming HTTP response of every event stream (``text/event-stream``).

:func:`sse_response` wraps an iterator of encoded frames into an :class:`EventStreamResponse`,
optionally inserting ``: heartbeat`` comments while the stream is idle. The response streams in
the request's own task and watches for the client's disconnect in one plain asyncio task: the
same behaviour as Starlette's :class:`~starlette.responses.StreamingResponse` (a disconnect
stops the stream, the frames' ``finally`` blocks run, the response returns normally) without
an anyio task group and cancel scope per response, which cost more than the stream itself
for a short run.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Callable

from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from awaken_server.metrics import LiveGauge

__all__ = [
    "HEARTBEAT_FRAME",
    "SSE_HEADERS",
    "DisconnectWatch",
    "EventStreamResponse",
    "sse_response",
    "watched_stream",
]

HEARTBEAT_FRAME = b": heartbeat\n\n"
"""The comment sent while a stream is idle (clients ignore it)."""

SSE_HEADERS = {
    "Cache-Control": "no-cache",
    "Connection": "keep-alive",
    "X-Accel-Buffering": "no",
}

_MEDIA_TYPE = "text/event-stream"
_SSE_KEYS = frozenset(k.lower() for k in SSE_HEADERS)
_SSE_RAW_HEADERS = [
    (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in SSE_HEADERS.items()
]


def _not_started() -> None:
    pass


class DisconnectWatch:
    """Starts a response's disconnect watcher when its frames first have to wait.

    Hand one to the frames (they call it right before they wait for more) and to
    :func:`sse_response`: a stream whose frames are all there when it starts (a short run that
    finished before its response began) is sent without a watcher task, while a stream that
    waits notices a disconnect as before (a client gone meanwhile only missed frames the
    server had ready; they are dropped by the server)."""

    __slots__ = ("start",)

    def __init__(self) -> None:
        self.start: Callable[[], None] = _not_started

    def __call__(self) -> None:
        self.start()


class EventStreamResponse(StreamingResponse):
    """A :class:`StreamingResponse` that stops when the client disconnects, watched by one
    asyncio task (servers speaking ASGI ≥ 2.4 report the disconnect on ``send`` instead, and
    get Starlette's own behaviour)."""

    on_close: Callable[[], None] | None = None
    """Called once the response ended (however it ended)."""
    watch: DisconnectWatch | None = None
    """Watch for a disconnect only once the frames wait (``None``: from the start)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self._respond(scope, receive, send)
        finally:
            if self.on_close is not None:
                self.on_close()

    async def _respond(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _reports_disconnect_on_send(scope):
            await super().__call__(scope, receive, send)
            return
        task = asyncio.current_task()
        assert task is not None
        gone = False
        failure: Exception | None = None

        async def watch_disconnect() -> None:
            nonlocal gone, failure
            try:
                while (await receive())["type"] != "http.disconnect":
                    pass
            except Exception as exc:  # ends the stream and is raised by it
                failure = exc
            gone = True
            task.cancel()

        watcher: asyncio.Task[None] | None = None

        def start_watching() -> None:
            nonlocal watcher
            if watcher is None:
                watcher = asyncio.get_running_loop().create_task(watch_disconnect())

        if self.watch is None:
            start_watching()
        else:
            self.watch.start = start_watching
        try:
            await self.stream_response(send)
        except asyncio.CancelledError:
            # Our own cancel (the client left) ends the stream quietly; any other propagates.
            if not gone or task.uncancel() > 0:
                raise
            if failure is not None:
                raise failure from None
        finally:
            if self.watch is not None:
                self.watch.start = _not_started
            if watcher is not None:
                watcher.cancel()
        if self.background is not None:
            await self.background()


@functools.lru_cache(maxsize=16)
def _spec_reports_disconnect_on_send(raw: str) -> bool:
    try:
        return tuple(int(part) for part in raw.split(".")) >= (2, 4)
    except ValueError:
        return False


def _reports_disconnect_on_send(scope: Scope) -> bool:
    raw = scope.get("asgi", {}).get("spec_version", "2.0")
    return isinstance(raw, str) and _spec_reports_disconnect_on_send(raw)


async def _with_heartbeats(
    frames: AsyncIterator[bytes], interval: float, on_close: Callable[[], None] | None
) -> AsyncIterator[bytes]:
    """Forward ``frames``, inserting a heartbeat after ``interval`` seconds without a frame."""
    iterator = frames.__aiter__()
    pending: asyncio.Task[bytes] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(iterator.__anext__())
            done, _ = await asyncio.wait({pending}, timeout=interval)
            if not done:
                yield HEARTBEAT_FRAME
                continue
            task, pending = pending, None
            try:
                chunk = task.result()
            except StopAsyncIteration:
                return
            yield chunk
    finally:
        if pending is not None:
            pending.cancel()
        if on_close is not None:
            on_close()


def sse_response(
    frames: AsyncIterator[bytes],
    *,
    heartbeat_interval: float | None = 15.0,
    headers: dict[str, str] | None = None,
    on_close: Callable[[], None] | None = None,
    watch: DisconnectWatch | None = None,
) -> StreamingResponse:
    """A ``text/event-stream`` response streaming ``frames``; with ``heartbeat_interval`` a
    ``: heartbeat`` comment is inserted after that many idle seconds (``None``: the frames
    already carry their heartbeats, e.g. :meth:`RunEventHub.stream`); ``watch``: the frames
    call it before they wait (see :class:`DisconnectWatch`)."""
    body = (
        frames
        if heartbeat_interval is None
        else _with_heartbeats(frames, heartbeat_interval, on_close)
    )
    if headers and not _SSE_KEYS.isdisjoint(k.lower() for k in headers):
        response = EventStreamResponse(
            body, media_type=_MEDIA_TYPE, headers={**SSE_HEADERS, **headers}
        )
    else:
        # The usual case, without Starlette encoding the same headers again for every
        # response (the same headers, in the same order, as ``{**SSE_HEADERS, **headers}``).
        response = EventStreamResponse(body, media_type=_MEDIA_TYPE, headers=headers)
        response.raw_headers[:0] = _SSE_RAW_HEADERS
    if heartbeat_interval is None:
        response.on_close = on_close  # (else the heartbeat stream calls it as it closes)
    response.watch = watch
    return response


def watched_stream(
    frames: AsyncIterator[bytes],
    watch: DisconnectWatch,
    open_streams: LiveGauge,
    headers: dict[str, str] | None = None,
) -> StreamingResponse:
    """An event stream of ``frames`` that carry their own heartbeats and call ``watch`` before
    they wait, counted in ``open_streams`` while it is open."""
    open_streams.inc()
    return sse_response(
        frames,
        heartbeat_interval=None,
        headers=headers,
        on_close=open_streams.dec,
        watch=watch,
    )
