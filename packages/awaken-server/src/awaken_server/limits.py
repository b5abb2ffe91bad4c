"""The request guard (ASGI middleware): hosts, auth, ids, concurrency and body limits, metrics.

In order, for every HTTP request:

- ``Host`` outside the allow-list → 421 (DNS-rebinding protection, ``security.hosts``).
- ``/v1`` routes need a configured API key (``Authorization: Bearer``) when keys are set;
  ``/health*`` and ``/metrics`` only when ``auth_health`` / ``auth_metrics``. Config routes
  need the admin token when one is configured; config writes and agent previews are admin-only
  operations (``security.admin``).
- A path id (thread, run, agent, config id) breaking the shared id rule → 400.
- A body larger than ``max_body_bytes`` → 413.
- Streams (``security.streams``) beyond ``max_concurrent_streams`` and other requests beyond
  ``max_concurrent_requests`` → 503 with ``Retry-After``; ``/health*`` is never refused.

Metrics labels are bounded: a fixed set of methods (else ``other``) and route templates.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.convertors import PathConvertor
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from awaken_server.auth import BearerAuth
from awaken_server.errors import (
    ApiError,
    Misdirected,
    PayloadTooLarge,
    ServiceUnavailable,
)
from awaken_server.metrics import ServerMetrics
from awaken_server.route_table import RouteTable
from awaken_server.security.admin import AdminGate, header_of
from awaken_server.security.hosts import HostPolicy, scope_port
from awaken_server.security.principal import remember_user
from awaken_server.security.streams import is_event_stream, opens_stream
from awaken_server.wire import edge_id

__all__ = ["GuardSettings", "RequestGuard", "RouteMatch", "metric_method"]

_ADMIN_PREFIXES = ("/v1/config", "/v1/capabilities", "/v1/agents")
_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_ADMIN_ONLY_PATHS = {"/v1/ai-sdk/agent-previews/runs": "agent previews"}
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def metric_method(method: str) -> str:
    """``method`` when it is a standard HTTP method, else ``other`` (bounded label)."""
    return method if method in _METHODS else "other"


@dataclass(frozen=True, slots=True)
class RouteMatch:
    """The route serving a request: its template (``unmatched`` when none) and path params."""

    template: str
    route: BaseRoute | None
    params: dict[str, Any]


UNMATCHED = RouteMatch("unmatched", None, {})


def route_matcher(table: RouteTable) -> Callable[[Scope], RouteMatch]:
    """A function finding the route (first full match, else first partial) of a request."""

    def match(scope: Scope) -> RouteMatch:
        _, route, child = table.match(scope)
        if route is None:
            return UNMATCHED
        return RouteMatch(
            getattr(route, "path", "unmatched"), route, dict(child.get("path_params", {}))
        )

    return match


@dataclass(frozen=True, slots=True)
class GuardSettings:
    """What the guard enforces."""

    api_auth: BearerAuth
    admin_auth: BearerAuth
    admin_gate: AdminGate
    hosts: HostPolicy
    max_concurrent_requests: int
    max_concurrent_streams: int
    max_body_bytes: int
    auth_health: bool
    auth_metrics: bool


class _BodyTooLarge(Exception):
    pass


class RequestGuard:
    """Pure ASGI middleware guarding every HTTP request."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        settings: GuardSettings,
        metrics: ServerMetrics,
        route_of: Callable[[Scope], RouteMatch],
    ) -> None:
        self.app = app
        self.settings = settings
        self.metrics = metrics
        self.route_of = route_of
        self.in_flight = 0
        """Short requests being served (streams excluded)."""
        self.streams = 0
        """Event streams open."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        matched = self.route_of(scope)
        is_stream = opens_stream(matched.route, scope)
        slot = {"kind": "stream" if is_stream else "request"}

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                self._record(scope, matched, message["status"], started)
                if slot["kind"] == "request" and is_event_stream(message.get("headers", [])):
                    self._release(slot)
                    slot["kind"] = "stream"
                    self.streams += 1
            await send(message)

        try:
            self._check_host(scope)
            remember_user(scope, self._authorize(scope))
            self._check_ids(matched)
            self._check_length(scope)
            self._admit(scope, slot)
        except ApiError as exc:
            await exc.response()(scope, receive, send_wrapper)
            return
        self.metrics.http_in_flight.inc()
        try:
            await self.app(scope, self._limited(receive), send_wrapper)
        except _BodyTooLarge:
            await self._too_large().response()(scope, receive, send_wrapper)
        finally:
            self._release(slot)
            self.metrics.http_in_flight.dec()

    # ------------------------------------------------------------------ slots
    def _admit(self, scope: Scope, slot: dict[str, str]) -> None:
        s = self.settings
        if slot["kind"] == "stream":
            if 0 < s.max_concurrent_streams <= self.streams:
                raise ServiceUnavailable("too many open streams", headers={"Retry-After": "1"})
            self.streams += 1
            return
        if str(scope.get("path", "")).startswith("/health"):
            slot["kind"] = "free"
            return
        if 0 < s.max_concurrent_requests <= self.in_flight:
            raise ServiceUnavailable("too many concurrent requests", headers={"Retry-After": "1"})
        self.in_flight += 1

    def _release(self, slot: dict[str, str]) -> None:
        kind = slot["kind"]
        if kind == "stream":
            self.streams -= 1
        elif kind == "request":
            self.in_flight -= 1
        slot["kind"] = "released"

    # ------------------------------------------------------------------ checks
    def _record(self, scope: Scope, matched: RouteMatch, status: int, started: float) -> None:
        labels = (metric_method(str(scope.get("method", ""))), matched.template, str(status))
        self.metrics.http_requests.labels(*labels).inc()
        self.metrics.http_duration.labels(*labels).observe(time.perf_counter() - started)

    def _check_host(self, scope: Scope) -> None:
        raw = header_of(scope, b"host")
        host = raw.decode("latin-1") if raw is not None else None
        if not self.settings.hosts.allows(host, scope_port(scope)):
            raise Misdirected(f"host not allowed: {host!r} (see server.security.allowed_hosts)")

    def _authorize(self, scope: Scope) -> str | None:
        """Check the request's credentials; the user its API key belongs to, if any."""
        s = self.settings
        path: str = scope.get("path", "")
        method = scope.get("method")
        if method == "OPTIONS":
            return None
        header = header_of(scope, b"authorization")
        user: str | None = None
        if path.startswith(_ADMIN_PREFIXES) and s.admin_auth.enabled:
            s.admin_auth.check(header)
        elif path.startswith("/v1"):
            user = s.api_auth.check(header)
        elif path.startswith("/health"):
            if s.auth_health:
                s.api_auth.check(header)
        elif path.startswith("/metrics") and s.auth_metrics:
            s.api_auth.check(header)
        if path.startswith("/v1/config") and method in _WRITE_METHODS:
            s.admin_gate.check(scope, "config changes")
        elif path in _ADMIN_ONLY_PATHS and method in _WRITE_METHODS:
            s.admin_gate.check(scope, _ADMIN_ONLY_PATHS[path])
        return user

    def _check_ids(self, matched: RouteMatch) -> None:
        route = matched.route
        convertors = getattr(route, "param_convertors", {})
        for name, value in matched.params.items():
            if not isinstance(value, str):
                continue
            what = name.replace("_", " ")
            parts = value.split("/") if isinstance(convertors.get(name), PathConvertor) else [value]
            for part in parts:
                if part:
                    edge_id(part, what)

    def _too_large(self) -> PayloadTooLarge:
        return PayloadTooLarge(f"request body exceeds {self.settings.max_body_bytes} bytes")

    def _check_length(self, scope: Scope) -> None:
        raw = header_of(scope, b"content-length")
        limit = self.settings.max_body_bytes
        if raw is not None and raw.isdigit() and limit > 0 and int(raw) > limit:
            raise self._too_large()

    def _limited(self, receive: Receive) -> Receive:
        limit = self.settings.max_body_bytes
        if limit <= 0:
            return receive
        seen = 0

        async def wrapped() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _BodyTooLarge
            return message

        return wrapped
