"""CORS: the server's middleware answers exactly as Starlette's ``CORSMiddleware`` does (it only
takes a shorter path for requests without ``Origin``), and a live server sends the headers."""

from __future__ import annotations

from typing import Any

import pytest
from awaken_server.cors import Cors, add_vary_origin
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_SETTINGS: dict[str, Any] = {
    "allow_origins": ["http://app.example"],
    "allow_methods": ["GET", "POST", "OPTIONS"],
    "allow_headers": ["Authorization", "Content-Type"],
}


def _endpoint(vary: list[bytes]) -> ASGIApp:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", b"text/plain"), *((b"vary", v) for v in vary)]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"ok"})

    return app


async def _call(app: ASGIApp, method: str, headers: list[tuple[bytes, bytes]]) -> list[Message]:
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": "/v1/runs",
        "raw_path": b"/v1/runs",
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


_ORIGIN = (b"origin", b"http://app.example")
_FOREIGN = (b"origin", b"http://evil.example")
_PREFLIGHT = (b"access-control-request-method", b"POST")


@pytest.mark.parametrize(
    ("method", "headers"),
    [
        ("POST", []),
        ("POST", [(b"host", b"127.0.0.1:8000")]),
        ("POST", [_ORIGIN]),
        ("POST", [_FOREIGN]),
        ("OPTIONS", [_ORIGIN, _PREFLIGHT]),
        ("OPTIONS", [_FOREIGN, _PREFLIGHT]),
        ("OPTIONS", [_ORIGIN, _PREFLIGHT, (b"access-control-request-headers", b"x-secret")]),
        ("OPTIONS", []),
    ],
)
@pytest.mark.parametrize("vary", [[], [b"Accept"], [b"Accept", b"Cookie"]])
async def test_every_answer_is_the_one_starlette_gives(
    method: str, headers: list[tuple[bytes, bytes]], vary: list[bytes]
) -> None:
    ours = await _call(Cors(_endpoint(vary), **_SETTINGS), method, headers)
    theirs = await _call(CORSMiddleware(_endpoint(vary), **_SETTINGS), method, headers)
    assert ours == theirs


def test_vary_origin_is_folded_into_the_first_vary_header() -> None:
    message: Message = {
        "type": "http.response.start",
        "headers": [(b"vary", b"Accept"), (b"x-a", b"1"), (b"vary", b"Cookie")],
    }
    add_vary_origin(message)
    assert message["headers"] == [(b"vary", b"Accept, Cookie, Origin"), (b"x-a", b"1")]
    bare: Message = {"type": "http.response.start"}
    add_vary_origin(bare)
    assert bare["headers"] == [(b"vary", b"Origin")]


async def test_a_live_server_varies_on_origin_and_answers_browsers(
    make_server: Any, server_config: Any
) -> None:
    live = await make_server(config=server_config(cors_allowed_origins=["http://app.example"]))
    plain = await live.client.get("/health")
    assert plain.headers["vary"] == "Origin"
    assert "access-control-allow-origin" not in plain.headers
    browser = await live.client.get("/health", headers={"Origin": "http://app.example"})
    assert browser.headers["access-control-allow-origin"] == "http://app.example"
    preflight = await live.client.options(
        "/v1/runs",
        headers={"Origin": "http://app.example", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 200
    assert "POST" in preflight.headers["access-control-allow-methods"]
