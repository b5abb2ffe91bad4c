"""Fixtures: a real uvicorn server on a free loopback port, driven with httpx.

The helpers live in :mod:`awaken_server.testing`; ``serve``, ``until`` and ``sse`` come from the
``awaken`` pytest plugin (:mod:`awaken_runtime.testing.pytest_plugin`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from awaken_contract.testing.postgres import postgres_dsn
from awaken_server import ServerConfig
from awaken_server.testing import LiveServer, start_server, test_server_config

__all__ = ["postgres_dsn"]

ServerFactory = Callable[..., Awaitable[LiveServer]]


@pytest.fixture
async def make_server() -> AsyncIterator[ServerFactory]:
    """``await make_server(store=None, config=None, setup=None)``: a live server, closed (with
    its store) when the test ends."""
    servers: list[LiveServer] = []

    async def factory(
        store: Any = None, config: ServerConfig | None = None, setup: Any = None
    ) -> LiveServer:
        live = await start_server(store, config, setup)
        servers.append(live)
        return live

    yield factory
    for live in servers:
        await live.close()


@pytest.fixture
async def live(make_server: ServerFactory) -> LiveServer:
    return await make_server()


@pytest.fixture
def server_config() -> Callable[..., ServerConfig]:
    """``server_config(**overrides)``: a test ServerConfig (fast mailbox, loopback)."""
    return test_server_config


DemoRun = Callable[[LiveServer, Callable[[], Awaitable[None]]], Awaitable[None]]


@pytest.fixture
def measured_demo_run() -> DemoRun:
    """``await measured_demo_run(server, reset)``: one warm-up run of the demo agent's 2-step
    weather run (opens connections, fills caches), then ``reset()`` (clear a counter), then the
    measured run — asserted to have finished after a tool call."""

    async def run(server: LiveServer, reset: Callable[[], Awaitable[None]]) -> None:
        body = {
            "agentId": "assistant",
            "messages": [{"role": "user", "content": "weather in Paris"}],
        }
        warm = await server.client.post("/v1/runs", json=body)
        assert "run_finish" in warm.text
        await reset()
        response = await server.client.post("/v1/runs", json=body)
        assert response.status_code == 200 and "run_finish" in response.text
        assert "tool_call_done" in response.text  # the 2-step run: a tool call, then the answer

    return run
