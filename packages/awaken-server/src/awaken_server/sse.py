"""Server-Sent Events: frame encoding and per-run replay buffers (the response: ``sse_response``).

Every event of a run becomes one frame ``id: {seq}\\ndata: {json}\\n\\n``; with a journaled store
``seq`` is the event's run-journal seq (the mailbox rebases the hub), else it counts from 0
within the run (the book). A :class:`RunEventHub` keeps the last ``replay_buffer_capacity`` frames
of a live run so that a client reconnecting with ``Last-Event-ID: n`` receives every frame after
``n`` and then the live tail, with no gap and no duplicate (finished runs are replayed from the
journal; :func:`hub_registry_for`). While a stream is idle the server sends
``: heartbeat`` comments. A client that disconnects never affects the run: the run writes into the
hub, not into the socket.
"""

from __future__ import annotations

import asyncio
import bisect
import itertools
import operator
import time
from collections import deque
from collections.abc import AsyncIterator, Callable

import msgspec
from awaken_contract.contract.event import AgentEvent, RunFinish
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.journal import JournaledThreadRunStore

from awaken_server.sse_response import HEARTBEAT_FRAME, SSE_HEADERS, sse_response
from awaken_server.wire import parse_offset

__all__ = [
    "HEARTBEAT_FRAME",
    "SSE_HEADERS",
    "EventHubRegistry",
    "Frame",
    "HubSink",
    "RunEventHub",
    "format_sse_comment",
    "format_sse_data",
    "format_sse_data_with_id",
    "hub_registry_for",
    "parse_last_event_id",
    "sse_response",
]


def format_sse_data(payload: bytes) -> bytes:
    """A data-only frame: ``data: <json>\\n\\n``."""
    return b"data: " + payload + b"\n\n"


def format_sse_data_with_id(seq: int, payload: bytes) -> bytes:
    """A frame with a sequence id: ``id: <seq>\\ndata: <json>\\n\\n``."""
    return b"id: %d\ndata: %b\n\n" % (seq, payload)


def format_sse_comment(text: str) -> bytes:
    """A comment frame (``: text``)."""
    return b": " + text.encode() + b"\n\n"


def parse_last_event_id(value: str | None) -> int | None:
    """The ``Last-Event-ID`` header as an integer; missing or not an ASCII offset → ``None``."""
    return parse_offset(value)


_encode_event = msgspec.json.Encoder().encode
"""``encode_event`` without its two Python frames (the same default encoder: the same bytes)."""

_reader_keys = itertools.count(1)
"""Unique ids of hub readers (process-wide)."""


class Frame(msgspec.Struct, frozen=True, gc=False):
    """One encoded SSE frame of a run and whether it ends a client stream; ``event`` is the
    ``AgentEvent`` it encodes (protocol streams re-encode it with their own encoder).

    (``gc=False``: a frame is never part of a reference cycle, and a busy server holds many.)"""

    seq: int
    data: bytes
    terminal: bool
    event: AgentEvent | None = None


_seq_of = operator.attrgetter("seq")
"""A frame's seq (read in C: the bisect over the buffer makes no Python call per probe)."""
_data_of = operator.attrgetter("data")
"""A frame's bytes (read in C: a batch is joined without a Python call per frame)."""


