"""Agent events: the stream a run emits (JSON tagged by ``"event_type"``)."""

from __future__ import annotations

from typing import Any

import msgspec

from awaken_contract.codec import decode_json, encode_json, is_unset
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.inference import TokenUsage
from awaken_contract.contract.lifecycle import TerminationKind, TerminationReason
from awaken_contract.contract.suspension import ToolCallOutcome
from awaken_contract.contract.tool_result import ToolResult


class AgentEvent(msgspec.Struct, tag_field="event_type", omit_defaults=True):
    """Base class of every event a run emits."""


class RunStart(AgentEvent, tag="run_start"):
    """A run started."""

    thread_id: str
    run_id: str
    parent_run_id: str | None = None
    identity: RunIdentity | None = None


class RunFinish(AgentEvent, tag="run_finish"):
    """A run ended (or parked, with termination ``suspended``). Always the last event."""

    thread_id: str
    run_id: str
    termination: TerminationReason
    identity: RunIdentity | None = None
    result: dict[str, Any] | None = None

    @property
    def response(self) -> str:
        """The final assistant text reported in ``result`` (``""`` when absent)."""
        value = (self.result or {}).get("response")
        return value if isinstance(value, str) else ""


class TextDelta(AgentEvent, tag="text_delta"):
    """A piece of assistant text."""

    delta: str


class ReasoningDelta(AgentEvent, tag="reasoning_delta"):
    """A piece of model reasoning."""

    delta: str


class ReasoningEncryptedValue(AgentEvent, tag="reasoning_encrypted_value"):
    """Opaque encrypted reasoning from providers that return it."""

    encrypted_value: str


class ToolCallStart(AgentEvent, tag="tool_call_start"):
    """The model began a tool call."""

    id: str
    name: str


class ToolCallDelta(AgentEvent, tag="tool_call_delta"):
    """A piece of a tool call's JSON arguments."""

    id: str
    args_delta: str


class ToolCallReady(AgentEvent, tag="tool_call_ready"):
    """A tool call's arguments are complete."""

    id: str
    name: str
    arguments: Any


class ToolCallDone(AgentEvent, tag="tool_call_done"):
    """A tool call finished (or suspended)."""

    id: str
    result: ToolResult
    outcome: ToolCallOutcome
    message_id: str = msgspec.UNSET  # type: ignore[assignment]  # always written

    def __post_init__(self) -> None:
        if is_unset(self.message_id):
            self.message_id = ""


class ToolCallStreamDelta(AgentEvent, tag="tool_call_stream_delta"):
    """Streamed output of a running tool."""

    id: str
    name: str
    delta: str


class ToolCallResumed(AgentEvent, tag="tool_call_resumed"):
    """A suspended call was resumed or cancelled by a decision."""

    target_id: str
    result: Any


class MessagesSnapshot(AgentEvent, tag="messages_snapshot"):
    """The full message list (JSON)."""

    messages: list[Any]


class ActivitySnapshot(AgentEvent, tag="activity_snapshot"):
    """Full state of an activity (e.g. tool progress)."""

    message_id: str
    activity_type: str
    content: Any
    replace: bool | None = None


class ActivityDelta(AgentEvent, tag="activity_delta"):
    """JSON-Patch update of an activity."""

    message_id: str
    activity_type: str
    patch: list[Any]


class StepStart(AgentEvent, tag="step_start"):
    """A step (inference + tools) started."""

    message_id: str = msgspec.UNSET  # type: ignore[assignment]  # always written, def ""

    def __post_init__(self) -> None:
        if is_unset(self.message_id):
            self.message_id = ""


class StepEnd(AgentEvent, tag="step_end"):
    """A step ended (the run was checkpointed)."""


class InferenceComplete(AgentEvent, tag="inference_complete"):
    """One inference finished."""

    model: str
    duration_ms: int
    usage: TokenUsage | None = None
    cost: float | None = None


class StateSnapshot(AgentEvent, tag="state_snapshot"):
    """The persisted state (JSON of PersistedState)."""

    snapshot: Any


class StateDelta(AgentEvent, tag="state_delta"):
    """JSON-Patch update of the state."""

    delta: list[Any]


class Error(AgentEvent, tag="error"):
    """An error reported to the client (a ``run_finish`` still follows)."""

    message: str
    code: str | None = None


ErrorEvent = Error

AnyAgentEvent = (
    RunStart
    | RunFinish
    | TextDelta
    | ReasoningDelta
    | ReasoningEncryptedValue
    | ToolCallStart
    | ToolCallDelta
    | ToolCallReady
    | ToolCallDone
    | ToolCallStreamDelta
    | ToolCallResumed
    | MessagesSnapshot
    | ActivitySnapshot
    | ActivityDelta
    | StepStart
    | StepEnd
    | InferenceComplete
    | StateSnapshot
    | StateDelta
    | Error
)


def encode_event(event: AgentEvent) -> bytes:
    """Encode an event to its JSON wire form."""
    return encode_json(event)


def decode_event(data: bytes | str) -> AgentEvent:
    """Decode an event from JSON; malformed input raises :class:`DecodeError`."""
    event: AgentEvent = decode_json(data, AnyAgentEvent, name="AgentEvent")
    return event


def is_terminal(event: AgentEvent) -> bool:
    """``run_finish`` and ``error`` end a stream for protocol encoders."""
    return isinstance(event, RunFinish | Error)


def is_final_finish(event: AgentEvent) -> bool:
    """A ``run_finish`` that is not a suspension."""
    return isinstance(event, RunFinish) and event.termination.type is not TerminationKind.SUSPENDED
