"""One live connection to an MCP server, built on the official ``mcp`` SDK client.

The SDK's client is an async context manager whose task group must be entered and exited by the
same task, so every connection runs an *owner task* that opens the client, waits until
:meth:`McpConnection.close` is called, and closes it (for stdio: stdin closed, then SIGTERM, then
SIGKILL — the child never outlives the connection). Requests are sent from any task.

SDK exceptions are translated into :class:`McpCallFailure` with a :class:`McpFailureKind`, which
the registry manager uses to decide about reconnects.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import enum
import importlib.metadata
import logging
import os
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import IO, Any

import httpx2
import pydantic
from awaken_contract.registry_spec import McpTransport
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, METHOD_NOT_FOUND, REQUEST_TIMEOUT, Implementation

from awaken_ext_mcp.config import McpServerConnectionConfig
from awaken_ext_mcp.errors import McpError

__all__ = ["CLIENT_NAME", "McpCallFailure", "McpConnection", "McpFailureKind", "client_version"]

logger = logging.getLogger(__name__)

CLIENT_NAME = "awaken-mcp"
"""``clientInfo.name`` sent on initialize."""

_CLOSE_TIMEOUT = 10.0
_STDERR_TAIL_LINES = 5

ProgressCallback = ProgressFnT


def client_version() -> str:
    """``clientInfo.version``: the installed version of ``awaken-ext-mcp``."""
    try:
        return importlib.metadata.version("awaken-ext-mcp")
    except importlib.metadata.PackageNotFoundError:
        return "0.0.0"


class McpFailureKind(enum.StrEnum):
    """Why a request failed; all but ``SERVER`` and ``UNSUPPORTED`` count toward a reconnect."""

    CLOSED = "closed"
    TIMEOUT = "timeout"
    PROTOCOL = "protocol"
    TRANSPORT = "transport"
    SERVER = "server"
    UNSUPPORTED = "unsupported"

    @property
    def tracked(self) -> bool:
        """Counts toward the consecutive-failure threshold."""
        return self not in (McpFailureKind.SERVER, McpFailureKind.UNSUPPORTED)


class McpCallFailure(McpError):
    """A request to an MCP server failed."""

    def __init__(self, kind: McpFailureKind, message: str) -> None:
        self.kind = kind
        super().__init__(message)


def _dump(model: Any) -> dict[str, Any]:
    if isinstance(model, pydantic.BaseModel):
        data: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
        return data
    return dict(model)


def _flatten(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def _translate(exc: BaseException, timeout: float) -> McpCallFailure:
    exc = _flatten(exc)
    if isinstance(exc, McpCallFailure):
        return exc
    if isinstance(exc, MCPError):
        if exc.code == CONNECTION_CLOSED and "closed" in exc.message.lower():
            return McpCallFailure(McpFailureKind.CLOSED, "mcp transport error: connection closed")
        if exc.code == REQUEST_TIMEOUT:
            return McpCallFailure(
                McpFailureKind.TIMEOUT, f"timeout: Request timed out after {timeout:g}s"
            )
        if exc.code == METHOD_NOT_FOUND or "not supported" in exc.message.lower():
            return McpCallFailure(McpFailureKind.UNSUPPORTED, f"MCP Error: {exc.message}")
        return McpCallFailure(McpFailureKind.SERVER, f"Server error: MCP Error: {exc.message}")
    if isinstance(exc, TimeoutError):
        return McpCallFailure(
            McpFailureKind.TIMEOUT, f"timeout: Request timed out after {timeout:g}s"
        )
    if isinstance(exc, pydantic.ValidationError):
        return McpCallFailure(McpFailureKind.PROTOCOL, f"Protocol error: {exc}")
    text = str(exc) or type(exc).__name__
    return McpCallFailure(McpFailureKind.TRANSPORT, f"mcp transport error: {text}")


def _discard_outcome(ready: asyncio.Future[None]) -> None:
    """Mark the abandoned handshake's outcome as seen (closing it sets "connection cancelled",
    which nobody awaits any more)."""
    if ready.done() and not ready.cancelled():
        ready.exception()


def _drain_stderr(fd: int, server: str, tail: collections.deque[str]) -> None:
    """Log a stdio server's stderr lines at debug level until EOF, keeping the last ones."""
    with open(fd, encoding="utf-8", errors="replace") as stream:
        for line in stream:
            tail.append(line.rstrip())
            logger.debug("mcp server %s stderr: %s", server, line.rstrip())


