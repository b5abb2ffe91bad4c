"""Mapping HTTP and transport failures of providers to ``InferenceExecutionError``s."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Iterable, Mapping
from typing import Any

import httpx
import msgspec
from awaken_contract.errors import (
    InferenceExecutionError,
    InferenceTimeout,
    ProviderAuthError,
    ProviderError,
    RateLimited,
)

__all__ = [
    "classify_http_error",
    "classify_message",
    "classify_transport_error",
    "parse_retry_after",
    "provider_message",
    "redact",
]

_MAX_BODY_IN_ERROR = 500
_NOT_RETRYABLE_STATUS = frozenset({400, 404, 405, 413, 422})


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """Replace every secret (API key) occurring in ``text`` with ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def provider_message(body: bytes) -> str:
    """The human message inside a provider's error body (OpenAI, Anthropic, Gemini shapes)."""
    try:
        data: Any = msgspec.json.decode(body)
    except msgspec.DecodeError:
        text = body.decode("utf-8", errors="replace").strip()
        return text[:_MAX_BODY_IN_ERROR] or "(empty response body)"
    if isinstance(data, list) and data:
        data = data[0]
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            message = err.get("message") or err.get("detail")
            if isinstance(message, str) and message:
                kind = err.get("type") or err.get("status")
                return f"{message} ({kind})" if isinstance(kind, str) and kind else message
        elif isinstance(err, str) and err:
            return err
        message = data.get("message") or data.get("detail")
        if isinstance(message, str) and message:
            return message
    return body.decode("utf-8", errors="replace")[:_MAX_BODY_IN_ERROR]


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``retry-after`` (seconds or HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(float(ms) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(when.timestamp() - current, 0.0)


def classify_http_error(
    status: int,
    body: bytes,
    headers: Mapping[str, str],
    provider: str,
    secrets: Iterable[str | None] = (),
) -> InferenceExecutionError:
    """The error for a non-2xx provider response."""
    detail = redact(provider_message(body), secrets)
    message = f"{provider} returned HTTP {status}: {detail}"
    if status in (401, 403):
        return ProviderAuthError(message)
    if status == 429:
        return RateLimited(message, retry_after=parse_retry_after(headers))
    if status in (408, 504):
        return InferenceTimeout(message)
    error = ProviderError(message)
    if status in _NOT_RETRYABLE_STATUS:
        error.retryable = False  # a malformed request fails the same way every time
    return error


def classify_message(message: str) -> InferenceExecutionError:
    """Classify an error without a status code by its text (rate limit, timeout, other)."""
    lower = message.lower()
    if "rate" in lower or "429" in lower or "too many requests" in lower:
        return RateLimited(message)
    if "timeout" in lower or "timed out" in lower:
        return InferenceTimeout(message)
    return ProviderError(message)


def classify_transport_error(
    exc: httpx.HTTPError, provider: str, secrets: Iterable[str | None] = ()
) -> InferenceExecutionError:
    """The error for a failed connection, a timeout or a broken stream."""
    detail = redact(str(exc) or type(exc).__name__, secrets)
    if isinstance(exc, httpx.TimeoutException):
        kind = {
            httpx.ConnectTimeout: "connect",
            httpx.ReadTimeout: "read",
            httpx.WriteTimeout: "write",
            httpx.PoolTimeout: "pool",
        }.get(type(exc), "request")
        return InferenceTimeout(f"{provider} {kind} timed out: {detail}")
    if isinstance(exc, httpx.ConnectError):
        return ProviderError(f"cannot connect to {provider}: {detail}")
    if isinstance(exc, httpx.RemoteProtocolError):
        return ProviderError(f"{provider} stream broken: {detail}")
    return ProviderError(f"{provider} transport error: {detail}")
