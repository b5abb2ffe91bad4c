"""Event streams get their own concurrency limit, apart from short requests.

An open SSE stream can last minutes; counted as a request it would hold a request slot until it
ends, so 100 idle streams would starve ``/health``. Routes that open streams are declared as
:class:`StreamRoute`; the request guard admits them against ``max_concurrent_streams`` and never
against ``max_concurrent_requests``. A response that turns out to be a stream anyway
(``text/event-stream``) gives its request slot back as soon as it starts.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["StreamRoute", "is_event_stream", "opens_stream"]


class StreamRoute(Route):
    """A route whose responses are event streams (``when(scope)`` narrows it further)."""

    def __init__(
        self,
        path: str,
        endpoint: Callable[..., Any],
        *,
        methods: Sequence[str],
        when: Callable[[Scope], bool] | None = None,
    ) -> None:
        super().__init__(path, endpoint, methods=list(methods))
        self.when = when
        if inspect.iscoroutinefunction(endpoint):
            self.app = _endpoint_app(endpoint)

    def streams(self, scope: Scope) -> bool:
        """True when this request opens a stream."""
        return self.when is None or self.when(scope)


def _endpoint_app(endpoint: Callable[[Request], Awaitable[Response]]) -> ASGIApp:
    """The ASGI app of an async endpoint. Unlike Starlette's ``request_response`` it does not
    wrap the endpoint in the exception handlers once more: the app's ``ExceptionMiddleware``
    right outside the router maps the very same exceptions with the very same handlers (one
    send wrapper less for every frame of a stream)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        response = await endpoint(Request(scope, receive, send))
        await response(scope, receive, send)

    return app


def opens_stream(route: object, scope: Scope) -> bool:
    """True when ``route`` serving ``scope`` opens an event stream."""
    return isinstance(route, StreamRoute) and route.streams(scope)


def is_event_stream(headers: Sequence[tuple[bytes, bytes]]) -> bool:
    """True when response ``headers`` declare ``text/event-stream``."""
    for key, value in headers:
        if key.lower() == b"content-type":
            return value.split(b";")[0].strip().lower() == b"text/event-stream"
    return False
