"""The error a protocol adapter raises for a request body it cannot accept."""

from __future__ import annotations

from awaken_server.errors import BadRequest


class ProtocolRequestError(BadRequest):
    """A protocol request is malformed or empty; answered 400 ``{"error": message}``."""
