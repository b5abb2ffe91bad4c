"""The native HTTP routes, grouped by concept."""

from __future__ import annotations

from starlette.routing import BaseRoute, Router

from awaken_server.routes.config import config_routes
from awaken_server.routes.health import health_routes
from awaken_server.routes.runs import run_routes
from awaken_server.routes.threads import thread_routes

__all__ = [
    "build_router",
    "config_routes",
    "health_routes",
    "native_routes",
    "run_routes",
    "thread_routes",
]


def native_routes() -> list[BaseRoute]:
    """Every native route: health/metrics, threads, runs, config and capabilities."""
    return [*health_routes(), *thread_routes(), *run_routes(), *config_routes()]


def build_router() -> Router:
    """A Starlette router with every native route (book: ``build_router()``); the routes
    read the :class:`AppState` from ``request.app.state.awaken``, so prefer ``create_app``."""
    return Router(routes=native_routes())
