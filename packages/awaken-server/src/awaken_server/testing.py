"""Test helpers for the server: a live server on a loopback port with a fast mailbox, and
``awaken serve`` as a real subprocess (:class:`ServeProcess`, for kill and restart tests).

Built on :mod:`awaken_runtime.testing.asgi` (embedded uvicorn, signal handlers left alone).

```python
live = await start_server()                       # the demo agent "assistant", in memory
response = await live.client.post("/v1/runs", json={...})
await live.close()
```
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from awaken_contract.contract.journal import JournalEntry
from awaken_runtime.testing.asgi import RunningServer, serve_asgi
from awaken_runtime.testing.replay import assert_runs_replay
from awaken_stores import InMemoryStore

from awaken_server import AppState, MailboxConfig, ServerConfig
from awaken_server.bootstrap import ServeSetup, default_system_config, open_store, setup_from_file
from awaken_server.serve import prepare_app, served_runtime

__all__ = [
    "KILL_TEST_CONFIG",
    "LiveServer",
    "ServeProcess",
    "assert_served_runs_replay",
    "fast_mailbox",
    "free_port",
    "read_journal",
    "serve_processes",
    "serve_state",
    "serving",
    "start_server",
    "test_server_config",
]


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


KILL_TEST_CONFIG = """
server:
  mailbox:
    lease_ms: 1500
    suspended_lease_ms: 1500
    lease_renewal_interval: 0.3
    sweep_interval: 0.3
    poll_interval: 0.2
    default_retry_delay_ms: 20
"""
"""A config for :class:`ServeProcess`: short leases, so a killed instance's jobs come back fast."""

_JOB_START = re.compile(r"job start job_id=(\S+) run_id=\S+ thread_id=\S+ consumer=(\S+)")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_BANNER = re.compile(r"awaken serving on (http://127\.0\.0\.1:\d+)")


class ServeProcess:
    """``awaken serve`` in a subprocess (the offline demo model), its log in ``tmp/<name>.log``.

    The working directory is ``tmp`` (so its ``.awaken/`` data dir, i.e. the instance
    identity, survives a restart in the same folder)."""

    def __init__(
        self,
        tmp: Path,
        store_url: str | None,
        name: str,
        config: bool = True,
        config_text: str = KILL_TEST_CONFIG,
    ) -> None:
        self._url: str | None = None
        # ``--port 0``: the OS picks the port when the server binds and the banner names it,
        # so no other process can take a port probed beforehand.
        args = ["serve", "--port", "0"]
        if config:
            (tmp / "awaken.yaml").write_text(config_text)
            args += ["--config", str(tmp / "awaken.yaml")]
        if store_url:
            args += ["--store", store_url]
        self.log_path = tmp / f"{name}.log"
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.pop("LLM_BASE_URL", None)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from awaken.cli import main; sys.exit(main())",
                *args,
            ],
            stdout=self.log_path.open("wb"),
            stderr=subprocess.STDOUT,
            env=env,
            cwd=tmp,
        )

    @property
    def url(self) -> str:
        """The server's base URL (known once :meth:`ready` has returned)."""
        if self._url is None:
            raise AssertionError("ServeProcess.url before ready(): the port is not known yet")
        return self._url

    @property
    def port(self) -> int:
        """The port the server bound (known once :meth:`ready` has returned)."""
        return int(self.url.rsplit(":", 1)[1])

    async def ready(self) -> None:
        """Wait for the banner naming the bound URL, then until ``/health`` answers (fails
        when the process exits first or after ~30 s)."""
        async with httpx.AsyncClient() as client:
            for _ in range(600):
                if self.proc.poll() is not None:
                    raise AssertionError(f"server exited: {self.log()}")
                if self._url is None and (found := _BANNER.search(self.log())) is not None:
                    self._url = found.group(1)
                if self._url is not None:
                    try:
                        if (await client.get(f"{self._url}/health")).status_code == 200:
                            return
                    except httpx.TransportError:
                        pass
                await asyncio.sleep(0.05)
        raise AssertionError(f"server did not start: {self.log()}")

    def log(self) -> str:
        """The process output so far."""
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL: no shutdown, claims are left behind."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        """SIGTERM (graceful), SIGKILL after 20 s."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()

    def job_starts(self) -> list[tuple[str, str]]:
        """``(job_id, consumer)`` of every job this process started (from its log)."""
        return _JOB_START.findall(self.log())


def serve_processes(tmp: Path, store_url: str, *names: str) -> list[ServeProcess]:
    """One :class:`ServeProcess` on ``store_url`` per name, each in its own folder
    ``tmp/<name>`` (its own data dir, hence its own instance identity)."""
    servers = []
    for name in names:
        (tmp / name).mkdir(exist_ok=True)
        servers.append(ServeProcess(tmp / name, store_url, name))
    return servers


@contextlib.asynccontextmanager
async def serving(
    servers: list[ServeProcess], request_timeout: float = 60
) -> AsyncIterator[list[httpx.AsyncClient]]:
    """Wait until every server answers, then an httpx client per server (``request_timeout``
    per request); afterwards the clients are closed and every server is stopped (SIGTERM)."""
    try:
        for server in servers:
            await server.ready()
        async with contextlib.AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(
                    httpx.AsyncClient(base_url=s.url, timeout=request_timeout)
                )
                for s in servers
            ]
            yield clients
    finally:
        for server in servers:
            server.stop()


async def read_journal(store_url: str, run_id: str) -> list[JournalEntry]:
    """The journal of ``run_id`` read straight from the store at ``store_url``."""
    store = open_store(store_url)
    try:
        return list(await store.read(run_id))
    finally:
        await store.close()


async def assert_served_runs_replay(store_url: str, config_path: Path) -> int:
    """Every finished run in the store at ``store_url`` replays identical with the agents
    ``awaken serve --config config_path`` builds (as ``awaken replay`` does); the number
    replayed. For a store a subprocess wrote: call it once that process has exited."""
    setup = setup_from_file(config_path)
    store = open_store(store_url)
    try:
        async with served_runtime(setup, store, setup.server) as runtime:
            return await assert_runs_replay(runtime, store)
    finally:
        await store.close()
