"""The tool contract: descriptors, results, the Tool base class and the call context."""

from __future__ import annotations

import abc
import enum
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from awaken_contract.codec import encode_json, is_unset, to_builtins
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.progress import (
    TOOL_CALL_PROGRESS_ACTIVITY_TYPE,
    ProgressStatus,
    ToolCallProgressState,
)
from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallOutcome,
    ToolCallResume,
    ToolCallResumeMode,
)
from awaken_contract.errors import (
    Denied,
    ExecutionFailed,
    InvalidArguments,
    ToolError,
    ToolInternalError,
    ToolNotFound,
)

if TYPE_CHECKING:
    from awaken_contract.contract.cancellation import CancellationToken
    from awaken_contract.contract.event_sink import EventSink
    from awaken_contract.registry_spec import AgentSpec
    from awaken_contract.state import Snapshot, StateCommand

__all__ = [
    "Denied",
    "ExecutionFailed",
    "FrontEndTool",
    "InvalidArguments",
    "Tool",
    "ToolCallContext",
    "ToolDescriptor",
    "ToolError",
    "ToolExecutionMode",
    "ToolInternalError",
    "ToolNotFound",
    "ToolOutput",
    "ToolResult",
    "ToolStatus",
    "tool",
]

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
        return cls(tool_name, ToolStatus.SUCCESS, data)

    @classmethod
    def success_with_message(cls, tool_name: str, data: Any, message: str) -> ToolResult:
        """A successful result with a message shown to the model instead of ``data``."""
        return cls(tool_name, ToolStatus.SUCCESS, data, message)

    @classmethod
    def error(cls, tool_name: str, message: str) -> ToolResult:
        """A failed result; the model sees ``message``."""
        return cls(tool_name, ToolStatus.ERROR, None, message)

    @classmethod
    def error_with_code(cls, tool_name: str, code: str, message: str) -> ToolResult:
        """A failed result with a machine-readable code."""
        return cls(
            tool_name,
            ToolStatus.ERROR,
            {"error": {"code": code, "message": message}},
            f"[{code}] {message}",
        )

    @classmethod
    def suspended(cls, tool_name: str, message: str) -> ToolResult:
        """A pending result: the call waits for a decision."""
        return cls(tool_name, ToolStatus.PENDING, None, message)

    @classmethod
    def suspended_with(cls, tool_name: str, message: str, ticket: SuspendTicket) -> ToolResult:
        """A pending result carrying the suspend ticket."""
        return cls(tool_name, ToolStatus.PENDING, None, message, ticket)

    # ------------------------------------------------------------------ helpers
    @property
    def is_success(self) -> bool:
        """Status is success."""
        return self.status is ToolStatus.SUCCESS

    @property
    def is_error(self) -> bool:
        """Status is error."""
        return self.status is ToolStatus.ERROR

    @property
    def is_pending(self) -> bool:
        """Status is pending (suspended)."""
        return self.status is ToolStatus.PENDING

    def outcome(self) -> ToolCallOutcome:
        """The call outcome this result implies."""
        if self.status is ToolStatus.PENDING:
            return ToolCallOutcome.SUSPENDED
        if self.status is ToolStatus.ERROR:
            return ToolCallOutcome.FAILED
        return ToolCallOutcome.SUCCEEDED

    def to_llm_text(self) -> str:
        """Text of the tool message fed back to the model."""
        if self.message is not None:
            return self.message
        return encode_json(self.data).decode()

    def resume_payload(self) -> Any:
        """The payload reported in ``tool_call_resumed`` events."""
        if self.status is ToolStatus.SUCCESS:
            if self.metadata:
                return {"data": self.data, "metadata": self.metadata}
            return self.data
        if self.status is ToolStatus.ERROR:
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


class ToolExecutionMode(enum.StrEnum):
    """How a step's tool calls are executed."""

    SEQUENTIAL = "sequential"
    PARALLEL_BATCH_APPROVAL = "parallel_batch_approval"
    PARALLEL_STREAMING = "parallel_streaming"


