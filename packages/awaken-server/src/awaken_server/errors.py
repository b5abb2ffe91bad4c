"""HTTP-facing errors: each carries its status code and renders as ``{"error": "..."}``."""

from __future__ import annotations

from typing import ClassVar

from awaken_contract.errors import AwakenError
from starlette.responses import JSONResponse

__all__ = [
    "ApiError",
    "BadRequest",
    "Conflict",
    "Forbidden",
    "Misdirected",
    "NotFound",
    "PayloadTooLarge",
    "ServiceUnavailable",
    "Unauthorized",
    "UnprocessableEntity",
    "UnsupportedMediaType",
    "error_response",
]


class ApiError(AwakenError):
    """An error answered to an HTTP client with ``status`` and ``{"error": message}``."""

    status: ClassVar[int] = 500

    def __init__(self, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.headers = headers or {}

    def response(self) -> JSONResponse:
        """The JSON error response."""
        return error_response(self.status, self.message, self.headers)


class BadRequest(ApiError):
    """400: the request is malformed or fails validation."""

    status = 400


class Unauthorized(ApiError):
    """401: a bearer token is required or wrong."""

    status = 401


class Forbidden(ApiError):
    """403: authenticated or not, this caller may not do this."""

    status = 403


class Misdirected(ApiError):
    """421: the ``Host`` header names a host this server does not answer for."""

    status = 421


class NotFound(ApiError):
    """404: the thread, run or document does not exist."""

    status = 404


class Conflict(ApiError):
    """409: the request conflicts with the current state (e.g. a busy thread)."""

    status = 409


class PayloadTooLarge(ApiError):
    """413: the body exceeds the configured limit."""

    status = 413


class UnsupportedMediaType(ApiError):
    """415: a JSON body route was called without ``Content-Type: application/json``."""

    status = 415


class UnprocessableEntity(ApiError):
    """422: valid JSON of the wrong shape."""

    status = 422


class ServiceUnavailable(ApiError):
    """503: overloaded or shutting down (with ``Retry-After``)."""

    status = 503


def error_response(
    status: int, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    """``{"error": message}`` with ``status``."""
    return JSONResponse({"error": message}, status_code=status, headers=headers)
