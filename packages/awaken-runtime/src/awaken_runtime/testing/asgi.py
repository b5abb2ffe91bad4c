"""An embedded uvicorn server for tests: on a free loopback port, signal handlers left alone.

``uvicorn.Server.serve`` swaps SIGINT/SIGTERM for its own ``handle_exit`` and puts the previous
handler back when it returns, which only nests: two servers of one test stopped in start order
leave the first one's (already exited) handler installed for the rest of the process.
``sse_starlette`` — the SSE writer of the MCP SDK — finds "the" uvicorn server through that
handler and closes every SSE stream as soon as it reads ``should_exit``, so every later MCP/SSE
test would get its streams closed before the first event. Servers embedded in a test process
are stopped by the test, never by a signal: :class:`EmbeddedServer` installs none.

Needs ``uvicorn`` (``awaken-runtime[testing]``).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from typing import Any

import uvicorn

__all__ = [
    "AppLifespan",
    "EmbeddedServer",
    "RunningServer",
    "ThreadedServer",
    "serve_asgi",
    "serving",
]

STOP_TIMEOUT_SECS = 30.0


class EmbeddedServer(uvicorn.Server):
    """uvicorn that installs no signal handlers and reports when it listens."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.listening = threading.Event()
        """Set when startup ended (check ``started`` for success); for other threads."""
        self.startup_done: asyncio.Event | None = None
        """Set when startup ended, for a waiter on the server's own loop."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def startup(self, sockets: Any = None) -> None:
        try:
            await super().startup(sockets)
        finally:
            self.listening.set()
            if self.startup_done is not None:
                self.startup_done.set()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` of the first listening socket."""
        port = self.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"


def _config(app: Any, port: int, options: dict[str, Any]) -> uvicorn.Config:
    return uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **options)


class RunningServer:
    """A server started by :func:`serve_asgi` on the current event loop."""

    def __init__(self, server: EmbeddedServer, task: asyncio.Task[None]) -> None:
        self.server = server
        self.task = task
        self.url = server.url

    async def stop(self) -> None:
        """Ask the server to exit and wait (bounded) for it."""
        self.server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.task, STOP_TIMEOUT_SECS)


async def serve_asgi(app: Any, **options: Any) -> RunningServer:
    """Serve ``app`` on 127.0.0.1:<free port> in this event loop (``options`` are extra
    ``uvicorn.Config`` arguments, e.g. ``lifespan="on"``); raises when startup fails."""
    server = EmbeddedServer(_config(app, 0, options))
    server.startup_done = done = asyncio.Event()
    task = asyncio.create_task(server.serve(), name="embedded-uvicorn")
    waiter = asyncio.create_task(done.wait())
    await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    if not server.started:
        server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, STOP_TIMEOUT_SECS)  # re-raises a startup error
        raise RuntimeError("the embedded server stopped before it listened")
    return RunningServer(server, task)


@contextlib.asynccontextmanager
async def serving(app: Any, **options: Any) -> AsyncIterator[RunningServer]:
    """``async with serving(app) as server:`` — :func:`serve_asgi`, stopped on exit."""
    running = await serve_asgi(app, **options)
    try:
        yield running
    finally:
        await running.stop()


AppLifespan = Callable[[], AbstractAsyncContextManager[Any]]
"""Opens what the app needs and yields the ASGI app, on the server's own event loop."""


class ThreadedServer:
    """uvicorn in a background thread with its own event loop, for tests whose clients block
    the test's loop (official SDK clients, subprocess drivers). ``lifespan()`` is entered on the
    server's loop (open stores there) and exited after the server stopped."""

    def __init__(self, lifespan: AppLifespan) -> None:
        self._lifespan = lifespan
        self._server: EmbeddedServer | None = None
        self._created = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="awaken-test-server", daemon=True)
        self.base_url = ""

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # surfaced by start()
            self._error = exc
        finally:
            self._created.set()
            if self._server is not None:
                self._server.listening.set()

    async def _serve(self) -> None:
        async with self._lifespan() as app:
            self._server = EmbeddedServer(_config(app, 0, {}))
            self._created.set()
            await self._server.serve()

    def start(self) -> ThreadedServer:
        """Start the thread and wait until the server listens (fails loudly otherwise)."""
        self._thread.start()
        if not self._created.wait(STOP_TIMEOUT_SECS):
            raise AssertionError(f"the test server was not created within {STOP_TIMEOUT_SECS} s")
        server = self._server
        if server is not None and not server.listening.wait(STOP_TIMEOUT_SECS):
            raise AssertionError(f"the test server did not listen within {STOP_TIMEOUT_SECS} s")
        if self._error is not None or server is None or not server.started:
            raise RuntimeError("the test server failed to start") from self._error
        self.base_url = server.url
        return self

    def stop(self) -> None:
        """Ask the server to exit and join the thread."""
        if self._server is not None:
            self._server.should_exit = True
        self._thread.join(STOP_TIMEOUT_SECS)
