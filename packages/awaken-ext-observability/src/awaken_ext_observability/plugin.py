"""``ObservabilityPlugin``: turns phase hooks into spans for a :class:`MetricsSink`.

| Phase | Work |
|---|---|
| AfterInference | GenAISpan (usage, finish reason or the error; ``ctx.inference_duration_ms``);
  the agent id changed → HandoffSpan |
| BeforeToolExecute | start, ``sink.on_tool_start``; resume input → SuspensionSpan ``resumed`` |
| AfterToolExecute | ToolSpan; pending → Suspension ``suspended``; ``agent_run_*`` → Delegation |
| RunEnd | ``sink.on_run_end`` with the run's metrics and outcome (``suspended`` when it parks) |

A run segment opens (``sink.on_run_start``) at the first of these phases of a run (the plugin
hooks no more phases than it needs). Every hook only observes (``PhaseHook.observer``: it
writes no state and never suspends or intercepts), so the loop calls it on one context without
collecting commands or taking the tool-interception path.
State is kept per run id, so concurrent runs (and a delegated run inside a tool call) never mix.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from typing import Any

import msgspec
from awaken_contract.contract.identity import RunMode
from awaken_contract.contract.inference import StopReason
from awaken_contract.contract.lifecycle import TerminationKind, TerminationReason
from awaken_contract.contract.message import Message
from awaken_contract.contract.suspension import ResumeDecisionAction
from awaken_contract.contract.tool import ToolStatus
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
)

from awaken_ext_observability.metrics import AgentMetrics, RunOutcome
from awaken_ext_observability.sink import MetricsSink, RunStart
from awaken_ext_observability.spans import (
    DelegationSpan,
    GenAISpan,
    HandoffSpan,
    SpanContext,
    SuspensionSpan,
    ToolSpan,
)

__all__ = ["CAPTURE_CONTENT_ENV", "OBSERVABILITY_PLUGIN_ID", "ObservabilityPlugin"]

OBSERVABILITY_PLUGIN_ID = "observability"
#: The GenAI conventions' opt-in switch for message content (``true`` to capture).
CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
_DELEGATE_PREFIX = "agent_run_"
_MAX_PARKED = 1024
_FINISH_REASONS = {
    StopReason.END_TURN: "stop",
    StopReason.STOP_SEQUENCE: "stop",
    StopReason.MAX_TOKENS: "length",
    StopReason.TOOL_USE: "tool_calls",
}
_OUTCOMES = {
    TerminationKind.NATURAL_END: RunOutcome.FINISHED,
    TerminationKind.BEHAVIOR_REQUESTED: RunOutcome.FINISHED,
    TerminationKind.SUSPENDED: RunOutcome.SUSPENDED,
    TerminationKind.ERROR: RunOutcome.ERROR,
    TerminationKind.CANCELLED: RunOutcome.CANCELLED,
    TerminationKind.STOPPED: RunOutcome.STOPPED,
    TerminationKind.BLOCKED: RunOutcome.BLOCKED,
}


def outcome_of(termination: TerminationReason | None) -> RunOutcome:
    """The outcome label of a run segment's termination."""
    if termination is None:
        return RunOutcome.FINISHED
    return _OUTCOMES.get(termination.type, RunOutcome.FINISHED)


def _capture_from_env() -> bool:
    return os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() in ("1", "true", "yes")


