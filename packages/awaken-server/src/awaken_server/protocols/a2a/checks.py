"""Request checks both A2A bindings apply: the ``A2A-Version`` and the JSON content type."""

from __future__ import annotations

from starlette.requests import Request

from awaken_server.protocols.a2a.errors import A2aError
from awaken_server.protocols.a2a.wire import A2A_PROTOCOL_VERSION

__all__ = ["check_content_type", "check_version"]

_JSON_TYPES = ("application/json", "application/a2a+json")


def check_version(request: Request) -> None:
    """400 ``VERSION_NOT_SUPPORTED`` unless ``A2A-Version`` (header or query) is absent or 1.0."""
    requested = request.headers.get("a2a-version", "").strip()
    if not requested:
        for key, value in request.query_params.multi_items():
            if key.lower() == "a2a-version" and value.strip():
                requested = value.strip()
                break
    if requested and requested != A2A_PROTOCOL_VERSION:
        raise A2aError.version_not_supported(requested)


def check_content_type(request: Request) -> None:
    """400 unless the body is ``application/json`` or ``application/a2a+json``."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media not in _JSON_TYPES:
        raise A2aError.invalid_field(
            "contentType", "Content-Type must be application/json or application/a2a+json"
        )
