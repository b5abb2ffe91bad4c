"""The pytest plugin of Awaken's test helpers (entry point ``pytest11``: ``awaken``).

Fixtures:

* ``serve`` — ``url = await serve(app, **uvicorn_options)`` serves an ASGI app on a free
  loopback port with :class:`~awaken_runtime.testing.asgi.EmbeddedServer`; every app served is
  stopped (newest first) when the test ends;
* ``until`` — :func:`~awaken_runtime.testing.wait_until`;
* ``sse`` — ``sse.iter(response)`` / ``await sse.collect(response)``.

A ``conftest.py`` fixture of the same name takes precedence, as with every pytest plugin.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest

try:  # an async fixture needs pytest-asyncio; its decorator also works in strict mode
    from pytest_asyncio import fixture as async_fixture
except ImportError:  # pragma: no cover - without pytest-asyncio the fixture is not usable
    async_fixture = pytest.fixture  # type: ignore[assignment]

from awaken_runtime.testing.polling import wait_until
from awaken_runtime.testing.sse import collect_sse, iter_sse

if TYPE_CHECKING:
    from awaken_runtime.testing.asgi import RunningServer

__all__ = ["ServeAsgi", "serve", "sse", "until"]

ServeAsgi = Callable[..., Awaitable[str]]


@async_fixture
async def serve() -> AsyncIterator[ServeAsgi]:
    """``await serve(app)``: the base URL of ``app`` on a free loopback port."""
    from awaken_runtime.testing.asgi import serve_asgi  # uvicorn is optional

    started: list[RunningServer] = []

    async def serve_app(app: Any, **options: Any) -> str:
        running = await serve_asgi(app, **options)
        started.append(running)
        return running.url

    yield serve_app
    for running in reversed(started):
        await running.stop()


@pytest.fixture
def until() -> Callable[..., Awaitable[Any]]:
    """``await until(check, limit_secs=…, message=…)`` polls a condition, failing loudly."""
    return wait_until


@pytest.fixture
def sse() -> SimpleNamespace:
    """SSE helpers: ``sse.iter(response)``, ``await sse.collect(response)``."""
    return SimpleNamespace(iter=iter_sse, collect=collect_sse)