def _messages_json(messages: Any) -> list[dict[str, object]]:
    """Messages in the GenAI conventions' shape: ``{"role", "parts": [...]}``."""
    out: list[dict[str, object]] = []
    for m in messages:
        parts: list[dict[str, object]] = []
        text = m.text()
        if text:
            parts.append({"type": "text", "content": text})
        for call in m.tool_calls or ():
            parts.append(
                {"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}
            )
        if m.tool_call_id:
            parts.append({"type": "tool_call_response", "id": m.tool_call_id, "response": text})
        out.append({"role": m.role.value, "parts": parts})
    return out


def _default_sink() -> MetricsSink:
    """Without a sink (entry-point discovery calls the class with no arguments): an
    :class:`OtelSink` on the global OpenTelemetry providers (a no-op until the application
    installs an SDK), or an :class:`InMemorySink` when OpenTelemetry is not installed."""
    try:
        from awaken_ext_observability.otel import OtelSink
    except ImportError:
        from awaken_ext_observability.sink import InMemorySink

        return InMemorySink()
    return OtelSink()


class _RunSegment:
    """What the plugin remembers about one running segment of a run."""

    __slots__ = ("context", "metrics", "start_perf_ns", "start_wall_ns", "steps", "tool_starts")

    def __init__(self, context: SpanContext, began_ns_ago: int = 0) -> None:
        self.context = context
        self.start_wall_ns = time.time_ns() - began_ns_ago
        self.start_perf_ns = time.perf_counter_ns() - began_ns_ago
        self.steps = 0
        self.tool_starts: dict[str, int] = {}  # call id → perf_counter_ns
        self.metrics = AgentMetrics(context=context)

    def wall_ns(self, perf_ns: int) -> int:
        """The epoch time of a ``perf_counter_ns`` reading (one clock read per run)."""
        return self.start_wall_ns + (perf_ns - self.start_perf_ns)


class ObservabilityPlugin(Plugin):
    """Collects GenAI spans and run metrics into ``sink`` (plugin id ``observability``).

    Activate it on an agent with ``AgentSpec.with_hook_filter("observability")``. Message content
    (prompts, responses, tool arguments and results) is captured only when opted in with
    ``with_capture_content()`` or ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``.
    """

    def __init__(self, sink: MetricsSink | None = None, *, capture_content: bool | None = None):
        self.sink: MetricsSink = sink if sink is not None else _default_sink()
        # Start callbacks cost a struct per call: skip them for sinks that do not use them.
        sink_type = type(self.sink)
        self._wants_run_start = sink_type.on_run_start is not MetricsSink.on_run_start
        self._wants_tool_start = sink_type.on_tool_start is not MetricsSink.on_tool_start
        self.capture_content = _capture_from_env() if capture_content is None else capture_content
        self.model: str | None = None
        self.provider: str | None = None
        self.temperature: float | None = None
        self.top_p: float | None = None
        self.max_tokens: int | None = None
        self.stop_sequences: list[str] = []
        self._runs: dict[str, _RunSegment] = {}
        self._parked: OrderedDict[str, SpanContext] = OrderedDict()

    # ------------------------------------------------------------------ builder
    def with_model(self, model: str) -> ObservabilityPlugin:
        """Report this request model instead of the one the run used."""
        self.model = model
        return self

    def with_provider(self, provider: str) -> ObservabilityPlugin:
        """Report this provider name instead of the model's provider id."""
        self.provider = provider
        return self

    def with_temperature(self, temperature: float) -> ObservabilityPlugin:
        self.temperature = temperature
        return self

    def with_top_p(self, top_p: float) -> ObservabilityPlugin:
        self.top_p = top_p
        return self

    def with_max_tokens(self, max_tokens: int) -> ObservabilityPlugin:
        self.max_tokens = max_tokens
        return self

    def with_stop_sequences(self, stop_sequences: list[str]) -> ObservabilityPlugin:
        self.stop_sequences = list(stop_sequences)
        return self

    def with_capture_content(self, capture: bool = True) -> ObservabilityPlugin:
        """Opt in to (or out of) capturing message content on spans."""
        self.capture_content = capture
        return self

    # ------------------------------------------------------------------ plugin
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(OBSERVABILITY_PLUGIN_ID)

    def register(self, registrar: PluginRegistrar) -> None:
        pid = OBSERVABILITY_PLUGIN_ID
        observer = PhaseHook.observer
        registrar.register_phase_hook(pid, Phase.AFTER_INFERENCE, observer(self._after_inference))
        registrar.register_phase_hook(pid, Phase.BEFORE_TOOL_EXECUTE, observer(self._before_tool))
        registrar.register_phase_hook(pid, Phase.AFTER_TOOL_EXECUTE, observer(self._after_tool))
        registrar.register_phase_hook(pid, Phase.RUN_END, observer(self._run_end))

    def open_runs(self) -> int:
        """Run segments currently open (a diagnostic: 0 once every run has ended)."""
        return len(self._runs)

    # ------------------------------------------------------------------ segments
    def _segment(self, ctx: PhaseContext, began_ms_ago: int = 0) -> _RunSegment:
        """The open segment of ``ctx``'s run, else one opened now — or ``began_ms_ago`` (the
        duration of the inference that is reported first)."""
        segment = self._runs.get(ctx.run_identity.run_id)
        if segment is None:
            segment = self._open(ctx, began_ms_ago)
        return segment

    def _open(self, ctx: PhaseContext, began_ms_ago: int = 0) -> _RunSegment:
        identity = ctx.run_identity
        context = SpanContext(
            run_id=identity.run_id,
            thread_id=identity.thread_id,
            agent_id=identity.agent_id,
            parent_run_id=identity.parent_run_id,
            parent_tool_call_id=identity.parent_tool_call_id,
        )
        segment = self._runs[identity.run_id] = _RunSegment(context, began_ms_ago * 1_000_000)
        resumes = self._parked.pop(identity.run_id, None)
        if resumes is None and identity.run_mode is RunMode.RESUME:
            resumes = context
        if not self._wants_run_start:
            return segment
        self.sink.on_run_start(
            RunStart(
                context=context,
                start_time_unix_nano=segment.start_wall_ns,
                trace_parent=identity.trace_parent,
                resumes=resumes,
            )
        )
        return segment

    # ------------------------------------------------------------------ hooks
    def _after_inference(self, ctx: PhaseContext) -> None:
        duration_ms = ctx.inference_duration_ms or 0
        segment = self._segment(ctx, duration_ms)
        now = time.perf_counter_ns()
        agent_id = ctx.agent_spec.id
        previous = segment.context.agent_id
        if previous and agent_id and agent_id != previous:
            handoff = HandoffSpan(
                context=segment.context,
                from_agent_id=previous,
                to_agent_id=agent_id,
                timestamp_ms=segment.wall_ns(now) // 1_000_000,
            )
            segment.context = msgspec.structs.replace(segment.context, agent_id=agent_id)
            segment.metrics.handoffs.append(handoff)
            self.sink.on_handoff(handoff)
        span = GenAISpan(
            context=segment.context,
            step_index=segment.steps,
            model=self.model or ctx.inference_model or ctx.agent_spec.model or "",
            provider=self.provider or ctx.inference_provider or "",
            response_model=ctx.inference_model,
            temperature=self.temperature,
            top_p=self.top_p,
            max_tokens=self.max_tokens,
            stop_sequences=self.stop_sequences,
            start_time_unix_nano=segment.wall_ns(now) - duration_ms * 1_000_000,
            duration_ms=duration_ms,
        )
        segment.steps += 1
        response = ctx.llm_response
        if response is not None:
            usage = response.usage
            if usage is not None:
                span.input_tokens = usage.prompt_tokens
                span.output_tokens = usage.completion_tokens
                span.total_tokens = usage.total_tokens
                span.thinking_tokens = usage.thinking_tokens
                span.cache_read_input_tokens = usage.cache_read_tokens
                span.cache_creation_input_tokens = usage.cache_creation_tokens
            if response.stop_reason is not None:
                span.finish_reasons = [_FINISH_REASONS[response.stop_reason]]
        error = ctx.inference_error
        if error is not None:
            cause = error.__cause__ or error
            span.error_type = type(cause).__name__
            span.error_class = type(error).__name__
            span.error_message = str(cause)
        if self.capture_content:
            span.input_messages = _messages_json(ctx.messages)
            if response is not None:
                span.output_messages = _messages_json(
                    [Message.assistant_with_tool_calls(response.text, response.tool_calls)]
                )
        segment.metrics.inferences.append(span)
        self.sink.on_inference(span)

    def _before_tool(self, ctx: PhaseContext) -> None:
        segment = self._segment(ctx)
        call_id = ctx.tool_call_id or ""
        now = time.perf_counter_ns()
        segment.tool_starts[call_id] = now
        if self._wants_tool_start:
            wall = segment.wall_ns(now)
            self.sink.on_tool_start(segment.context, call_id, ctx.tool_name or "", wall)
        resume = ctx.resume_input
        if resume is not None:
            span = SuspensionSpan(
                context=segment.context,
                tool_call_id=call_id,
                tool_name=ctx.tool_name or "",
                action="resumed",
                resume_mode="cancel" if resume.action is ResumeDecisionAction.CANCEL else "resume",
                timestamp_ms=segment.wall_ns(now) // 1_000_000,
            )
            segment.metrics.suspensions.append(span)
            self.sink.on_suspension(span)

    def _after_tool(self, ctx: PhaseContext) -> None:
        result = ctx.tool_result
        if result is None:
            return
        segment = self._segment(ctx)
        call_id = ctx.tool_call_id or ""
        now = time.perf_counter_ns()
        started = segment.tool_starts.pop(call_id, None)
        duration_ms = (now - started) // 1_000_000 if started is not None else 0
        failed = result.status is ToolStatus.ERROR
        span = ToolSpan(
            context=segment.context,
            step_index=max(segment.steps - 1, 0),
            name=result.tool_name,
            call_id=call_id,
            status=result.status.value,
            error_type="tool_error" if failed else None,
            error_message=result.message if failed else None,
            start_time_unix_nano=segment.wall_ns(started if started is not None else now),
            duration_ms=duration_ms,
        )
        if self.capture_content:
            span.arguments = ctx.tool_args
            span.result = result.data
        segment.metrics.tools.append(span)
        self.sink.on_tool(span)
        timestamp_ms = segment.wall_ns(now) // 1_000_000
        if result.status is ToolStatus.PENDING:
            suspension = SuspensionSpan(
                context=segment.context,
                tool_call_id=call_id,
                tool_name=result.tool_name,
                action="suspended",
                timestamp_ms=timestamp_ms,
            )
            segment.metrics.suspensions.append(suspension)
            self.sink.on_suspension(suspension)
        if result.tool_name.startswith(_DELEGATE_PREFIX):
            child = result.metadata.get("child_run_id")
            delegation = DelegationSpan(
                context=segment.context,
                parent_run_id=segment.context.run_id,
                target_agent_id=result.tool_name[len(_DELEGATE_PREFIX) :],
                tool_call_id=call_id,
                child_run_id=child if isinstance(child, str) else None,
                duration_ms=duration_ms,
                success=not failed,
                error_message=result.message if failed else None,
                timestamp_ms=timestamp_ms,
            )
            segment.metrics.delegations.append(delegation)
            self.sink.on_delegation(delegation)

    def _run_end(self, ctx: PhaseContext) -> None:
        run_id = ctx.run_identity.run_id
        segment = self._runs.get(run_id) or self._open(ctx)
        del self._runs[run_id]
        metrics = segment.metrics
        elapsed = time.perf_counter_ns() - segment.start_perf_ns
        metrics.session_duration_ms = elapsed // 1_000_000
        metrics.outcome = outcome_of(ctx.termination)
        if metrics.outcome is RunOutcome.SUSPENDED:
            self._parked[run_id] = segment.context
            while len(self._parked) > _MAX_PARKED:
                self._parked.popitem(last=False)
        self.sink.on_run_end(metrics)
