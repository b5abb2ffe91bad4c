"""A run's hub: batches of frames by seq (ids may skip), terminal stops, live wake-ups."""

from __future__ import annotations

import asyncio

from awaken_contract.contract.event import RunFinish, TextDelta
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_runtime.testing import wait_until
from awaken_server.sse import HEARTBEAT_FRAME, HubSink, RunEventHub


def _finish() -> RunFinish:
    return RunFinish("t", "r", termination=TerminationReason.natural_end())


def _ids(chunk: bytes) -> list[int]:
    return [int(line[4:]) for line in chunk.split(b"\n") if line.startswith(b"id: ")]


async def test_batches_follow_seqs_across_skipped_ids_and_stop_at_the_terminal_frame() -> None:
    hub = RunEventHub("r", "t")
    hub.rebase(1)
    hub.publish(TextDelta("a"))  # 1
    hub.skip(2)  # 2, 3: journal entries that are not events
    hub.publish(TextDelta("b"))  # 4
    hub.publish(TextDelta("c"))  # 5
    hub.publish(_finish())  # 6
    hub.publish(TextDelta("after"))  # 7: past the terminal frame
    chunks = [chunk async for chunk in hub.stream(None, max_batch=2)]
    assert [_ids(c) for c in chunks] == [[1, 4], [5, 6]]
    resumed = [chunk async for chunk in hub.stream(4, max_batch=64)]
    assert [_ids(c) for c in resumed] == [[5, 6]]


async def test_ids_skipped_at_the_end_are_passed_without_a_heartbeat() -> None:
    hub = RunEventHub("r", "t")
    hub.publish(TextDelta("a"))  # 0
    hub.publish(TextDelta("b"))  # 1
    hub.skip(3)  # 2..4
    chunks: list[bytes] = []

    async def read() -> None:
        async for chunk in hub.stream(None, max_batch=2):
            chunks.append(chunk)

    reader = asyncio.create_task(read())
    await wait_until(lambda: chunks)  # the reader took 0 and 1 and waits past 2..4
    hub.publish(_finish())  # 5
    await reader
    assert HEARTBEAT_FRAME not in chunks
    assert [_ids(c) for c in chunks] == [[0, 1], [5]]


async def test_a_waiting_reader_wakes_on_each_publish_and_on_close() -> None:
    hub = RunEventHub("r", "t")
    seen: list[int] = []

    async def read() -> None:
        async for frame in hub.subscribe(None, stop_at_terminal=False):
            seen.append(frame.seq)

    reader = asyncio.create_task(read())
    for text in ("a", "b", "c"):
        await asyncio.sleep(0)
        hub.publish(TextDelta(text))
    await asyncio.sleep(0)
    hub.close()
    await asyncio.wait_for(reader, 5)
    assert seen == [0, 1, 2]


async def test_the_producer_waits_for_a_reader_a_full_buffer_behind() -> None:
    hub = RunEventHub("r", "t", capacity=4)
    sink = HubSink(hub)
    reader = hub.subscribe(None, reserved=hub.reserve())  # (held from the first frame)
    published: list[int] = []

    async def produce() -> None:
        for i in range(10):
            await sink.emit(TextDelta(str(i)))
            published.append(i)
        await sink.emit(_finish())

    producer = asyncio.create_task(produce())
    await wait_until(lambda: len(published) == 4)
    for _ in range(3):
        await asyncio.sleep(0)
    assert len(published) == 4 and hub.lagging()  # held until the reader reads
    seen = [frame.seq async for frame in reader]
    await producer
    assert seen == list(range(11))  # every frame, no gap: none was evicted unread
    assert not hub.lagging()


async def test_a_batch_capped_at_the_end_of_the_buffer_passes_the_skipped_ids_after_it() -> None:
    hub = RunEventHub("r", "t")
    for text in ("a", "b", "c", "d"):
        hub.publish(TextDelta(text))  # 0..3
    hub.skip(2)  # 4, 5
    hub.publish(_finish())  # 6
    hub.publish(TextDelta("after"))  # 7
    chunks = [chunk async for chunk in hub.stream(None, max_batch=2)]
    assert [_ids(c) for c in chunks] == [[0, 1], [2, 3], [6]]
    assert [_ids(c) for c in [chunk async for chunk in hub.stream(3, max_batch=1)]] == [[6]]


def test_a_published_frame_carries_encode_event_bytes() -> None:
    from awaken_contract.contract.event import encode_event
    from awaken_server.sse import format_sse_data_with_id

    hub = RunEventHub("r", "t")
    hub.rebase(7)
    events = [TextDelta(delta='he said "hi" ✓'), _finish()]
    frames = [hub.publish(event) for event in events]
    assert [f.data for f in frames] == [
        format_sse_data_with_id(7, encode_event(events[0])),
        format_sse_data_with_id(8, encode_event(events[1])),
    ]
