"""The request guard (ASGI middleware): auth, concurrency limit, body size limit, HTTP metrics.

- ``/v1`` routes need a configured API key (``Authorization: Bearer``) when keys are set;
  ``/health*`` and ``/metrics`` only when ``auth_health`` / ``auth_metrics``. Config routes
  need the admin token when one is configured.
- More than ``max_concurrent_requests`` requests in flight → 503 with ``Retry-After``.
- A body larger than ``max_body_bytes`` → 413.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from awaken_server.auth import BearerAuth
from awaken_server.errors import ApiError, PayloadTooLarge, ServiceUnavailable
from awaken_server.metrics import ServerMetrics

__all__ = ["RequestGuard"]

_ADMIN_PREFIXES = ("/v1/config", "/v1/capabilities", "/v1/agents")


class _BodyTooLarge(Exception):
    pass


class RequestGuard:
    """Pure ASGI middleware guarding every HTTP request."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        api_auth: BearerAuth,
        admin_auth: BearerAuth,
        max_concurrent_requests: int,
        max_body_bytes: int,
        auth_health: bool,
        auth_metrics: bool,
        metrics: ServerMetrics,
        route_of: Callable[[Scope], str],
    ) -> None:
        self.app = app
        self.api_auth = api_auth
        self.admin_auth = admin_auth
        self.max_concurrent = max_concurrent_requests
        self.max_body = max_body_bytes
        self.auth_health = auth_health
        self.auth_metrics = auth_metrics
        self.metrics = metrics
        self.route_of = route_of
        self.in_flight = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status_holder = {"status": 500}

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_holder["status"] = message["status"]
                self._record(scope, status_holder["status"], started)
            await send(message)

        try:
            self._authorize(scope)
            self._check_length(scope)
        except ApiError as exc:
            await exc.response()(scope, receive, send_wrapper)
            return
        if self.max_concurrent > 0 and self.in_flight >= self.max_concurrent:
            error = ServiceUnavailable("too many concurrent requests", headers={"Retry-After": "1"})
            await error.response()(scope, receive, send_wrapper)
            return
        self.in_flight += 1
        self.metrics.http_in_flight.inc()
        try:
            await self.app(scope, self._limited(receive), send_wrapper)
        except _BodyTooLarge:
            await self._too_large().response()(scope, receive, send_wrapper)
        finally:
            self.in_flight -= 1
            self.metrics.http_in_flight.dec()

    def _record(self, scope: Scope, status: int, started: float) -> None:
        route = self.route_of(scope)
        method = scope.get("method", "")
        labels = (method, route, str(status))
        self.metrics.http_requests.labels(*labels).inc()
        self.metrics.http_duration.labels(*labels).observe(time.perf_counter() - started)

    def _authorize(self, scope: Scope) -> None:
        path: str = scope.get("path", "")
        if scope.get("method") == "OPTIONS":
            return
        header = _header(scope, b"authorization")
        if path.startswith(_ADMIN_PREFIXES) and self.admin_auth.enabled:
            self.admin_auth.check(header)
            return
        if path.startswith("/v1") or path.startswith("/.well-known"):
            if path.startswith("/.well-known"):
                return
            self.api_auth.check(header)
        elif path.startswith("/health"):
            if self.auth_health:
                self.api_auth.check(header)
        elif path.startswith("/metrics") and self.auth_metrics:
            self.api_auth.check(header)

    def _too_large(self) -> PayloadTooLarge:
        return PayloadTooLarge(f"request body exceeds {self.max_body} bytes")

    def _check_length(self, scope: Scope) -> None:
        raw = _header(scope, b"content-length")
        if raw is not None and raw.isdigit() and int(raw) > self.max_body:
            raise self._too_large()

    def _limited(self, receive: Receive) -> Receive:
        if self.max_body <= 0:
            return receive
        seen = 0

        async def wrapped() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise _BodyTooLarge
            return message

        return wrapped


def _header(scope: Scope, name: bytes) -> Any:
    for key, value in scope.get("headers", []):
        if key == name:
            return value
    return None
