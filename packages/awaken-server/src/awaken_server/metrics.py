"""Prometheus metrics of one server (its own registry, so several apps can live in one process)."""

from __future__ import annotations

from awaken_contract.contract.event import AgentEvent, RunFinish
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_ext_observability.conventions import DURATION_BUCKETS
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from awaken_server.metric_series import (
    CounterFamily,
    HistogramFamily,
    counter_series,
    histogram_series,
)

__all__ = ["METRICS_CONTENT_TYPE", "LiveGauge", "ServerMetrics"]

METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class LiveGauge:
    """An unlabelled gauge kept as a plain number that Prometheus reads when it collects
    (``Gauge.set_function``): ``inc``/``dec`` are one attribute update, without
    prometheus_client's checks and lock (the server moves these gauges several times per run,
    always on the event loop's thread)."""

    __slots__ = ("value",)

    def __init__(self, name: str, documentation: str, registry: CollectorRegistry) -> None:
        self.value = 0.0
        Gauge(name, documentation, registry=registry).set_function(self._read)

    def _read(self) -> float:
        return self.value

    def inc(self) -> None:
        """Add one."""
        self.value += 1

    def dec(self) -> None:
        """Subtract one."""
        self.value -= 1

    def set(self, value: float) -> None:
        """Set the value."""
        self.value = value


class ServerMetrics:
    """The counters, gauges and histograms the server exports at ``/metrics``."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.http_requests = CounterFamily(
            Counter(
                "awaken_http_requests_total",
                "HTTP requests by method, route template and status",
                ["method", "route", "status"],
                registry=r,
            )
        )
        self.http_duration = HistogramFamily(
            Histogram(
                "awaken_http_request_duration_seconds",
                "HTTP request duration (until the response started)",
                ["method", "route", "status"],
                registry=r,
            )
        )
        self.http_in_flight = LiveGauge(
            "awaken_http_requests_in_flight", "HTTP requests being served", r
        )
        self.sse_connections = LiveGauge("awaken_sse_connections", "Open SSE streams", r)
        self.active_runs = LiveGauge("awaken_active_runs", "Runs executing in this process", r)
        self.runs_started = counter_series(
            Counter("awaken_runs_started_total", "Runs started by this process", registry=r)
        )
        self.runs_finished = CounterFamily(
            Counter(
                "awaken_runs_total",
                "Runs finished by termination kind",
                ["outcome"],
                registry=r,
            )
        )
        self.run_duration = histogram_series(
            Histogram("awaken_run_duration_seconds", "Wall time of a mailbox job's run", registry=r)
        )
        # GenAI families, fed by the observability plugin (awaken_server.telemetry).
        self.inference_requests = CounterFamily(
            Counter(
                "awaken_inference_requests_total",
                "Completed inferences by agent, model and outcome (ok/error)",
                ["agent", "model", "outcome"],
                registry=r,
            )
        )
        self.inference_duration = HistogramFamily(
            Histogram(
                "awaken_inference_duration_seconds",
                "Inference latency by agent, model and outcome",
                ["agent", "model", "outcome"],
                buckets=DURATION_BUCKETS,
                registry=r,
            )
        )
        self.inference_tokens = CounterFamily(
            Counter(
                "awaken_inference_tokens_total",
                "Tokens by agent, model and type (input/output)",
                ["agent", "model", "type"],
                registry=r,
            )
        )
        self.tool_calls = CounterFamily(
            Counter(
                "awaken_tool_calls_total",
                "Finished tool calls by agent, tool and outcome (success/error/pending)",
                ["agent", "tool", "outcome"],
                registry=r,
            )
        )
        self.tool_duration = HistogramFamily(
            Histogram(
                "awaken_tool_duration_seconds",
                "Tool call duration by agent, tool and outcome",
                ["agent", "tool", "outcome"],
                buckets=DURATION_BUCKETS,
                registry=r,
            )
        )
        self.mailbox_depth = Gauge(
            "awaken_mailbox_queue_depth", "Queued mailbox jobs (store-wide)", registry=r
        )
        self.mailbox_ops = CounterFamily(
            Counter(
                "awaken_mailbox_operations_total",
                "Mailbox operations by kind and result",
                ["operation", "result"],
                registry=r,
            )
        )
        self.errors = CounterFamily(
            Counter("awaken_errors_total", "Errors by class", ["class"], registry=r)
        )

    def observe_event(self, event: AgentEvent) -> None:
        """Count finished runs (inferences and tool calls come from the observability plugin)."""
        if isinstance(event, RunFinish) and event.termination.type is not TerminationKind.SUSPENDED:
            self.runs_finished.labels(event.termination.type.value).inc()

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)
