"""A2A errors in the ``google.rpc.Status`` envelope of the HTTP+JSON binding.

Codes follow the A2A v1.0 specification's error mapping (§5.4): e.g. task not found → 404
``TASK_NOT_FOUND``, not cancelable → 409, unsupported operation → 400 ``FAILED_PRECONDITION``.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from awaken_server.protocols.a2a.wire import A2A_PROTOCOL_VERSION

__all__ = ["DOMAIN", "A2aError", "FieldViolation"]

DOMAIN = "a2a-protocol.org"

FieldViolation = tuple[str, str]
"""``(field, description)`` of one invalid request field."""


class A2aError(Exception):
    """An error answered as ``{"error": {code, status, message, details?}}``."""

    def __init__(
        self,
        code: int,
        status: str,
        message: str,
        details: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message
        self.details = details or []

    def body(self) -> dict[str, Any]:
        """The JSON body."""
        error: dict[str, Any] = {"code": self.code, "status": self.status, "message": self.message}
        if self.details:
            error["details"] = self.details
        return {"error": error}

    def response(self) -> JSONResponse:
        """The HTTP response."""
        return JSONResponse(self.body(), status_code=self.code)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def reason(cls, code: int, status: str, reason: str, message: str, **metadata: str) -> A2aError:
        """An error with a ``google.rpc.ErrorInfo`` detail naming the A2A ``reason``."""
        info: dict[str, Any] = {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": reason,
            "domain": DOMAIN,
        }
        if metadata:
            info["metadata"] = metadata
        return cls(code, status, message, [info])

    @classmethod
    def invalid(cls, violations: list[FieldViolation]) -> A2aError:
        """400 ``INVALID_ARGUMENT`` with one ``BadRequest`` field violation per problem."""
        detail = {
            "@type": "type.googleapis.com/google.rpc.BadRequest",
            "fieldViolations": [{"field": f, "description": d} for f, d in violations],
        }
        return cls(400, "INVALID_ARGUMENT", "invalid A2A request", [detail])

    @classmethod
    def invalid_field(cls, field: str, description: str) -> A2aError:
        """400 for a single invalid field."""
        return cls.invalid([(field, description)])

    @classmethod
    def not_found(cls, message: str) -> A2aError:
        """Plain 404 (unknown agent, unknown path)."""
        return cls(404, "NOT_FOUND", message)

    @classmethod
    def internal(cls, message: str) -> A2aError:
        """Plain 500."""
        return cls(500, "INTERNAL", message)

    @classmethod
    def task_not_found(cls, task_id: str) -> A2aError:
        """404 ``TASK_NOT_FOUND``."""
        return cls.reason(
            404, "NOT_FOUND", "TASK_NOT_FOUND", f"task not found: {task_id}", taskId=task_id
        )

    @classmethod
    def not_cancelable(cls, task_id: str, state: str) -> A2aError:
        """409 ``TASK_NOT_CANCELABLE``."""
        return cls.reason(
            409,
            "FAILED_PRECONDITION",
            "TASK_NOT_CANCELABLE",
            f"task cannot be canceled: {task_id} is {state}",
            taskId=task_id,
            state=state,
        )

    @classmethod
    def unsupported(cls, message: str, **metadata: str) -> A2aError:
        """400 ``UNSUPPORTED_OPERATION``."""
        return cls.reason(400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION", message, **metadata)

    @classmethod
    def version_not_supported(cls, requested: str) -> A2aError:
        """400 ``VERSION_NOT_SUPPORTED``."""
        return cls.reason(
            400,
            "FAILED_PRECONDITION",
            "VERSION_NOT_SUPPORTED",
            f"unsupported A2A version: {requested}",
            supportedVersion=A2A_PROTOCOL_VERSION,
            requestedVersion=requested,
        )

    @classmethod
    def content_type_not_supported(cls, requested: list[str]) -> A2aError:
        """415 ``CONTENT_TYPE_NOT_SUPPORTED`` (no accepted output mode we can produce)."""
        return cls.reason(
            415,
            "INVALID_ARGUMENT",
            "CONTENT_TYPE_NOT_SUPPORTED",
            "none of the accepted output modes is supported (supported: text/plain)",
            supportedOutputModes="text/plain",
            requestedOutputModes=",".join(requested),
        )

    @classmethod
    def extended_card_not_configured(cls) -> A2aError:
        """501 ``UNSUPPORTED_OPERATION``: this server offers no extended card."""
        return cls.reason(
            501,
            "UNIMPLEMENTED",
            "UNSUPPORTED_OPERATION",
            "extendedAgentCard is not supported by this server",
        )

    @classmethod
    def unauthenticated(cls, message: str) -> A2aError:
        """401 ``UNAUTHENTICATED``."""
        return cls.reason(401, "UNAUTHENTICATED", "UNAUTHENTICATED", message)
