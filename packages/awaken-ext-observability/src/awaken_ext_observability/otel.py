"""``OtelSink`` (the book's ``OtelMetricsSink``): spans and metrics following the OpenTelemetry
GenAI semantic conventions, over the official ``opentelemetry-api`` (extra ``[otel]``).

Span tree of a run (all spans of a run in one trace)::

    invoke_agent {agent}         INTERNAL   one per run segment (a parked run ends "suspended")
     ├─ chat {model}             CLIENT     one per inference
     └─ execute_tool {tool}      INTERNAL   one per tool call
         └─ invoke_agent {sub}   INTERNAL   a delegated run, under the tool call that started it

The run span's parent is the delegating tool span, else the W3C ``traceparent`` of the run's
request, else the caller's current span (library mode). A resumed segment links to the parked
one. Metrics: ``gen_ai.client.token.usage`` and ``gen_ai.client.operation.duration`` histograms
with the conventions' bucket boundaries.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.trace import Link, Span, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from awaken_ext_observability.conventions import DURATION_BUCKETS, TOKEN_BUCKETS
from awaken_ext_observability.metrics import AgentMetrics, RunOutcome
from awaken_ext_observability.sink import MetricsSink, RunStart
from awaken_ext_observability.spans import (
    OPERATION_EXECUTE_TOOL,
    OPERATION_INVOKE_AGENT,
    DelegationSpan,
    GenAISpan,
    HandoffSpan,
    SpanContext,
    SuspensionSpan,
    ToolSpan,
)

__all__ = [
    "DURATION_BUCKETS",
    "INSTRUMENTATION_NAME",
    "TOKEN_BUCKETS",
    "OtelMetricsSink",
    "OtelSink",
]

INSTRUMENTATION_NAME = "awaken"
_MAX_PARKED = 1024
_PROPAGATOR = TraceContextTextMapPropagator()


def _non_empty(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` without the empty strings and ``None`` s (OTel attributes must be set)."""
    return {k: v for k, v in values.items() if v is not None and v != ""}


def _context_attributes(ctx: SpanContext) -> dict[str, Any]:
    return _non_empty(
        {
            "awaken.run.id": ctx.run_id,
            "gen_ai.conversation.id": ctx.thread_id,
            "gen_ai.agent.id": ctx.agent_id,
            "awaken.parent_run.id": ctx.parent_run_id,
        }
    )


def _json(value: object) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