class McpConnection:
    """A connection to one server. Use :meth:`open` once, then the request methods, then
    :meth:`close`. :attr:`alive` turns false when the server went away."""

    def __init__(self, config: McpServerConnectionConfig) -> None:
        self.config = config
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._alive = False
        self._errlog: IO[str] | None = None
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL_LINES)
        self._drain: threading.Thread | None = None
        self.error: str | None = None

    # ------------------------------------------------------------------ lifecycle
    @property
    def alive(self) -> bool:
        """Connected and not known to be dead."""
        return self._alive and self._client is not None

    def mark_dead(self, reason: str) -> None:
        """Record that the server went away (a request saw the connection closed)."""
        self._alive = False
        self.error = reason

    @property
    def capabilities(self) -> dict[str, Any] | None:
        """The server's capabilities as JSON, ``None`` before the handshake."""
        if self._client is None:
            return None
        try:
            return _dump(self._client.server_capabilities)
        except RuntimeError:
            return None

    def supports(self, capability: str) -> bool:
        """Whether the server announced ``capability`` (unknown capabilities count as yes)."""
        caps = self.capabilities
        return caps is None or capability in caps

    async def open(self) -> None:
        """Start the server / open the session and complete the handshake.

        Raises :class:`McpCallFailure` when it fails or exceeds ``timeout_secs``.
        """
        if self._task is not None:
            raise McpError(f"connection to '{self.config.name}' was already opened")
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        self._task = asyncio.create_task(self._own(ready), name=f"mcp:{self.config.name}")
        timeout = float(self.config.timeout_secs)
        try:
            await asyncio.wait_for(asyncio.shield(ready), timeout)
        except TimeoutError:
            await self.close()
            _discard_outcome(ready)
            raise McpCallFailure(
                McpFailureKind.TIMEOUT, f"timeout: handshake timed out after {timeout:g}s"
            ) from None
        except asyncio.CancelledError:
            await self.close()
            _discard_outcome(ready)
            raise
        except BaseException as exc:
            await self.close()
            failure = _translate(exc, timeout)
            if self._drain is not None:
                await asyncio.to_thread(self._drain.join, 1.0)
            if self._stderr_tail:
                failure = McpCallFailure(
                    failure.kind, f"{failure.message} (stderr: {' | '.join(self._stderr_tail)})"
                )
            raise failure from None

    async def _own(self, ready: asyncio.Future[None]) -> None:
        try:
            async with self._client_context() as client:
                self._client = client
                self._alive = True
                if not ready.done():
                    ready.set_result(None)
                await self._stop.wait()
        except asyncio.CancelledError:
            if not ready.done():
                ready.set_exception(McpError("connection cancelled"))
            raise
        except BaseException as exc:
            flat = _flatten(exc)
            self.error = str(flat) or type(flat).__name__
            if not ready.done():
                ready.set_exception(flat if isinstance(flat, Exception) else exc)
            else:
                logger.debug("mcp server %s connection ended: %r", self.config.name, flat)
        finally:
            self._alive = False
            self._client = None
            if self._errlog is not None:
                self._errlog.close()
                self._errlog = None

    @contextlib.asynccontextmanager
    async def _client_context(self) -> AsyncIterator[Client]:
        cfg = self.config
        info = Implementation(name=CLIENT_NAME, version=client_version())
        timeout = float(cfg.timeout_secs)
        async with contextlib.AsyncExitStack() as stack:
            if cfg.transport is McpTransport.STDIO:
                read_fd, write_fd = os.pipe()
                self._errlog = os.fdopen(write_fd, "w")
                self._drain = threading.Thread(
                    target=_drain_stderr,
                    args=(read_fd, cfg.name, self._stderr_tail),
                    daemon=True,
                )
                self._drain.start()
                params = StdioServerParameters(
                    command=cfg.command or "",
                    args=list(cfg.args),
                    env={**os.environ, **cfg.env},
                    cwd=cfg.cwd,
                )
                transport: Any = stdio_client(params, errlog=self._errlog)
            elif cfg.transport is McpTransport.HTTP:
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(
                        headers=dict(cfg.headers),
                        timeout=httpx2.Timeout(timeout, read=max(timeout, 300.0)),
                    )
                )
                transport = streamable_http_client(cfg.url or "", http_client=http)
            else:
                transport = sse_client(cfg.url or "", headers=dict(cfg.headers), timeout=timeout)
            client = Client(transport, cache=None, read_timeout_seconds=timeout, client_info=info)
            yield await stack.enter_async_context(client)

    async def close(self) -> None:
        """Close the session (and terminate a stdio child); idempotent."""
        self._alive = False
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        if self._client is None:
            # still handshaking: nothing to close gracefully, abort the attempt
            task.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(task), _CLOSE_TIMEOUT)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError) and not task.done():
                raise
            logger.debug("closing mcp server %s: %r", self.config.name, exc)

    # ------------------------------------------------------------------ requests
    def _require(self) -> Client:
        client = self._client
        if client is None or not self._alive:
            raise McpCallFailure(McpFailureKind.CLOSED, "mcp transport error: connection closed")
        return client

    async def _request(self, call: Callable[[Client], Awaitable[Any]]) -> dict[str, Any]:
        client = self._require()
        try:
            result = await call(client)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            failure = _translate(exc, float(self.config.timeout_secs))
            if failure.kind is McpFailureKind.CLOSED:
                self.mark_dead(failure.message)
            raise failure from None
        return _dump(result)

    async def list_tools(self) -> list[dict[str, Any]]:
        """``tools/list`` (first page) as JSON tool definitions."""
        result = await self._request(lambda c: c.list_tools())
        tools: list[dict[str, Any]] = result.get("tools", [])
        return tools

    async def call_tool(
        self, name: str, arguments: dict[str, Any], progress: ProgressCallback | None = None
    ) -> dict[str, Any]:
        """``tools/call``; the ``CallToolResult`` as JSON."""
        return await self._request(
            lambda c: c.call_tool(name, arguments, progress_callback=progress)
        )

    async def list_prompts(self) -> list[dict[str, Any]]:
        """``prompts/list`` (first page)."""
        result = await self._request(lambda c: c.list_prompts())
        prompts: list[dict[str, Any]] = result.get("prompts", [])
        return prompts

    async def get_prompt(self, name: str, arguments: dict[str, str] | None) -> dict[str, Any]:
        """``prompts/get``; the raw result JSON."""
        return await self._request(lambda c: c.get_prompt(name, arguments))

    async def list_resources(self) -> list[dict[str, Any]]:
        """``resources/list`` (first page)."""
        result = await self._request(lambda c: c.list_resources())
        resources: list[dict[str, Any]] = result.get("resources", [])
        return resources

    async def read_resource(self, uri: str) -> dict[str, Any]:
        """``resources/read``; the raw result JSON."""
        return await self._request(lambda c: c.read_resource(uri))
