"""W3C trace context of the HTTP request being served.

:class:`TraceContextMiddleware` keeps a valid ``traceparent`` request header in a context
variable for the request's duration; a :class:`RunSubmission` created meanwhile records it, so
the run (even when a worker runs it later) continues the caller's trace.
"""

from __future__ import annotations

import contextvars
import re

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["TraceContextMiddleware", "incoming_trace_parent"]

_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")
_INCOMING: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "awaken_incoming_traceparent", default=None
)


def incoming_trace_parent() -> str | None:
    """The valid ``traceparent`` of the HTTP request being served (``None`` outside one)."""
    return _INCOMING.get()


class TraceContextMiddleware:
    """Remembers a valid W3C ``traceparent`` request header for the request's duration."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        value = None
        for name, raw in scope.get("headers", ()):
            if name == b"traceparent":
                candidate = raw.decode("latin-1").strip().lower()
                if _TRACEPARENT.match(candidate) and not candidate.startswith("ff"):
                    value = candidate
                break
        token = _INCOMING.set(value)
        try:
            await self.app(scope, receive, send)
        finally:
            _INCOMING.reset(token)
