"""The spans the plugin collects (msgspec Structs, JSON as in the spec's C.2).

Every span carries its :class:`SpanContext` (run, thread, agent, parent run) and its start as
epoch nanoseconds, so a sink can place it on a timeline after the fact.
"""

from __future__ import annotations

import msgspec

__all__ = [
    "OPERATION_CHAT",
    "OPERATION_EXECUTE_TOOL",
    "OPERATION_INVOKE_AGENT",
    "DelegationSpan",
    "GenAISpan",
    "HandoffSpan",
    "MetricsEvent",
    "SpanContext",
    "SuspensionSpan",
    "ToolSpan",
]

OPERATION_CHAT = "chat"
OPERATION_EXECUTE_TOOL = "execute_tool"
OPERATION_INVOKE_AGENT = "invoke_agent"


class SpanContext(msgspec.Struct, frozen=True, omit_defaults=True):
    """Who a span belongs to: the run's ids (empty ids are omitted from JSON)."""

    run_id: str = ""
    thread_id: str = ""
    agent_id: str = ""
    parent_run_id: str | None = None
    parent_tool_call_id: str | None = None


class GenAISpan(msgspec.Struct, kw_only=True, tag="inference", tag_field="type"):
    """One inference (``chat``): model, provider, tokens, outcome and duration."""

    context: SpanContext
    step_index: int | None = None
    model: str = ""
    provider: str = ""
    operation: str = OPERATION_CHAT
    response_model: str | None = None
    response_id: str | None = None
    finish_reasons: list[str] = msgspec.field(default_factory=list)
    error_type: str | None = None
    error_class: str | None = None
    error_message: str | None = None
    thinking_tokens: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    stop_sequences: list[str] = msgspec.field(default_factory=list)
    start_time_unix_nano: int = 0
    duration_ms: int = 0
    #: Opt-in content capture (``capture_content=True``): the request and response messages.
    input_messages: list[dict[str, object]] | None = None
    output_messages: list[dict[str, object]] | None = None


class ToolSpan(msgspec.Struct, kw_only=True, tag="tool", tag_field="type"):
    """One tool call (``execute_tool``); ``error_type`` is set when the call failed."""

    context: SpanContext
    step_index: int | None = None
    name: str = ""
    operation: str = OPERATION_EXECUTE_TOOL
    call_id: str = ""
    tool_type: str = "function"
    status: str = "success"
    error_type: str | None = None
    error_message: str | None = None
    start_time_unix_nano: int = 0
    duration_ms: int = 0
    #: Opt-in content capture: the call's arguments and result data.
    arguments: object | None = None
    result: object | None = None


class SuspensionSpan(msgspec.Struct, kw_only=True, tag="suspension", tag_field="type"):
    """A tool call that parked (``suspended``) or was decided (``resumed``)."""

    context: SpanContext
    tool_call_id: str
    tool_name: str
    action: str
    resume_mode: str | None = None
    duration_ms: int | None = None
    timestamp_ms: int = 0


class HandoffSpan(msgspec.Struct, kw_only=True, tag="handoff", tag_field="type"):
    """The active agent of a run changed."""

    context: SpanContext
    from_agent_id: str
    to_agent_id: str
    reason: str | None = None
    timestamp_ms: int = 0


class DelegationSpan(msgspec.Struct, kw_only=True, tag="delegation", tag_field="type"):
    """A call of a delegate agent's tool ``agent_run_<agent>``."""

    context: SpanContext
    parent_run_id: str
    target_agent_id: str
    tool_call_id: str
    child_run_id: str | None = None
    duration_ms: int | None = None
    success: bool = True
    error_message: str | None = None
    timestamp_ms: int = 0


MetricsEvent = GenAISpan | ToolSpan | SuspensionSpan | HandoffSpan | DelegationSpan
