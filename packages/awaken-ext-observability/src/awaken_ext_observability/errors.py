"""Errors of the observability extension."""

from __future__ import annotations

from awaken_contract.errors import AwakenError

__all__ = ["ObservabilityConfigError", "SinkError"]


class SinkError(AwakenError):
    """A sink failed to flush or shut down."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class ObservabilityConfigError(AwakenError, ValueError):
    """Telemetry export is misconfigured (no endpoint, unsupported protocol)."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)
