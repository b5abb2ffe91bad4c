"""The native HTTP routes, grouped by concept."""

from __future__ import annotations

from starlette.routing import BaseRoute

from awaken_server.routes.config import config_routes
from awaken_server.routes.health import health_routes
from awaken_server.routes.runs import run_routes
from awaken_server.routes.threads import thread_routes

__all__ = ["config_routes", "health_routes", "native_routes", "run_routes", "thread_routes"]


def native_routes() -> list[BaseRoute]:
    """Every native route: health/metrics, threads, runs, config and capabilities."""
    return [*health_routes(), *thread_routes(), *run_routes(), *config_routes()]
