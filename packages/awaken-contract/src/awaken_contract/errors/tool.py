"""``ToolError``: a tool failed; the loop turns it into an error ``ToolResult``."""

from __future__ import annotations

from awaken_contract.errors.base import AwakenError


class ToolError(AwakenError):
    """A tool failed. The loop turns it into an error ToolResult the model sees."""

    prefix = "Tool error"

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(f"{self.prefix}: {message}")


class InvalidArguments(ToolError):
    prefix = "Invalid arguments"

    def __init__(self, message: str, field: str | None = None) -> None:
        self.field = field
        super().__init__(message)


class ExecutionFailed(ToolError):
    prefix = "Execution failed"


class Denied(ToolError):
    prefix = "Denied"


class ToolNotFound(ToolError):
    prefix = "Not found"


class ToolInternalError(ToolError):
    prefix = "Internal error"


ToolError.InvalidArguments = InvalidArguments  # type: ignore[attr-defined]
ToolError.ExecutionFailed = ExecutionFailed  # type: ignore[attr-defined]
ToolError.Denied = Denied  # type: ignore[attr-defined]
ToolError.NotFound = ToolNotFound  # type: ignore[attr-defined]
ToolError.Internal = ToolInternalError  # type: ignore[attr-defined]
