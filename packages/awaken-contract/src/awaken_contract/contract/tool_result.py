"""What a tool exchanges with the model: its descriptor, its result and its output."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from awaken_contract.codec import encode_json, is_unset
from awaken_contract.contract.suspension import SuspendTicket, ToolCallOutcome

if TYPE_CHECKING:
    from awaken_contract.state import StateCommand

__all__ = ["ToolDescriptor", "ToolOutput", "ToolResult", "ToolStatus"]

V = TypeVar("V")

_DEFAULT_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


class ToolDescriptor(msgspec.Struct, omit_defaults=True):
    """How a tool presents itself to the model. The model calls it by ``id``."""

    id: str
    name: str
    description: str
    parameters: dict[str, Any] = msgspec.UNSET  # type: ignore[assignment]  # always written
    category: str | None = msgspec.UNSET  # type: ignore[assignment]  # always written (null)
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    idempotent: bool = False
    """Running the call twice with the same call id has the effect of running it once: after a
    crash mid-call the run re-executes it (same ``ToolCallContext.call_id``) instead of parking
    for a human (docs/durability.md, "Crash-safe resume")."""

    def __post_init__(self) -> None:
        if is_unset(self.parameters):
            self.parameters = dict(_DEFAULT_PARAMETERS)
        if is_unset(self.category):
            self.category = None

    def with_parameters(self, schema: dict[str, Any]) -> ToolDescriptor:
        """Set the JSON Schema of the arguments."""
        self.parameters = schema
        return self

    def with_category(self, category: str) -> ToolDescriptor:
        """Set a free-form category."""
        self.category = category
        return self

    def with_metadata(self, key: str, value: Any) -> ToolDescriptor:
        """Attach metadata (never sent to the model)."""
        self.metadata[key] = value
        return self

    def with_idempotent(self, idempotent: bool = True) -> ToolDescriptor:
        """Declare the tool safe to re-execute with the same call id after a crash."""
        self.idempotent = idempotent
        return self


class ToolStatus(enum.StrEnum):
    """Status of a tool result."""

    SUCCESS = "success"
    PENDING = "pending"
    ERROR = "error"


# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_SUCCESS = ToolStatus.SUCCESS
_PENDING = ToolStatus.PENDING
_ERROR = ToolStatus.ERROR
_SUSPENDED = ToolCallOutcome.SUSPENDED
_FAILED = ToolCallOutcome.FAILED
_SUCCEEDED = ToolCallOutcome.SUCCEEDED


class ToolResult(msgspec.Struct, omit_defaults=True):
    """What a tool returns to the model (and to UIs)."""

    tool_name: str
    status: ToolStatus
    data: Any
    message: str | None = msgspec.UNSET  # type: ignore[assignment]  # always written (null)
    suspension: SuspendTicket | None = None
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)

    def __post_init__(self) -> None:
        if is_unset(self.message):
            self.message = None

    # ------------------------------------------------------------------ constructors
    @classmethod
    def success(cls, tool_name: str, data: Any) -> ToolResult:
        """A successful result carrying JSON ``data``."""
        return cls(tool_name, _SUCCESS, data)

    @classmethod
    def success_with_message(cls, tool_name: str, data: Any, message: str) -> ToolResult:
        """A successful result with a message shown to the model instead of ``data``."""
        return cls(tool_name, _SUCCESS, data, message)

    @classmethod
    def error(cls, tool_name: str, message: str) -> ToolResult:
        """A failed result; the model sees ``message``."""
        return cls(tool_name, _ERROR, None, message)

    @classmethod
    def error_with_code(cls, tool_name: str, code: str, message: str) -> ToolResult:
        """A failed result with a machine-readable code."""
        return cls(
            tool_name,
            _ERROR,
            {"error": {"code": code, "message": message}},
            f"[{code}] {message}",
        )

    @classmethod
    def suspended(cls, tool_name: str, message: str) -> ToolResult:
        """A pending result: the call waits for a decision."""
        return cls(tool_name, _PENDING, None, message)

    @classmethod
    def suspended_with(cls, tool_name: str, message: str, ticket: SuspendTicket) -> ToolResult:
        """A pending result carrying the suspend ticket."""
        return cls(tool_name, _PENDING, None, message, ticket)

    # ------------------------------------------------------------------ helpers
    @property
    def is_success(self) -> bool:
        """Status is success."""
        return self.status is _SUCCESS

    @property
    def is_error(self) -> bool:
        """Status is error."""
        return self.status is _ERROR

    @property
    def is_pending(self) -> bool:
        """Status is pending (suspended)."""
        return self.status is _PENDING

    def outcome(self) -> ToolCallOutcome:
        """The call outcome this result implies."""
        if self.status is _PENDING:
            return _SUSPENDED
        if self.status is _ERROR:
            return _FAILED
        return _SUCCEEDED

    def to_llm_text(self) -> str:
        """Text of the tool message fed back to the model."""
        if self.message is not None:
            return self.message
        return encode_json(self.data).decode()

    def resume_payload(self) -> Any:
        """The payload reported in ``tool_call_resumed`` events."""
        if self.status is _SUCCESS:
            if self.metadata:
                return {"data": self.data, "metadata": self.metadata}
            return self.data
        if self.status is _ERROR:
            return {"error": self.message} if self.message is not None else self.data
        return None

    def with_metadata(self, key: str, value: Any) -> ToolResult:
        """Attach metadata to the result."""
        self.metadata[key] = value
        return self


class ToolOutput:
    """A tool's result plus state side effects (a :class:`StateCommand`)."""

    __slots__ = ("command", "result")

    def __init__(self, result: ToolResult, command: StateCommand | None = None) -> None:
        self.result = result
        self.command = command

    @classmethod
    def with_command(cls, result: ToolResult, command: StateCommand) -> ToolOutput:
        """A result together with state updates, scheduled actions or effects."""
        return cls(result, command)

    @classmethod
    def of(cls, value: ToolResult | ToolOutput) -> ToolOutput:
        """Normalise what a tool returned into a ToolOutput."""
        return value if isinstance(value, ToolOutput) else cls(value)
