"""The event-stream response: a client that leaves mid-stream ends the stream server-side."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from awaken_contract.contract.event import RunFinish, TextDelta
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_server.sse import RunEventHub
from awaken_server.sse_response import SSE_HEADERS, DisconnectWatch, sse_response
from starlette.responses import StreamingResponse
from starlette.types import Message, Receive


def _run(prompt: str) -> dict[str, Any]:
    return {"agentId": "assistant", "messages": [{"role": "user", "content": prompt}]}


async def test_a_client_leaving_mid_stream_frees_its_stream_slot(
    make_server: Any, server_config: Any, sse: Any, until: Any
) -> None:
    config = server_config(max_concurrent_streams=1, heartbeat_interval_secs=60)
    live = await make_server(config=config)
    async with live.client.stream("POST", "/v1/runs", json=_run("wait 30")) as response:
        async for frame in sse.iter(response):
            run_id = frame.data["run_id"]
            break  # the client goes away while the run (and its stream) would go on for 30 s

    async def streams_closed() -> bool:
        metrics = (await live.client.get("/metrics")).text
        return "awaken_sse_connections 0.0" in metrics

    await until(streams_closed)  # the server noticed the disconnect, not the run's end
    assert (await live.client.get(f"/v1/runs/{run_id}")).json()["status"] == "running"
    async with live.client.stream("POST", "/v1/runs", json=_run("hello")) as again:
        assert again.status_code == 200  # the only stream slot is free again
        frames = [f for f in await sse.collect(again) if f.data is not None]
    assert frames[-1].data["event_type"] == "run_finish"
    cancel = await live.client.post(f"/v1/runs/{run_id}/cancel")
    assert cancel.status_code == 202


async def _no_frames() -> AsyncIterator[bytes]:
    return
    yield b""  # (an async generator)


def test_event_stream_headers_are_starlettes_own() -> None:
    """The prebuilt SSE headers are the bytes, in the order, Starlette would have encoded."""
    extras: list[dict[str, str] | None] = [
        None,
        {},
        {"x-awaken-run-id": "r-1", "X-Awaken-Thread-Id": "t-1"},
        {"Cache-Control": "no-store", "x-other": "1"},  # replaces the SSE header in place
        {"cache-control": "no-store"},
    ]
    for extra in extras:
        response = sse_response(_no_frames(), heartbeat_interval=None, headers=extra)
        expected = StreamingResponse(
            _no_frames(), media_type="text/event-stream", headers={**SSE_HEADERS, **(extra or {})}
        )
        assert response.raw_headers == expected.raw_headers
    replaced = sse_response(_no_frames(), heartbeat_interval=None, headers=extras[3])
    assert replaced.raw_headers[0] == (b"cache-control", b"no-store")


async def _respond(hub: RunEventHub, receive: Receive, watchers: list[Any]) -> bytes:
    """The body a hub stream response sends (``sse_response`` with a disconnect watch)."""
    watch = DisconnectWatch()
    frames = hub.stream(None, heartbeat=None, before_wait=watch)
    response = sse_response(frames, heartbeat_interval=None, watch=watch)
    sent: list[Message] = []
    before = asyncio.all_tasks()

    async def send(message: Message) -> None:
        sent.append(message)
        started.update(asyncio.all_tasks() - before)  # (a watcher, if one was started)

    started: set[asyncio.Task[Any]] = set()
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}}
    await response(scope, receive, send)
    watchers.extend(started)
    return b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def _finished_hub() -> RunEventHub:
    hub = RunEventHub("r", "t")
    hub.publish(TextDelta("a"))
    hub.publish(RunFinish("t", "r", termination=TerminationReason.natural_end()))
    return hub


async def test_a_stream_with_every_frame_ready_needs_no_disconnect_watcher() -> None:
    async def receive() -> Message:
        raise AssertionError("nothing listens for a disconnect while nothing waits")

    watchers: list[Any] = []
    body = await _respond(_finished_hub(), receive, watchers)
    assert body.count(b"\ndata: ") == 2 and b"run_finish" in body
    assert watchers == []  # no task was started for it


async def test_a_stream_that_waits_watches_and_ends_when_the_client_leaves() -> None:
    hub = RunEventHub("r", "t")
    hub.publish(TextDelta("a"))  # then nothing more: the stream waits
    left = asyncio.Event()
    listened = asyncio.Event()

    async def receive() -> Message:
        listened.set()
        await left.wait()
        return {"type": "http.disconnect"}

    watchers: list[Any] = []
    responding = asyncio.create_task(_respond(hub, receive, watchers))
    await asyncio.wait_for(listened.wait(), 5)  # the watcher started once the stream waited
    left.set()
    body = await asyncio.wait_for(responding, 5)  # the stream ended although the run did not
    assert b"text_delta" in body and b"run_finish" not in body
    assert not hub.closed
