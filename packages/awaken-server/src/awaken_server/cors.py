"""CORS: Starlette's ``CORSMiddleware`` with a lean path for requests without ``Origin``.

Most requests (API clients, other servers, the benchmark) send no ``Origin``: for them
Starlette only adds ``Vary: Origin`` to the response, through a ``Headers`` view of the request
and a ``MutableHeaders`` view of the response. :class:`Cors` does the same with one scan of the
raw headers; requests that carry an ``Origin`` (browsers: simple and preflight requests) go
through Starlette's own code unchanged.
"""

from __future__ import annotations

from starlette.middleware.cors import CORSMiddleware
from starlette.types import Message, Receive, Scope, Send

from awaken_server.security.admin import header_of

__all__ = ["Cors", "add_vary_origin"]


def add_vary_origin(message: Message) -> None:
    """Add ``Origin`` to the ``Vary`` header of a response start message, as Starlette does
    for a request without ``Origin`` (every ``Vary`` header folded into the first one)."""
    headers = list(message.get("headers", ()))
    found = [i for i, (key, _) in enumerate(headers) if key == b"vary"]
    value = b", ".join([*(headers[i][1] for i in found), b"Origin"])
    for index in reversed(found[1:]):
        del headers[index]
    if found:
        headers[found[0]] = (b"vary", value)
    else:
        headers.append((b"vary", value))
    message["headers"] = headers


class Cors(CORSMiddleware):
    """``CORSMiddleware`` (same settings, same responses) with the no-``Origin`` fast path."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or header_of(scope, b"origin") is not None:
            await super().__call__(scope, receive, send)
            return

        async def send_with_vary(message: Message) -> None:
            if message["type"] == "http.response.start":
                add_vary_origin(message)
            await send(message)

        await self.app(scope, receive, send_with_vary)
