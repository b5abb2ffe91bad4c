"""Seeded HTTP fuzzing of every route: bad input gets a 4xx, never a 5xx, a hang or a drop.

The server is the real one (``awaken serve``'s app over a file store) on a loopback socket.
The request list is generated up front from a fixed seed, so a failure names a request that
reproduces; a handful run concurrently.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
from awaken_server.protocols import protocol_routes
from awaken_server.routes import native_routes
from awaken_stores import FileStore
from starlette.routing import Route

SEED = 20261201
REQUESTS = 2400
CONCURRENCY = 8
REQUEST_TIMEOUT_SECS = 30.0

IDS = [
    "t-1",
    "assistant",
    "线程-é",
    ".hidden",
    "..",
    "%00",
    "a%0d%0aX-Injected:%201",
    "x" * 200,
    "²",
    "$schema",
    "a%2Fb",
    "a%5Cb",
    "run:cancel",
]
A2A_TAILS = [
    "message:send",
    "message:stream",
    "tasks",
    "tasks/{id}",
    "tasks/{id}:cancel",
    "tasks/{id}:subscribe",
    "tasks/{id}/pushNotificationConfigs",
    "tasks/{id}/pushNotificationConfigs/{id}",
    "extendedAgentCard",
    "{id}/message:send",
    "{id}/tasks",
    "nope/nope/nope",
]
QUERY_KEYS = [
    "offset",
    "limit",
    "cursor",
    "pageToken",
    "pageSize",
    "status",
    "after",
    "visibility",
    "historyLength",
]
QUERY_VALUES = ["0", "3", "-1", "²", "9" * 30, "abc", "1e3", "", "done", "all", "٣"]
CONTENT_TYPES = [
    "application/json",
    "application/json",
    "application/json; charset=utf-8",
    "application/a2a+json",
    "text/plain;x=json",
    "multipart/form-data; boundary=x",
    None,
]
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND", "X-FUZZ"]
TEXTS = ["hello", "weather in Lima", "count the words here", "¿qué tal? 线程", ""]


@dataclass(frozen=True)
class FuzzRequest:
    """One generated request."""

    method: str
    path: str
    headers: dict[str, str | bytes] = field(default_factory=dict)
    body: bytes | None = None


def _route_table() -> list[tuple[str, str]]:
    table: list[tuple[str, str]] = []
    for route in [*native_routes(), *protocol_routes()]:
        if isinstance(route, Route):
            table.extend((method, route.path) for method in sorted(route.methods or {"GET"}))
    return table


def _messages(rng: random.Random) -> Any:
    text = rng.choice(TEXTS)
    shapes: list[Any] = [
        [{"role": "user", "content": text}],
        [{"id": f"u{rng.randrange(9)}", "role": "user", "parts": [{"type": "text", "text": text}]}],
        [{"role": "user", "parts": rng.choice(["hi", 3, {"a": 1}, None])}],
        [{"role": rng.choice(["user", "tool", 7]), "content": rng.choice([text, 5, [1], None])}],
        "hi",
        [],
        [[]],
    ]
    return rng.choice(shapes)


def _json_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 3 else 4)
    if kind == 0:
        return rng.choice([0, -1, 10**30, 1.5, True, None])
    if kind == 1:
        return rng.choice(["", "x", "²", "\u0000", "线程", "a" * 300])
    if kind == 2:
        return rng.choice(IDS)
    if kind == 3:
        return None
    if kind == 4:
        return [_json_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    keys = ["id", "agentId", "threadId", "messages", "toolCallId", "action", "mode", "url", "x"]
    return {rng.choice(keys): _json_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _body(rng: random.Random) -> bytes | None:
    kind = rng.randrange(10)
    if kind == 0:
        return None
    if kind == 1:
        depth = rng.choice([70, 5000, 100_000])
        return b"[" * depth + b"]" * depth
    if kind == 2:
        return rng.choice([b"{", b"not json", b"\xff\xfe", b"null", b"[1,2]", b'"str"'])
    if kind == 3:
        return json.dumps(_json_value(rng)).encode()
    doc: dict[str, Any] = {
        "agentId": rng.choice(["assistant", "assistant", "ghost", *IDS]),
        "messages": _messages(rng),
    }
    if rng.random() < 0.4:
        doc["threadId"] = rng.choice(IDS)
    if rng.random() < 0.2:
        doc["id"] = rng.choice(IDS)
        doc["model_id"] = "demo"
    if rng.random() < 0.2:
        doc["message"] = {
            "messageId": rng.choice(IDS),
            "role": rng.choice(["ROLE_USER", "ROLE_AGENT"]),
            "parts": rng.choice([[{"text": "hi"}], [], "x"]),
        }
    if rng.random() < 0.1:
        doc["url"] = rng.choice(["http://127.0.0.1:9/h", "http://10.1.1.1/", "ftp://x", "x"])
    if rng.random() < 0.1:
        doc["agent"] = {"id": rng.choice(IDS), "model_id": rng.choice(["demo", "", 5])}
    return json.dumps(doc).encode()


def _path(rng: random.Random, template: str) -> str:
    path = template
    if "{tail:path}" in path:
        path = path.replace("{tail:path}", rng.choice(A2A_TAILS))
    while "{" in path:
        start = path.index("{")
        end = path.index("}", start)
        path = path[:start] + rng.choice(IDS) + path[end + 1 :]
    if rng.random() < 0.5:
        pairs = [
            f"{rng.choice(QUERY_KEYS)}={rng.choice(QUERY_VALUES)}" for _ in range(rng.randrange(3))
        ]
        path += "?" + "&".join(pairs)
    return path


def generate(seed: int, count: int) -> list[FuzzRequest]:
    """The deterministic request list of ``seed``."""
    rng = random.Random(seed)
    table = _route_table()
    out: list[FuzzRequest] = []
    for _ in range(count):
        method, template = rng.choice(table)
        if rng.random() < 0.1:
            method = rng.choice(METHODS)
        headers: dict[str, str | bytes] = {}
        content_type = rng.choice(CONTENT_TYPES)
        if content_type is not None:
            headers["content-type"] = content_type
        if rng.random() < 0.2:
            headers["last-event-id"] = rng.choice(["0", "3", b"\xb2", "-1", "9" * 40, "x"])
        if rng.random() < 0.1:
            headers["origin"] = rng.choice(["http://evil.example", "null", "http://127.0.0.1"])
        if rng.random() < 0.05:
            headers["host"] = rng.choice(["evil.example", "localhost", "[::1]:1", ""])
        if rng.random() < 0.1:
            headers["mcp-session-id"] = rng.choice(["abc", "x" * 300])
        if rng.random() < 0.1:
            headers["a2a-version"] = rng.choice(["1.0", "0.2", b"\xb2"])
        if template == "/v1/mcp":
            headers["accept"] = "application/json, text/event-stream"
        body = _body(rng) if method in ("POST", "PUT", "PATCH", "PROPFIND") else None
        out.append(FuzzRequest(method, _path(rng, template), headers, body))
    return out


def test_generation_is_deterministic() -> None:
    assert generate(SEED, 50) == generate(SEED, 50)
    assert generate(SEED, 50) != generate(SEED + 1, 50)


async def test_fuzzed_requests_never_get_a_5xx_a_hang_or_a_drop(
    make_server: Any, server_config: Any, tmp_path: Any
) -> None:
    # an extended card is configured: unconfigured, A2A mandates 501 for it
    config = server_config(a2a_extended_card_bearer_token="card-token")
    live = await make_server(store=FileStore(tmp_path / "store"), config=config)
    requests = generate(SEED, REQUESTS)
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    queue: asyncio.Queue[FuzzRequest] = asyncio.Queue()
    for request in requests:
        queue.put_nowait(request)
    limits = httpx.Limits(max_connections=CONCURRENCY)
    async with httpx.AsyncClient(
        base_url=live.url, timeout=REQUEST_TIMEOUT_SECS, limits=limits
    ) as client:

        async def worker() -> None:
            while not queue.empty():
                request = queue.get_nowait()
                try:
                    response = await client.request(
                        request.method,
                        request.path,
                        headers=request.headers,
                        content=request.body,
                    )
                except httpx.TimeoutException:
                    failures.append(f"hang: {request}")
                    continue
                except httpx.TransportError as exc:
                    failures.append(f"dropped ({type(exc).__name__}): {request}")
                    continue
                statuses[response.status_code] += 1
                if response.status_code >= 500:
                    failures.append(f"{response.status_code} {response.text[:200]}: {request}")

        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    client_errors = sum(n for status, n in statuses.items() if 400 <= status < 500)
    print(f"fuzz: {REQUESTS} requests, {client_errors} 4xx, statuses {sorted(statuses.items())}")
    assert not failures, "\n".join(failures[:20])
    assert sum(statuses.values()) == REQUESTS