class ToolCallContext:
    """What a tool sees while it runs: call ids, identity, agent spec, state and progress sinks."""

    __slots__ = (
        "activity_sink",
        "agent_spec",
        "call_id",
        "cancellation_token",
        "resume_input",
        "run_identity",
        "snapshot",
        "suspension_id",
        "suspension_reason",
        "tool_name",
    )

    def __init__(
        self,
        call_id: str,
        tool_name: str,
        run_identity: RunIdentity,
        *,
        agent_spec: AgentSpec | None = None,
        snapshot: Snapshot | None = None,
        activity_sink: EventSink | None = None,
        cancellation_token: CancellationToken | None = None,
        resume_input: ToolCallResume | None = None,
        suspension_id: str | None = None,
        suspension_reason: str | None = None,
    ) -> None:
        self.call_id = call_id
        self.tool_name = tool_name
        self.run_identity = run_identity
        self.agent_spec = agent_spec
        self.snapshot = snapshot
        self.activity_sink = activity_sink
        self.cancellation_token = cancellation_token
        self.resume_input = resume_input
        self.suspension_id = suspension_id
        self.suspension_reason = suspension_reason

    @classmethod
    def test_default(cls, call_id: str = "call-test", tool_name: str = "test") -> ToolCallContext:
        """A context for unit-testing a tool outside a run."""
        return cls(call_id, tool_name, RunIdentity.for_test())

    def state(self, key: type[Any]) -> Any:
        """The current value of state key ``key`` (a StateKey class), or None."""
        if self.snapshot is None:
            return None
        return self.snapshot.get(key)

    @property
    def is_cancelled(self) -> bool:
        """True when the run was cancelled."""
        return self.cancellation_token is not None and self.cancellation_token.is_cancelled

    async def report_progress(
        self,
        status: ProgressStatus,
        message: str | None = None,
        progress: float | None = None,
    ) -> None:
        """Report progress; UIs receive an ``activity_snapshot`` of type tool-call-progress."""
        if self.activity_sink is None:
            return
        from awaken_contract.contract.event import ActivitySnapshot

        ident = self.run_identity
        parent_call = ident.parent_tool_call_id
        state = ToolCallProgressState(
            node_id=f"tool_call:{self.call_id}",
            call_id=self.call_id,
            tool_name=self.tool_name,
            status=status,
            progress=progress,
            message=message,
            parent_node_id=f"tool_call:{parent_call}" if parent_call else f"run:{ident.run_id}",
            parent_call_id=parent_call,
            run_id=ident.run_id,
            parent_run_id=ident.parent_run_id,
            thread_id=ident.thread_id,
        )
        await self.activity_sink.emit(
            ActivitySnapshot(
                message_id=self.call_id,
                activity_type=TOOL_CALL_PROGRESS_ACTIVITY_TYPE,
                content=to_builtins(state),
                replace=True,
            )
        )

    async def report_activity(self, activity_type: str, content: Any) -> None:
        """Publish a full activity snapshot of ``activity_type``."""
        if self.activity_sink is None:
            return
        from awaken_contract.contract.event import ActivitySnapshot

        await self.activity_sink.emit(
            ActivitySnapshot(
                message_id=self.call_id,
                activity_type=activity_type,
                content=content,
                replace=True,
            )
        )

    async def report_activity_delta(self, activity_type: str, patch: Any) -> None:
        """Publish a JSON-Patch delta of an activity (a single op is wrapped in a list)."""
        if self.activity_sink is None:
            return
        from awaken_contract.contract.event import ActivityDelta

        ops = patch if isinstance(patch, list) else [patch]
        await self.activity_sink.emit(
            ActivityDelta(message_id=self.call_id, activity_type=activity_type, patch=ops)
        )

    async def stream_output(self, delta: str) -> None:
        """Stream a piece of the tool's output to UIs."""
        if self.activity_sink is None:
            return
        from awaken_contract.contract.event import ToolCallStreamDelta

        await self.activity_sink.emit(
            ToolCallStreamDelta(id=self.call_id, name=self.tool_name, delta=delta)
        )


class Tool(abc.ABC):
    """A capability the model can call.

    Implement :meth:`descriptor` and :meth:`execute`; override :meth:`validate_args` to reject
    bad arguments (raise :class:`InvalidArguments`) before execution.
    """

    @abc.abstractmethod
    def descriptor(self) -> ToolDescriptor:
        """Describe the tool (id, name, description, JSON Schema of arguments)."""

    def validate_args(self, args: Any) -> None:  # noqa: B027 - optional hook
        """Validate arguments before execution; raise :class:`InvalidArguments` to reject."""

    @abc.abstractmethod
    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult | ToolOutput:
        """Run the tool."""


class FrontEndTool(Tool):
    """A tool executed by the client: the run suspends until the client returns a result."""

    def __init__(self, descriptor: ToolDescriptor) -> None:
        self._descriptor = descriptor

    def descriptor(self) -> ToolDescriptor:
        """The frontend-supplied descriptor."""
        return self._descriptor

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        """Suspend, or return the client's result when this is the resumed call."""
        tool_id = self._descriptor.id
        if ctx.resume_input is not None:
            return ToolResult.success(tool_id, ctx.resume_input.result)
        call_id = ctx.call_id.strip() or tool_id
        ticket = SuspendTicket(
            suspension=Suspension(
                id=f"suspend_{call_id}",
                action=f"tool:{tool_id}",
                message=f"Frontend tool '{tool_id}' requires client execution",
                parameters=args,
            ),
            pending=PendingToolCall(id=call_id, name=tool_id, arguments=args),
            resume_mode=ToolCallResumeMode.USE_DECISION_AS_TOOL_RESULT,
        )
        return ToolResult.suspended_with(
            tool_id, f"Tool '{tool_id}' suspended: awaiting decision", ticket
        )


def tool(*args: Any, **kwargs: Any) -> Any:
    """Decorator turning a typed function into a :class:`Tool` (see ``typed_tool``)."""
    from awaken_contract.contract.typed_tool import tool as _tool

    return _tool(*args, **kwargs)