class RunEventHub:
    """The replay buffer and live fan-out of one run's frames.

    ``publish`` appends a frame (evicting the oldest beyond ``capacity``) and wakes subscribers;
    ``subscribe(after)`` yields every buffered frame with ``seq > after`` and then live frames
    until (and including) the next ``run_finish`` (an ``error`` event is always followed by
    one), or until the run's job ends.
    """

    def __init__(self, run_id: str, thread_id: str, capacity: int = 1024) -> None:
        self.run_id = run_id
        self.thread_id = thread_id
        self.capacity = max(capacity, 1)
        self._frames: deque[Frame] = deque(maxlen=self.capacity)
        self.next_seq = 0
        """The id the next published frame will get (read it; ``publish``/``skip`` move it)."""
        self.first_seq = 0
        self._changed: asyncio.Event | None = None
        """Set by the next publish or close; created only when a reader waits for it."""
        self._room: asyncio.Event | None = None
        """Set when a reader advanced or left; created only when the producer waits for it."""
        self._cursors: dict[int, int] = {}
        self._closed = False
        self.created_at = time.monotonic()
        self.updated_at = self.created_at
        """When the hub was created or closed (``purge`` drops closed hubs by it)."""
        self.on_close: Callable[[RunEventHub], None] | None = None
        """Called once when the run ends (the registry bounds how many finished hubs it keeps)."""

    def rebase(self, first_seq: int) -> None:
        """Number this attempt's frames from ``first_seq`` (the run journal's next seq, so SSE
        ids are journal seqs); only before the first frame."""
        if self.next_seq == self.first_seq and not self._frames:
            self.next_seq = self.first_seq = first_seq

    @property
    def closed(self) -> bool:
        """True once the producing run has ended for good."""
        return self._closed

    def publish(self, event: AgentEvent) -> Frame:
        """Encode and buffer one event, waking every subscriber."""
        # (``publish_encoded`` inlined: this runs for every event of every run)
        seq = self.next_seq
        self.next_seq = seq + 1
        data = b"id: %d\ndata: %b\n\n" % (seq, _encode_event(event))
        frame = Frame(seq, data, isinstance(event, RunFinish), event)
        self._frames.append(frame)
        changed = self._changed
        if changed is not None:
            self._changed = None
            changed.set()
        return frame

    def publish_encoded(
        self, payload: bytes, terminal: bool, event: AgentEvent | None = None
    ) -> Frame:
        """Buffer an already encoded event payload."""
        seq = self.next_seq
        frame = Frame(seq, format_sse_data_with_id(seq, payload), terminal, event)
        self.next_seq += 1
        self._frames.append(frame)
        self._wake()
        return frame

    def must_wait(self) -> bool:
        """True when the producer must ``wait_for_room`` before publishing (a connected
        subscriber is a full buffer behind; cheap while fewer frames than that were sent)."""
        return self.next_seq >= self.capacity and self.lagging()

    def skip(self, count: int) -> None:
        """Leave ``count`` ids unused (journal entries that are not events)."""
        self.next_seq += count

    def close(self) -> None:
        """Mark the run as finished: subscribers drain the buffer and stop."""
        first = not self._closed
        self._closed = True
        self._made_room()
        self.updated_at = time.monotonic()
        self._wake()
        if first and self.on_close is not None:
            self.on_close(self)

    def _made_room(self) -> None:
        room = self._room
        if room is not None:
            self._room = None
            room.set()

    def _wake(self) -> None:
        changed = self._changed
        if changed is not None:
            self._changed = None
            changed.set()

    def _next_change(self) -> asyncio.Event:
        """The event the next publish or close sets."""
        changed = self._changed
        if changed is None:
            changed = self._changed = asyncio.Event()
        return changed

    def _start_after(self, after: int | None) -> int:
        """Translate a ``Last-Event-ID`` into the first sequence number to send."""
        if after is None:
            return self.first_seq
        if after >= self.next_seq:
            # An id this hub never issued: the client saw an earlier incarnation of the run
            # (another process); send everything we have.
            return self.first_seq
        return after + 1

    def lagging(self) -> bool:
        """True when a connected subscriber is about to lose frames (the producer should wait)."""
        limit = self.next_seq - self.capacity
        if limit < 0:  # fewer frames than the buffer holds: nobody can lag (cursors are >= 0)
            return False
        return any(cursor <= limit for cursor in self._cursors.values())

    async def wait_for_room(self, stall_secs: float = 30.0) -> None:
        """Backpressure: wait until no connected subscriber is a full buffer behind.

        A reader that makes no progress for ``stall_secs`` is dropped from backpressure (it
        then skips evicted frames) so a stalled client cannot block the run forever."""
        while self.lagging() and not self._closed:
            room = self._room
            if room is None:  # (an unset event: a set one is dropped when set)
                room = self._room = asyncio.Event()
            try:
                async with asyncio.timeout(stall_secs):
                    await room.wait()
            except TimeoutError:
                limit = self.next_seq - self.capacity
                for key in [k for k, c in self._cursors.items() if c <= limit]:
                    del self._cursors[key]

    def reserve(self, cursor: int = 0) -> int:
        """Hold frames from ``cursor`` on for a reader that connects a moment later (see
        ``stream(reserved=...)``)."""
        key = next(_reader_keys)
        self._cursors[key] = cursor
        return key

    def release(self, key: int) -> None:
        """Give up a reservation that will not be read."""
        self._cursors.pop(key, None)
        self._made_room()

    def _advance(self, key: int, cursor: int) -> None:
        self._cursors[key] = cursor
        self._made_room()

    async def subscribe(
        self,
        after: int | None = None,
        *,
        stop_at_terminal: bool = True,
        reserved: int | None = None,
    ) -> AsyncIterator[Frame]:
        """Frames with ``seq > after`` (all when ``None``), then live frames.

        Stops after the first terminal frame (when ``stop_at_terminal``) or when the hub closes.
        While subscribed, the producer waits instead of evicting frames this subscriber has not
        read yet (a disconnect ends the subscription, so a gone client never blocks the run).
        """
        async for batch in self._batches(after, stop_at_terminal, None, reserved):
            for frame in batch:
                yield frame

    async def stream(
        self,
        after: int | None = None,
        heartbeat: float | None = None,
        reserved: int | None = None,
        max_batch: int = 64,
        before_wait: Callable[[], None] | None = None,
    ) -> AsyncIterator[bytes]:
        """Encoded SSE bytes until the next terminal frame: the frames available at each
        wake-up are written together (at most ``max_batch`` per write, the server's
        ``sse_buffer_size``), with ``: heartbeat`` comments after ``heartbeat`` idle seconds;
        ``before_wait`` is called whenever the stream is about to wait for frames."""
        batches = self._batches(after, True, heartbeat, reserved, max_batch, before_wait)
        async for batch in batches:
            yield b"".join(map(_data_of, batch)) if batch else HEARTBEAT_FRAME

    def batches(
        self,
        after: int | None = None,
        *,
        reserved: int | None = None,
        heartbeat: float | None = None,
        max_batch: int = 64,
        before_wait: Callable[[], None] | None = None,
    ) -> AsyncIterator[list[Frame]]:
        """Frames with ``seq > after`` (all when ``None``), then live frames, until the hub
        closes: the frames available at each wake-up together (at most ``max_batch``), an
        empty batch after ``heartbeat`` idle seconds; ``before_wait`` is called whenever the
        reader is about to wait."""
        return self._batches(after, False, heartbeat, reserved, max_batch, before_wait)

    async def _batches(
        self,
        after: int | None,
        stop_at_terminal: bool,
        heartbeat: float | None,
        reserved: int | None,
        max_batch: int = 1,
        before_wait: Callable[[], None] | None = None,
    ) -> AsyncIterator[list[Frame]]:
        cursor = self._start_after(after)
        key = reserved if reserved is not None else next(_reader_keys)
        self._cursors[key] = cursor
        yielded = False
        try:
            while True:
                if cursor < self.next_seq:
                    # Ids may skip (journal entries that are not events): find the first frame
                    # by seq; the frames after it follow in order.
                    frames = self._frames
                    index = bisect.bisect_left(frames, cursor, key=_seq_of)
                    batch = list(itertools.islice(frames, index, index + max_batch))
                    terminal = False
                    if stop_at_terminal:
                        for position, frame in enumerate(batch):
                            if frame.terminal:
                                del batch[position + 1 :]
                                terminal = True
                                break
                    if terminal or index + len(batch) < len(frames):
                        cursor = batch[-1].seq + 1  # stopped at the terminal frame or the cap
                    else:
                        cursor = self.next_seq  # all taken: ids skipped at the end are passed too
                    self._advance(key, cursor)
                    if not batch:  # only ids that were skipped: nothing to hand out
                        continue
                    yield batch
                    if terminal:
                        return
                    continue
                if self._closed:
                    return
                if before_wait is not None:
                    before_wait()
                if not yielded:
                    # The producer is usually scheduled already (a run started a moment ago):
                    # let it run once before setting up a wait and a wake-up.
                    yielded = True
                    await asyncio.sleep(0)
                    continue
                changed = self._next_change()
                if heartbeat is None:
                    await changed.wait()
                    continue
                try:
                    async with asyncio.timeout(heartbeat):
                        await changed.wait()
                except TimeoutError:
                    yield []
        finally:
            self._cursors.pop(key, None)
            self._made_room()

    def buffered(self) -> list[Frame]:
        """The frames buffered now (oldest first)."""
        return list(self._frames)

    async def wait_for_frames(self, count: int) -> None:
        """Wait until at least ``count`` frames were published (tests, benchmarks)."""
        while self.next_seq < count and not self._closed:
            await self._next_change().wait()


