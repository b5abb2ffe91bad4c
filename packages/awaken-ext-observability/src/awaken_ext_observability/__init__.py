"""Observability for Awaken agents: GenAI spans and metrics.

``ObservabilityPlugin(sink)`` collects a span per inference and per tool call and the totals of
each run into a :class:`MetricsSink`: :class:`InMemorySink` (development, ``metrics()``),
:class:`OtelSink` (OpenTelemetry GenAI semantic conventions; extra ``[otel]``), or your own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from awaken_ext_observability.errors import ObservabilityConfigError, SinkError
from awaken_ext_observability.metrics import AgentMetrics, ModelStats, RunOutcome, ToolStats
from awaken_ext_observability.plugin import (
    CAPTURE_CONTENT_ENV,
    OBSERVABILITY_PLUGIN_ID,
    ObservabilityPlugin,
)
from awaken_ext_observability.sink import CompositeSink, InMemorySink, MetricsSink, RunStart
from awaken_ext_observability.spans import (
    DelegationSpan,
    GenAISpan,
    HandoffSpan,
    MetricsEvent,
    SpanContext,
    SuspensionSpan,
    ToolSpan,
)

if TYPE_CHECKING:
    from awaken_ext_observability.otel import OtelMetricsSink, OtelSink
    from awaken_ext_observability.otlp import OtelConfig, OtlpTelemetry

__all__ = [
    "CAPTURE_CONTENT_ENV",
    "OBSERVABILITY_PLUGIN_ID",
    "AgentMetrics",
    "CompositeSink",
    "DelegationSpan",
    "GenAISpan",
    "HandoffSpan",
    "InMemorySink",
    "MetricsEvent",
    "MetricsSink",
    "ModelStats",
    "ObservabilityConfigError",
    "ObservabilityPlugin",
    "OtelConfig",
    "OtelMetricsSink",
    "OtelSink",
    "OtlpTelemetry",
    "RunOutcome",
    "RunStart",
    "SinkError",
    "SpanContext",
    "SuspensionSpan",
    "ToolSpan",
    "ToolStats",
]

_OTEL = {
    "OtelSink": "awaken_ext_observability.otel",
    "OtelMetricsSink": "awaken_ext_observability.otel",
    "OtelConfig": "awaken_ext_observability.otlp",
    "OtlpTelemetry": "awaken_ext_observability.otlp",
}


def __getattr__(name: str) -> Any:
    """The OpenTelemetry names load on first use (they need the ``[otel]`` extra)."""
    module = _OTEL.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
