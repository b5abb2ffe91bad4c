"""Relay pieces shared by the protocol routes: the encoding sink and history paging."""

from __future__ import annotations

import msgspec
import pytest
from awaken_contract.contract.event import RunFinish, RunStart, TextDelta
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_server.errors import BadRequest
from awaken_server.protocols.ai_sdk_v6 import AiSdkEncoder
from awaken_server.protocols.paging import page
from awaken_server.protocols.relay import EncodingSink
from awaken_server.sse import RunEventHub
from starlette.requests import Request


async def test_encoding_sink_buffers_frames_with_ids_and_stops_at_finish() -> None:
    hub = RunEventHub("stream-1", "t")
    sink = EncodingSink(AiSdkEncoder().encode, hub, lambda p: p["type"] in ("finish", "error"))
    await sink.emit(RunStart(thread_id="t", run_id="r"))
    await sink.emit(TextDelta(delta="hi"))
    await sink.emit(RunFinish(thread_id="t", run_id="r", termination=TerminationReason.cancelled()))
    frames = [frame async for frame in hub.subscribe(None)]
    assert [f.seq for f in frames] == list(range(6))
    assert frames[0].data == b'id: 0\ndata: {"type":"start","messageId":"r"}\n\n'
    last = msgspec.json.decode(frames[-1].data.split(b"data: ", 1)[1])
    assert last == {"type": "finish", "finishReason": "stop"} and frames[-1].terminal
    # a reconnecting reader with Last-Event-ID 3 gets the tail only
    assert [f.seq for f in [frame async for frame in hub.subscribe(3)]] == [4, 5]


def _request(query: str) -> Request:
    return Request({"type": "http", "method": "GET", "query_string": query.encode(), "headers": []})


def test_history_paging() -> None:
    items = list(range(5))
    assert page(items, _request("")) == {
        "messages": items,
        "total": 5,
        "has_more": False,
        "next_cursor": None,
    }
    assert page(items, _request("limit=2")) == {
        "messages": [0, 1],
        "total": 5,
        "has_more": True,
        "next_cursor": "2",
    }
    assert page(items, _request("offset=1&cursor=3&limit=1"))["messages"] == [3]
    assert page(items, _request("offset=9"))["messages"] == []
    with pytest.raises(BadRequest, match="cursor must be an unsigned integer offset"):
        page(items, _request("cursor=-1"))


async def test_a_stream_joining_a_live_run_closes_at_its_terminal_frame() -> None:
    hub = RunEventHub("stream-2", "t")
    sink = EncodingSink(
        AiSdkEncoder().encode, hub, lambda p: p["type"] == "finish", close_on_terminal=True
    )
    await sink.emit(TextDelta(delta="resumed"))
    assert not hub.closed
    await sink.emit(
        RunFinish(thread_id="t", run_id="r", termination=TerminationReason.natural_end())
    )
    assert hub.closed
    assert [f.seq for f in [frame async for frame in hub.subscribe(None)]] == [0, 1, 2, 3]


async def test_a_final_run_finish_closes_the_hub_before_the_job_ends() -> None:
    # The resume route answers 204 for a closed hub. The job closes it only after the final
    # checkpoint, so the sink closes it at the final run_finish: a client reconnecting right
    # after `finish` is not replayed the whole run (the AI SDK e2e flake). A parked run's hub
    # stays open: it can still be resumed.
    hub = RunEventHub("stream-3", "t")
    sink = EncodingSink(AiSdkEncoder().encode, hub, lambda p: p["type"] == "finish")
    await sink.emit(RunStart(thread_id="t", run_id="r"))
    parked = TerminationReason.suspended()
    await sink.emit(RunFinish(thread_id="t", run_id="r", termination=parked))
    assert not hub.closed
    await sink.emit(RunStart(thread_id="t", run_id="r"))
    await sink.emit(RunFinish(thread_id="t", run_id="r", termination=TerminationReason.cancelled()))
    assert hub.closed
