"""A2A errors: the ``google.rpc.Status`` envelope of the HTTP+JSON binding and the error
object of the JSON-RPC binding.

Codes follow the A2A v1.0 specification's error mapping (§5.4): e.g. task not found → 404
``TASK_NOT_FOUND`` / JSON-RPC ``-32001``, not cancelable → 409 / ``-32002``, unsupported
operation → 400 ``FAILED_PRECONDITION`` / ``-32004``, invalid arguments → 400 / ``-32602``.
"""

from __future__ import annotations

import enum
from typing import Any

from starlette.responses import JSONResponse

from awaken_server.protocols.a2a.wire import A2A_PROTOCOL_VERSION

__all__ = ["DOMAIN", "RPC_CODES", "A2aError", "FieldViolation", "JsonRpcCode"]

DOMAIN = "a2a-protocol.org"


class JsonRpcCode(enum.IntEnum):
    """JSON-RPC 2.0 and A2A v1.0 error codes."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    TASK_NOT_FOUND = -32001
    TASK_NOT_CANCELABLE = -32002
    PUSH_NOTIFICATION_NOT_SUPPORTED = -32003
    UNSUPPORTED_OPERATION = -32004
    CONTENT_TYPE_NOT_SUPPORTED = -32005
    INVALID_AGENT_RESPONSE = -32006
    EXTENDED_AGENT_CARD_NOT_CONFIGURED = -32007
    EXTENSION_SUPPORT_REQUIRED = -32008
    VERSION_NOT_SUPPORTED = -32009


RPC_CODES = {
    code.name: code
    for code in JsonRpcCode
    if code.value > -32100  # the A2A-specific codes, keyed by their ErrorInfo reason
}
"""JSON-RPC code of each A2A ``ErrorInfo.reason``."""

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

    def reason_name(self) -> str | None:
        """The A2A reason of the ``ErrorInfo`` detail (``None`` for plain errors)."""
        for detail in self.details:
            if detail.get("@type", "").endswith("google.rpc.ErrorInfo"):
                reason = detail.get("reason")
                return reason if isinstance(reason, str) else None
        return None

    def rpc_code(self) -> JsonRpcCode:
        """The JSON-RPC code: by A2A reason, else invalid params (4xx) or internal (5xx)."""
        reason = self.reason_name()
        if reason == "UNSUPPORTED_OPERATION" and self.status == "UNIMPLEMENTED":
            return JsonRpcCode.EXTENDED_AGENT_CARD_NOT_CONFIGURED
        if reason in RPC_CODES:
            return RPC_CODES[reason]
        return JsonRpcCode.INTERNAL_ERROR if self.code >= 500 else JsonRpcCode.INVALID_PARAMS

    def rpc_error(self) -> dict[str, Any]:
        """The JSON-RPC error object; ``data`` carries the same typed details."""
        violations = [
            f"{v.get('field')}: {v.get('description')}"
            for d in self.details
            for v in d.get("fieldViolations", [])
        ]
        message = f"{self.message}: {'; '.join(violations)}" if violations else self.message
        error: dict[str, Any] = {"code": int(self.rpc_code()), "message": message}
        if self.details:
            error["data"] = self.details
        return error

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
