"""The shipped test helpers: wait_until fails loudly, one SSE parser, the embedded server."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from awaken_runtime.engine import ScriptedLlm as EngineScriptedLlm
from awaken_runtime.testing import (
    ScriptedLlm,
    collect_sse,
    iter_sse_lines,
    parse_sse_text,
    text_step,
    tool_call_step,
    wait_until,
)
from awaken_runtime.testing.asgi import ThreadedServer, serving
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

BODY = ': heartbeat\n\nid: 0\ndata: {"a": 1}\n\nid: x\nevent: done\ndata: [DONE]\n\n'


def test_the_scripted_model_is_the_engines() -> None:
    assert ScriptedLlm is EngineScriptedLlm
    step = tool_call_step("c1", "get_weather", {"city": "Tokyo"})
    assert [(c.id, c.name, c.arguments) for c in step.tool_calls] == [
        ("c1", "get_weather", {"city": "Tokyo"})
    ]
    assert text_step("hi").text == "hi"


async def test_wait_until_returns_the_value_and_accepts_sync_and_async_checks() -> None:
    calls = []

    def sync_check() -> int:
        calls.append(1)
        return len(calls) if len(calls) >= 3 else 0

    async def async_check() -> str:
        return "ok"

    assert await wait_until(sync_check, interval=0) == 3
    assert await wait_until(async_check) == "ok"


async def test_wait_until_fails_loudly_with_its_message() -> None:
    with pytest.raises(AssertionError, match=r"the door open not reached within 0.05 s"):
        await wait_until(lambda: False, 0.05, interval=0.01, message="the door open")


def test_sse_text_frames_keep_ids_events_and_comments() -> None:
    frames = parse_sse_text(BODY)
    assert [(f.id, f.event, f.data, f.comment) for f in frames] == [
        (None, "message", None, "heartbeat"),
        (0, "message", {"a": 1}, None),
        ("x", "done", "[DONE]", None),
    ]


async def test_sse_lines_and_text_parse_alike() -> None:
    async def lines() -> AsyncIterator[str]:
        for line in BODY.splitlines():
            yield line

    assert [f async for f in iter_sse_lines(lines())] == parse_sse_text(BODY)


def _app() -> Starlette:
    async def events(request: Request) -> Response:
        return Response(BODY, media_type="text/event-stream")

    return Starlette(routes=[Route("/events", events)])


async def test_embedded_server_leaves_signal_handlers_alone() -> None:
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    async with serving(_app()) as first, serving(_app()) as second:
        assert first.url != second.url
        assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
        async with (
            httpx.AsyncClient() as client,
            client.stream("GET", f"{second.url}/events") as response,
        ):
            frames = await collect_sse(response)
    assert frames == parse_sse_text(BODY)
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_threaded_server_enters_the_lifespan_on_its_loop() -> None:
    entered: list[str] = []

    @asynccontextmanager
    async def lifespan() -> AsyncIterator[Any]:
        entered.append("open")
        yield _app()
        entered.append("closed")

    server = ThreadedServer(lifespan).start()
    try:
        assert httpx.get(f"{server.base_url}/events").text == BODY
    finally:
        server.stop()
    assert entered == ["open", "closed"]


async def test_serve_fixture_serves_and_stops(serve: Any) -> None:
    url = await serve(_app())
    async with httpx.AsyncClient() as client:
        assert (await client.get(f"{url}/events")).status_code == 200
