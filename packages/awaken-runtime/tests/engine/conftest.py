"""A local HTTP server (real socket) that replays recorded provider responses."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.content import ContentBlock
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.registry_spec import InferenceOverride

FIXTURES = Path(__file__).parent / "fixtures"

_REASONS = {200: "OK", 401: "Unauthorized", 403: "Forbidden", 429: "Too Many Requests"}


@dataclass
class Reply:
    """One scripted response. ``cut`` aborts the connection after the chunks; ``hang`` keeps
    it open (after the chunks) until the client goes away; ``drip`` is then sent every
    ``drip_every`` seconds until the client goes away (keep-alive bytes or endless events)."""

    status: int = 200
    chunks: list[bytes] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    cut: bool = False
    hang: bool = False
    drip: bytes | None = None
    drip_every: float = 0.05


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class ReplayServer:
    """Serves queued ``Reply``s in order and records every request."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        self.client_gone = asyncio.Event()
        self._server: asyncio.Server | None = None
        self.url = ""

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    # -- scripting --------------------------------------------------------

    def sse(self, fixture: str, **kwargs: Any) -> ReplayServer:
        """Queue a recorded SSE body, one chunk per event."""
        text = (FIXTURES / fixture).read_text()
        sep = "\r\n\r\n" if "\r\n\r\n" in text else "\n\n"
        events = [e + sep for e in text.split(sep) if e]
        headers = {"content-type": "text/event-stream", **kwargs.pop("headers", {})}
        self.replies.append(Reply(chunks=[e.encode() for e in events], headers=headers, **kwargs))
        return self

    def error(
        self, status: int, fixture: str, headers: dict[str, str] | None = None
    ) -> ReplayServer:
        """Queue a JSON error response."""
        body = (FIXTURES / fixture).read_bytes()
        self.replies.append(
            Reply(
                status=status,
                chunks=[body],
                headers={"content-type": "application/json", **(headers or {})},
            )
        )
        return self

    # -- protocol ---------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode().split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
            raw = await reader.readexactly(int(headers.get("content-length", "0")))
            body = json.loads(raw) if raw else None
            self.requests.append(Recorded(method, path, headers, body))
            reply = self.replies.popleft() if self.replies else Reply(status=599)
            status_line = f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Error')}\r\n"
            out = [status_line]
            for k, v in reply.headers.items():
                out.append(f"{k}: {v}\r\n")
            out.append("transfer-encoding: chunked\r\nconnection: close\r\n\r\n")
            writer.write("".join(out).encode())
            for chunk in reply.chunks:
                writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                await writer.drain()
            if reply.cut:
                writer.transport.abort()
                return
            if reply.drip is not None:
                for _ in range(2000):  # bounded: the client normally gives up long before
                    await asyncio.sleep(reply.drip_every)
                    writer.write(f"{len(reply.drip):x}\r\n".encode() + reply.drip + b"\r\n")
                    await writer.drain()
            if reply.hang:
                while await reader.read(1024):
                    pass
                self.client_gone.set()
                return
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            self.client_gone.set()
        finally:
            with contextlib.suppress(Exception):
                writer.close()


@pytest.fixture
async def replay() -> AsyncIterator[ReplayServer]:
    server = ReplayServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def rich_request(model: str) -> InferenceRequest:
    """System prompt, image input, a tool round-trip and tools: used by the golden tests."""
    weather = ToolDescriptor("get_weather", "Get Weather", "Weather for a city").with_parameters(
        {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name"}},
            "required": ["city"],
            "additionalProperties": False,
        }
    )
    return InferenceRequest(
        upstream_model=model,
        messages=[
            Message.system("You are a weather bot."),
            Message.user_with_content(
                [
                    ContentBlock.text("What is in this picture?"),
                    ContentBlock.image_base64("image/png", "iVBORw0KGgo="),
                ]
            ),
            Message.assistant("A city skyline."),
            Message.user("Weather in Tokyo?"),
            Message.assistant_with_tool_calls(
                "Checking.", [ToolCall("call_1", "get_weather", {"city": "Tokyo"})]
            ),
            Message.tool("call_1", '{"forecast": "sunny"}'),
        ],
        tools=[weather],
        overrides=InferenceOverride(temperature=0.3, max_tokens=512, top_p=0.9),
        enable_prompt_cache=True,
    )


@pytest.fixture
def rich() -> Callable[[str], InferenceRequest]:
    """Factory of the request the golden tests pin for every adapter."""
    return rich_request
