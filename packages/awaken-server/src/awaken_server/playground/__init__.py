"""The browser playground: static HTML/CSS/JS served at ``/`` and ``/playground``.

The assets live in ``static/`` inside the package (shipped in the wheel, no build step, no CDN)
and talk only to the server's own native API (``/v1/...``) from the same origin. The pages are
public (they hold no data); every API call they make passes the server's usual auth.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Receive, Scope, Send

__all__ = ["ASSETS_PATH", "PLAYGROUND_HEADERS", "playground_routes", "static_dir"]

ASSETS_PATH = "/playground/assets"
"""URL prefix of the playground's CSS and JS modules."""

PLAYGROUND_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
"""Headers of every playground response: same-origin only, nothing loaded from elsewhere."""


def static_dir() -> Path:
    """The folder holding ``index.html`` and the assets (inside the installed package)."""
    return Path(str(files("awaken_server.playground").joinpath("static")))


async def _index(_: Request) -> Response:
    return FileResponse(static_dir() / "index.html", headers=PLAYGROUND_HEADERS)


class _Assets:
    """``StaticFiles`` over ``static/`` with the playground's headers added."""

    def __init__(self) -> None:
        self.files = StaticFiles(directory=static_dir())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = [(k.lower().encode(), v.encode()) for k, v in PLAYGROUND_HEADERS.items()]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.files(scope, receive, with_headers)


def playground_routes() -> list[BaseRoute]:
    """``GET /`` and ``GET /playground`` (the page) plus ``/playground/assets/*``."""
    return [
        Route("/", _index, methods=["GET", "HEAD"]),
        Route("/playground", _index, methods=["GET", "HEAD"]),
        Route("/playground/", _index, methods=["GET", "HEAD"]),
        Mount(ASSETS_PATH, app=_Assets(), name="playground-assets"),
    ]
