"""Fixtures: a real uvicorn server on a free loopback port, driven with httpx."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn
from awaken_contract.testing.postgres import postgres_dsn
from awaken_server.app import AppState, ServerConfig
from awaken_server.bootstrap import default_system_config
from awaken_server.mailbox import MailboxConfig
from awaken_server.serve import prepare_app
from awaken_stores import InMemoryStore

__all__ = ["postgres_dsn"]


@dataclass
class LiveServer:
    """A running server: its base URL, state and an httpx client."""

    url: str
    state: AppState
    client: httpx.AsyncClient
    server: uvicorn.Server
    task: asyncio.Task[None]

    async def stop(self) -> None:
        await stop_asgi(self.server, self.task)


class EmbeddedServer(uvicorn.Server):
    """uvicorn that leaves the process's signal handlers alone.

    ``uvicorn.Server.serve`` swaps SIGINT/SIGTERM for its own ``handle_exit`` and puts the
    previous handler back when it returns, which only nests: two servers of one test stopped
    in start order leave the first one's (already exited) handler installed for the rest of
    the process. ``sse_starlette`` — the SSE writer of the MCP SDK — finds "the" uvicorn server
    through that handler and closes every SSE stream as soon as it reads ``should_exit``,
    so every later MCP/SSE test would get its streams closed before the first event.
    Servers embedded in a test process are stopped by the test, never by a signal.
    """

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve_asgi(app: Any, **options: Any) -> tuple[uvicorn.Server, asyncio.Task[None], str]:
    """Serve ``app`` with uvicorn on 127.0.0.1:<free port>: the server, its task, its base URL.

    ``options`` are extra ``uvicorn.Config`` arguments.
    """
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", **options)
    server = EmbeddedServer(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, task, f"http://127.0.0.1:{port}"


async def stop_asgi(server: uvicorn.Server, task: asyncio.Task[None]) -> None:
    """Ask a server started by :func:`serve_asgi` to exit and wait (up to 30 s) for it."""
    server.should_exit = True
    with contextlib.suppress(Exception):
        await asyncio.wait_for(task, 30)


ServeAsgi = Callable[[Any], Awaitable[str]]


@pytest.fixture
async def serve() -> AsyncIterator[ServeAsgi]:
    """``await serve(app)``: the base URL of ``app`` on a free loopback port.

    Every app served is stopped (newest first) when the test ends.
    """
    started: list[tuple[uvicorn.Server, asyncio.Task[None]]] = []

    async def serve_app(app: Any) -> str:
        server, task, url = await serve_asgi(app)
        started.append((server, task))
        return url

    yield serve_app
    for server, task in reversed(started):
        await stop_asgi(server, task)


def fast_mailbox() -> MailboxConfig:
    """Short intervals so tests run fast."""
    return MailboxConfig(
        lease_ms=2_000,
        lease_renewal_interval=0.3,
        sweep_interval=0.3,
        gc_interval=5,
        poll_interval=0.2,
        default_retry_delay_ms=20,
    )


def make_config(**overrides: Any) -> ServerConfig:
    base: dict[str, Any] = {
        "address": "127.0.0.1:0",
        "default_agent_id": "assistant",
        "mailbox": fast_mailbox(),
        "max_concurrent_requests": 0,
    }
    base.update(overrides)
    return ServerConfig(**base)


async def start_server(
    store: Any = None, config: ServerConfig | None = None, setup: Any = None
) -> LiveServer:
    """Serve ``setup`` (default: the demo agent ``assistant``) over ``store`` on
    127.0.0.1:<free port>."""
    setup = setup if setup is not None else default_system_config({})
    store = store if store is not None else InMemoryStore()
    app, state = await prepare_app(setup, store, config or make_config())
    server, task, url = await serve_asgi(app, lifespan="on")
    client = httpx.AsyncClient(base_url=url, timeout=30)
    return LiveServer(url, state, client, server, task)


ServerFactory = Callable[..., Awaitable[LiveServer]]


@pytest.fixture
async def make_server() -> AsyncIterator[ServerFactory]:
    servers: list[LiveServer] = []

    async def factory(
        store: Any = None, config: ServerConfig | None = None, setup: Any = None
    ) -> LiveServer:
        live = await start_server(store, config, setup)
        servers.append(live)
        return live

    yield factory
    for live in servers:
        await live.client.aclose()
        await live.stop()
        close = getattr(live.state.store, "close", None)
        if close is not None:  # e.g. SQLite's worker thread must not outlive the test
            await close()


@pytest.fixture
async def live(make_server: ServerFactory) -> LiveServer:
    return await make_server()


@dataclass
class SseFrame:
    """One parsed SSE frame: a data frame (``id``, ``data``) or a comment."""

    id: int | None = None
    data: Any = None
    comment: str | None = None


async def iter_sse(response: httpx.Response) -> AsyncIterator[SseFrame]:
    """Parse an SSE response frame by frame (blank line = end of frame)."""
    import json

    frame = SseFrame()
    seen = False
    async for line in response.aiter_lines():
        if line == "":
            if seen:
                yield frame
            frame, seen = SseFrame(), False
            continue
        seen = True
        if line.startswith(":"):
            frame.comment = line[1:].strip()
        elif line.startswith("id:"):
            frame.id = int(line[3:].strip())
        elif line.startswith("data:"):
            frame.data = json.loads(line[5:].strip())
    if seen:
        yield frame


async def collect_sse(response: httpx.Response) -> list[SseFrame]:
    """Every frame of the response."""
    return [f async for f in iter_sse(response)]


@pytest.fixture
def sse() -> Any:
    """SSE helpers: ``sse.iter(response)``, ``await sse.collect(response)``."""

    class _Sse:
        iter = staticmethod(iter_sse)
        collect = staticmethod(collect_sse)

    return _Sse()


async def wait_until(check: Callable[[], Awaitable[bool]], limit_secs: float = 20.0) -> None:
    """Poll ``check`` until it is true (fails the test after ``timeout`` seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_secs
    while not await check():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.05)


@pytest.fixture
def until() -> Callable[..., Awaitable[None]]:
    """``await until(async_check)`` polls a condition."""
    return wait_until


@pytest.fixture
def server_config() -> Callable[..., ServerConfig]:
    """``server_config(**overrides)``: a test ServerConfig (fast mailbox, loopback)."""
    return make_config
