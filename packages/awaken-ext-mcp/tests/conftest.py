"""Fixtures: real MCP servers (stdio children and a Streamable HTTP server process).

``until`` comes from the ``awaken`` pytest plugin (:func:`awaken_runtime.testing.wait_until`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from awaken_contract.registry_spec import McpRestartPolicy
from awaken_ext_mcp import McpServerConnectionConfig

SERVER_SCRIPT = str(Path(__file__).with_name("mcp_demo_server.py"))

FAST_RESTART = McpRestartPolicy(
    enabled=True, max_attempts=5, delay_ms=50, backoff_multiplier=2.0, max_delay_ms=400
)


def stdio_config(name: str = "local", **options: object) -> McpServerConnectionConfig:
    """A stdio config running the demo server with a fast reconnect policy."""
    options.setdefault("restart_policy", FAST_RESTART)
    return McpServerConnectionConfig.stdio(name, sys.executable, [SERVER_SCRIPT], **options)


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (exited and reaped, or a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in status


class HttpServer:
    """The demo server over Streamable HTTP in a child process on a loopback port."""

    def __init__(self, transport: str = "http") -> None:
        self.transport = transport
        self.port = 0
        self.proc: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        path = "sse" if self.transport == "sse" else "mcp"
        return f"http://127.0.0.1:{self.port}/{path}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, SERVER_SCRIPT, self.transport, str(self.port)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.startswith("READY"), line
        self.port = int(line.split()[1])

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def _serve(transport: str) -> Iterator[HttpServer]:
    server = HttpServer(transport)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def http_server() -> Iterator[HttpServer]:
    yield from _serve("http")


@pytest.fixture
def sse_server() -> Iterator[HttpServer]:
    yield from _serve("sse")


@pytest.fixture
async def stdio_manager() -> AsyncIterator[object]:
    from awaken_ext_mcp import McpToolRegistryManager

    manager = await McpToolRegistryManager.connect([stdio_config()])
    try:
        yield manager
    finally:
        await manager.close()


@pytest.fixture
def make_stdio_config() -> Callable[..., McpServerConnectionConfig]:
    """Factory of demo-server stdio configs."""
    return stdio_config


@pytest.fixture
def gone() -> Callable[[int], bool]:
    """The ``process_gone`` helper."""
    return process_gone