class HubSink(EventSink):
    """An :class:`EventSink` writing a run's events into its :class:`RunEventHub`."""

    __slots__ = ("hub",)

    def __init__(self, hub: RunEventHub) -> None:
        self.hub = hub

    def skip_seq(self, count: int = 1) -> None:
        self.hub.skip(count)

    async def emit(self, event: AgentEvent) -> None:
        """Publish the event (waiting while a connected reader is a full buffer behind)."""
        hub = self.hub
        if hub.must_wait():
            await hub.wait_for_room()
        hub.publish(event)


MAX_FINISHED_HUBS = 256
"""Finished runs whose replay buffer a process keeps (beyond: the oldest are dropped first)."""


class EventHubRegistry:
    """The hubs of this process, by run id (and the latest hub of each thread).

    Finished hubs stay replayable until ``purge`` drops them by age, but at most
    ``max_finished`` of them are kept: a busy server's memory does not grow with its run rate.
    """

    def __init__(self, capacity: int = 1024, max_finished: int = MAX_FINISHED_HUBS) -> None:
        self.capacity = capacity
        self.max_finished = max(max_finished, 0)
        self._by_run: dict[str, RunEventHub] = {}
        self._by_thread: dict[str, str] = {}
        self._finished: deque[RunEventHub] = deque()

    def open(self, run_id: str, thread_id: str) -> RunEventHub:
        """The run's hub, created when missing (a resumed run keeps its sequence)."""
        hub = self._by_run.get(run_id)
        if hub is None or hub.closed:
            hub = RunEventHub(run_id, thread_id, self.capacity)
            hub.on_close = self._retire
            self._by_run[run_id] = hub
        self._by_thread[thread_id] = run_id
        return hub

    def get(self, run_id: str) -> RunEventHub | None:
        """The hub of ``run_id`` if this process has one."""
        return self._by_run.get(run_id)

    def for_thread(self, thread_id: str) -> RunEventHub | None:
        """The latest hub of ``thread_id``."""
        run_id = self._by_thread.get(thread_id)
        return None if run_id is None else self._by_run.get(run_id)

    def purge(self, older_than_secs: float = 300.0) -> int:
        """Drop closed hubs idle for longer than ``older_than_secs``; return how many."""
        cutoff = time.monotonic() - older_than_secs
        stale = [rid for rid, h in self._by_run.items() if h.closed and h.updated_at < cutoff]
        for run_id in stale:
            self._drop(self._by_run[run_id])
        if stale:
            self._finished = deque(h for h in self._finished if self._by_run.get(h.run_id) is h)
        return len(stale)

    def _retire(self, hub: RunEventHub) -> None:
        """A hub's run ended: keep it replayable, dropping the oldest finished beyond the cap."""
        finished = self._finished
        finished.append(hub)
        while len(finished) > self.max_finished:
            self._drop(finished.popleft())

    def _drop(self, hub: RunEventHub) -> None:
        if self._by_run.get(hub.run_id) is hub and hub.closed:
            del self._by_run[hub.run_id]
            if self._by_thread.get(hub.thread_id) == hub.run_id:
                del self._by_thread[hub.thread_id]

    def __len__(self) -> int:
        return len(self._by_run)


def hub_registry_for(store: object, capacity: int = 1024) -> EventHubRegistry:
    """The hub registry for a server on ``store``: with a run journal every stream of a
    finished run is replayed from the journal, so only live runs keep a buffer (finished hubs
    are dropped as they close); without one, finished runs stay replayable for a while."""
    max_finished = 0 if isinstance(store, JournaledThreadRunStore) else MAX_FINISHED_HUBS
    return EventHubRegistry(capacity, max_finished)
