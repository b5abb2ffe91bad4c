"""Test helpers for the server: a live server on a loopback port with a fast mailbox.

Built on :mod:`awaken_runtime.testing.asgi` (embedded uvicorn, signal handlers left alone).

```python
live = await start_server()                       # the demo agent "assistant", in memory
response = await live.client.post("/v1/runs", json={...})
await live.close()
```
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
from awaken_runtime.testing.asgi import RunningServer, serve_asgi
from awaken_stores import InMemoryStore

from awaken_server import AppState, MailboxConfig, ServerConfig
from awaken_server.bootstrap import ServeSetup, default_system_config
from awaken_server.serve import prepare_app

__all__ = ["LiveServer", "fast_mailbox", "serve_state", "start_server", "test_server_config"]


@dataclass
class LiveServer:
    """A running server: its base URL, state, an httpx client and the uvicorn handle."""

    url: str
    state: AppState
    client: httpx.AsyncClient
    running: RunningServer

    async def stop(self) -> None:
        """Stop serving (the client and the store stay open)."""
        await self.running.stop()

    async def close(self) -> None:
        """Close the client, stop serving and close the store when it has ``close``."""
        await self.client.aclose()
        await self.stop()
        close = getattr(self.state.store, "close", None)
        if close is not None:  # e.g. SQLite's worker thread must not outlive the test
            await close()


def fast_mailbox() -> MailboxConfig:
    """A mailbox with short intervals so tests run fast."""
    return MailboxConfig(
        lease_ms=2_000,
        lease_renewal_interval=0.3,
        sweep_interval=0.3,
        gc_interval=5,
        poll_interval=0.2,
        default_retry_delay_ms=20,
    )


def test_server_config(**overrides: Any) -> ServerConfig:
    """A loopback ``ServerConfig`` with the fast mailbox, no request limit and the default
    agent ``assistant``; ``overrides`` replace fields."""
    base: dict[str, Any] = {
        "address": "127.0.0.1:0",
        "default_agent_id": "assistant",
        "mailbox": fast_mailbox(),
        "max_concurrent_requests": 0,
    }
    base.update(overrides)
    return ServerConfig(**base)


test_server_config.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


async def serve_state(app: Any, state: AppState) -> LiveServer:
    """Serve an app built over ``state`` (lifespan on) with a client on its URL."""
    running = await serve_asgi(app, lifespan="on")
    client = httpx.AsyncClient(base_url=running.url, timeout=30)
    return LiveServer(running.url, state, client, running)


async def start_server(
    store: Any = None,
    config: ServerConfig | None = None,
    setup: ServeSetup | None = None,
) -> LiveServer:
    """Serve ``setup`` (default: the demo agent ``assistant``) over ``store`` (default: in
    memory) on 127.0.0.1:<free port>."""
    setup = setup if setup is not None else default_system_config({})
    store = store if store is not None else InMemoryStore()
    app, state = await prepare_app(setup, store, config or test_server_config())
    return await serve_state(app, state)