class OtelSink(MetricsSink):
    """Spans to a tracer and GenAI metrics to a meter (the global providers by default)."""

    def __init__(
        self, tracer: trace.Tracer | None = None, meter: metrics.Meter | None = None
    ) -> None:
        self.tracer = tracer or trace.get_tracer(INSTRUMENTATION_NAME)
        meter = meter or metrics.get_meter(INSTRUMENTATION_NAME)
        self.token_usage = meter.create_histogram(
            "gen_ai.client.token.usage",
            unit="{token}",
            description="Number of input and output tokens used",
            explicit_bucket_boundaries_advisory=TOKEN_BUCKETS,
        )
        self.operation_duration = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="GenAI operation duration",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )
        self._lock = threading.Lock()
        self._runs: dict[str, Span] = {}
        self._tools: dict[tuple[str, str], Span] = {}
        self._parked: OrderedDict[str, trace.SpanContext] = OrderedDict()

    # ------------------------------------------------------------------ run spans
    def _parent(self, start: RunStart) -> otel_context.Context | None:
        ctx = start.context
        with self._lock:
            parent: Span | None = None
            if ctx.parent_run_id and ctx.parent_tool_call_id:
                parent = self._tools.get((ctx.parent_run_id, ctx.parent_tool_call_id))
            if parent is None and ctx.parent_run_id:
                parent = self._runs.get(ctx.parent_run_id)
        if parent is not None:
            return trace.set_span_in_context(parent)
        if start.trace_parent:
            carrier = {"traceparent": start.trace_parent}
            if start.trace_state:
                carrier["tracestate"] = start.trace_state
            extracted = _PROPAGATOR.extract(carrier)
            if trace.get_current_span(extracted).get_span_context().is_valid:
                return extracted
        return None  # the caller's current context

    def on_run_start(self, start: RunStart) -> None:
        ctx = start.context
        links: list[Link] = []
        if start.resumes is not None:
            with self._lock:
                parked = self._parked.pop(ctx.run_id, None)
            if parked is not None:
                links.append(Link(parked, {"awaken.link": "resumes"}))
        attrs = _context_attributes(ctx)
        attrs["gen_ai.operation.name"] = OPERATION_INVOKE_AGENT
        attrs["gen_ai.agent.name"] = ctx.agent_id
        if start.resumes is not None:
            attrs["awaken.run.resumed"] = True
        span = self.tracer.start_span(
            f"{OPERATION_INVOKE_AGENT} {ctx.agent_id}".strip(),
            context=self._parent(start),
            kind=SpanKind.INTERNAL,
            attributes=attrs,
            links=links,
            start_time=start.start_time_unix_nano,
        )
        with self._lock:
            stale = self._runs.pop(ctx.run_id, None)
            self._runs[ctx.run_id] = span
        if stale is not None:
            stale.end()

    def _run_span(self, ctx: SpanContext) -> Span:
        with self._lock:
            span = self._runs.get(ctx.run_id)
        if span is None:
            self.on_run_start(RunStart(context=ctx, start_time_unix_nano=time.time_ns()))
            with self._lock:
                span = self._runs[ctx.run_id]
        return span

    def on_run_end(self, metrics: AgentMetrics) -> None:
        ctx = metrics.context
        if ctx is None:
            return
        with self._lock:
            span = self._runs.pop(ctx.run_id, None)
            tools = [k for k in self._tools if k[0] == ctx.run_id]
            dangling = [self._tools.pop(k) for k in tools]
        for tool in dangling:
            tool.set_attribute("awaken.tool.status", "unfinished")
            tool.end()
        if span is None:
            return
        outcome = metrics.outcome or RunOutcome.FINISHED
        span.set_attribute("awaken.run.status", outcome.value)
        span.set_attribute("gen_ai.usage.input_tokens", metrics.total_input_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", metrics.total_output_tokens)
        span.set_attribute("awaken.run.inference_count", metrics.inference_count)
        span.set_attribute("awaken.run.tool_count", metrics.tool_count)
        span.set_attribute("awaken.run.tool_failures", metrics.tool_failures)
        if outcome is RunOutcome.ERROR:
            failed = next((s for s in reversed(metrics.inferences) if s.error_type), None)
            error_type = failed.error_type if failed is not None else "run_error"
            span.set_attribute("error.type", error_type or "run_error")
            span.set_status(Status(StatusCode.ERROR, error_type))
        elif outcome is RunOutcome.SUSPENDED:
            with self._lock:
                self._parked[ctx.run_id] = span.get_span_context()
                while len(self._parked) > _MAX_PARKED:
                    self._parked.popitem(last=False)
        span.end()

    # ------------------------------------------------------------------ inference
    def on_inference(self, span: GenAISpan) -> None:
        parent = trace.set_span_in_context(self._run_span(span.context))
        attrs: dict[str, Any] = _context_attributes(span.context)
        metric_attrs = _non_empty(
            {
                "gen_ai.operation.name": span.operation,
                "gen_ai.provider.name": span.provider,
                "gen_ai.request.model": span.model,
                "gen_ai.response.model": span.response_model,
                "error.type": span.error_type,
            }
        )
        attrs.update(metric_attrs)
        attrs.update(
            _non_empty(
                {
                    "gen_ai.response.id": span.response_id,
                    "gen_ai.usage.input_tokens": span.input_tokens,
                    "gen_ai.usage.output_tokens": span.output_tokens,
                    "gen_ai.usage.cache_read.input_tokens": span.cache_read_input_tokens,
                    "gen_ai.usage.cache_creation.input_tokens": span.cache_creation_input_tokens,
                    "gen_ai.usage.reasoning.output_tokens": span.thinking_tokens,
                    "gen_ai.request.temperature": span.temperature,
                    "gen_ai.request.top_p": span.top_p,
                    "gen_ai.request.max_tokens": span.max_tokens,
                    "awaken.step.index": span.step_index,
                }
            )
        )
        if span.finish_reasons:
            attrs["gen_ai.response.finish_reasons"] = list(span.finish_reasons)
        if span.stop_sequences:
            attrs["gen_ai.request.stop_sequences"] = list(span.stop_sequences)
        if span.input_messages is not None:
            attrs["gen_ai.input.messages"] = _json(span.input_messages)
        if span.output_messages is not None:
            attrs["gen_ai.output.messages"] = _json(span.output_messages)
        start = span.start_time_unix_nano or time.time_ns()
        otel_span = self.tracer.start_span(
            f"{span.operation} {span.model}".strip(),
            context=parent,
            kind=SpanKind.CLIENT,
            attributes=attrs,
            start_time=start,
        )
        if span.error_type:
            if span.error_message:
                otel_span.set_attribute("error.message", span.error_message)
            otel_span.set_status(Status(StatusCode.ERROR, span.error_type))
        end = time.time_ns()
        otel_span.end(end_time=end)
        self.operation_duration.record(max(end - start, 0) / 1e9, metric_attrs)
        if span.input_tokens is not None:
            self.token_usage.record(
                span.input_tokens, {**metric_attrs, "gen_ai.token.type": "input"}
            )
        if span.output_tokens is not None:
            self.token_usage.record(
                span.output_tokens, {**metric_attrs, "gen_ai.token.type": "output"}
            )

    # ------------------------------------------------------------------ tools
    def on_tool_start(
        self, context: SpanContext, call_id: str, name: str, start_time_unix_nano: int
    ) -> None:
        parent = trace.set_span_in_context(self._run_span(context))
        attrs = _context_attributes(context)
        attrs.update(
            {
                "gen_ai.operation.name": OPERATION_EXECUTE_TOOL,
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": call_id,
                "gen_ai.tool.type": "function",
            }
        )
        span = self.tracer.start_span(
            f"{OPERATION_EXECUTE_TOOL} {name}",
            context=parent,
            kind=SpanKind.INTERNAL,
            attributes=attrs,
            start_time=start_time_unix_nano,
        )
        with self._lock:
            stale = self._tools.pop((context.run_id, call_id), None)
            self._tools[(context.run_id, call_id)] = span
        if stale is not None:
            stale.end()

    def on_tool(self, span: ToolSpan) -> None:
        key = (span.context.run_id, span.call_id)
        with self._lock:
            otel_span = self._tools.pop(key, None)
        if otel_span is None:
            self.on_tool_start(span.context, span.call_id, span.name, span.start_time_unix_nano)
            with self._lock:
                otel_span = self._tools.pop(key)
        otel_span.set_attribute("awaken.tool.status", span.status)
        if span.step_index is not None:
            otel_span.set_attribute("awaken.step.index", span.step_index)
        if span.arguments is not None:
            otel_span.set_attribute("gen_ai.tool.call.arguments", _json(span.arguments))
        if span.result is not None:
            otel_span.set_attribute("gen_ai.tool.call.result", _json(span.result))
        if span.error_type:
            otel_span.set_attribute("error.type", span.error_type)
            if span.error_message:
                otel_span.set_attribute("error.message", span.error_message)
            otel_span.set_status(Status(StatusCode.ERROR, span.error_type))
        otel_span.end()

    # ------------------------------------------------------------------ run events
    def on_suspension(self, span: SuspensionSpan) -> None:
        attrs: dict[str, Any] = {
            "awaken.suspension.action": span.action,
            "gen_ai.tool.call.id": span.tool_call_id,
            "gen_ai.tool.name": span.tool_name,
        }
        if span.resume_mode:
            attrs["awaken.suspension.resume_mode"] = span.resume_mode
        self._run_span(span.context).add_event(
            "awaken.suspension", attrs, timestamp=span.timestamp_ms * 1_000_000
        )

    def on_handoff(self, span: HandoffSpan) -> None:
        self._run_span(span.context).add_event(
            "awaken.handoff",
            {
                "awaken.handoff.from_agent_id": span.from_agent_id,
                "awaken.handoff.to_agent_id": span.to_agent_id,
            },
            timestamp=span.timestamp_ms * 1_000_000,
        )

    def on_delegation(self, span: DelegationSpan) -> None:
        attrs: dict[str, Any] = {
            "awaken.delegation.target_agent_id": span.target_agent_id,
            "gen_ai.tool.call.id": span.tool_call_id,
            "awaken.delegation.success": span.success,
        }
        if span.child_run_id:
            attrs["awaken.delegation.child_run_id"] = span.child_run_id
        if span.error_message:
            attrs["error.message"] = span.error_message
        self._run_span(span.context).add_event(
            "awaken.delegation", attrs, timestamp=span.timestamp_ms * 1_000_000
        )


#: The book's name.
OtelMetricsSink = OtelSink
