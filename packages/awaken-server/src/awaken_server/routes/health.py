"""Health, liveness and Prometheus metrics routes."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from awaken_server.metrics import METRICS_CONTENT_TYPE
from awaken_server.state import state_of
from awaken_server.wire import json_response

__all__ = ["health_routes"]

STORE_CHECK_TIMEOUT_SECS = 5.0


async def health(request: Request) -> Response:
    """Readiness: the store answers a one-thread listing within 5 s → 200, else 503."""
    state = state_of(request)
    try:
        await asyncio.wait_for(state.store.list_threads(0, 1), STORE_CHECK_TIMEOUT_SECS)
        store = "ok"
    except TimeoutError:
        store = "timeout"
    except Exception:
        store = "error"
    runtime = "ok" if state.mailbox.accepting else "stopping"
    healthy = store == "ok" and runtime == "ok"
    body = {
        "status": "healthy" if healthy else "unhealthy",
        "components": {"store": store, "runtime": runtime},
    }
    return json_response(body, 200 if healthy else 503)


async def live(_: Request) -> Response:
    """Liveness: always 200 with an empty body."""
    return Response(status_code=200)


async def metrics(request: Request) -> Response:
    """Prometheus text exposition."""
    state = state_of(request)
    state.metrics.active_runs.set(state.mailbox.active_runs())
    return Response(state.metrics.render(), media_type=METRICS_CONTENT_TYPE)


def health_routes() -> list[BaseRoute]:
    """``/health``, ``/health/live``, ``/metrics``."""
    return [
        Route("/health", health, methods=["GET"]),
        Route("/health/live", live, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]
