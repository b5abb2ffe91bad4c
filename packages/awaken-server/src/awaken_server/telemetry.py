"""Observability of ``awaken serve``: the observability plugin on every agent, feeding the
Prometheus ``/metrics`` (bounded labels) and — when configured — OTLP/HTTP export.

:class:`ObservabilityServerConfig` is ``ServerConfig.observability``; OTLP export turns on when
``otlp`` is true, or when it is unset and a standard ``OTEL_EXPORTER_OTLP_*ENDPOINT`` variable
is set.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from awaken_contract.registry_spec import AgentSpec, AgentSystemConfig
from awaken_ext_observability import (
    OBSERVABILITY_PLUGIN_ID,
    AgentMetrics,
    CompositeSink,
    GenAISpan,
    MetricsSink,
    ObservabilityPlugin,
    ToolSpan,
)
from pydantic import BaseModel, ConfigDict, Field

from awaken_server.metric_series import CounterSeries, HistogramSeries
from awaken_server.metrics import ServerMetrics

if TYPE_CHECKING:
    from awaken_ext_observability.otlp import OtlpTelemetry

__all__ = [
    "BoundedLabel",
    "ObservabilityServerConfig",
    "PrometheusSink",
    "ServerTelemetry",
    "enable_on",
]


class ObservabilityServerConfig(BaseModel):
    """``server.observability`` of the serve file."""

    model_config = ConfigDict(extra="forbid")

    otlp: bool | None = None
    """Export over OTLP/HTTP (unset: on when an ``OTEL_EXPORTER_OTLP_*ENDPOINT`` is set)."""
    otlp_endpoint: str | None = None
    """Base URL of the collector (``/v1/traces`` and ``/v1/metrics`` are appended); the
    ``OTEL_EXPORTER_OTLP_*`` variables apply when unset."""
    service_name: str | None = None
    """Resource ``service.name`` (``OTEL_SERVICE_NAME`` when unset)."""
    capture_content: bool = False
    """Put prompts, responses and tool arguments/results on spans (off by default)."""
    metric_export_interval_ms: int = Field(default=10_000, ge=100)
    max_label_values: int = Field(default=100, ge=1)
    """Distinct values kept per Prometheus label (agent, model, tool); more → ``other``."""


class BoundedLabel:
    """Keeps at most ``limit`` distinct values of a label; later new values become ``other``."""

    OTHER = "other"

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._seen: set[str] = set()

    def __call__(self, value: str) -> str:
        value = value or "unknown"
        if value in self._seen:
            return value
        if len(self._seen) >= self.limit:
            return self.OTHER
        self._seen.add(value)
        return value


class PrometheusSink(MetricsSink):
    """Feeds the server's inference, token, tool and run-segment metrics from the plugin.

    The children of each (agent, model, outcome) and (agent, tool, status) are looked up once
    and remembered (for label values the bounded labels kept; ``other`` is not remembered by
    raw value, so the memory stays bounded as the labels are)."""

    def __init__(self, metrics: ServerMetrics, max_label_values: int = 100) -> None:
        self.metrics = metrics
        self.agent = BoundedLabel(max_label_values)
        self.model = BoundedLabel(max_label_values)
        self.tool = BoundedLabel(max_label_values)
        self._inference: dict[tuple[str, str, str], _InferenceSeries] = {}
        self._tools: dict[tuple[str, str, str], tuple[CounterSeries, HistogramSeries]] = {}

    def on_inference(self, span: GenAISpan) -> None:
        outcome = "error" if span.error_type else "ok"
        key = (span.context.agent_id, span.model, outcome)
        series = self._inference.get(key)
        if series is None:
            series = self._inference_series(key)
        series.requests.inc()
        series.duration.observe(span.duration_ms / 1000.0)
        if span.input_tokens:
            series.input_tokens().inc(span.input_tokens)
        if span.output_tokens:
            series.output_tokens().inc(span.output_tokens)

    def _inference_series(self, key: tuple[str, str, str]) -> _InferenceSeries:
        agent_id, model_name, outcome = key
        agent, model = self.agent(agent_id), self.model(model_name)
        series = _InferenceSeries(self.metrics, agent, model, outcome)
        if BoundedLabel.OTHER not in (agent, model):
            self._inference[key] = series
        return series

    def on_tool(self, span: ToolSpan) -> None:
        key = (span.context.agent_id, span.name, span.status)
        children = self._tools.get(key)
        if children is None:
            m = self.metrics
            agent, tool = self.agent(span.context.agent_id), self.tool(span.name)
            labels = (agent, tool, span.status)
            children = (m.tool_calls.labels(*labels), m.tool_duration.labels(*labels))
            if BoundedLabel.OTHER not in (agent, tool):
                self._tools[key] = children
        calls, duration = children
        calls.inc()
        duration.observe(span.duration_ms / 1000.0)

    def on_run_end(self, metrics: AgentMetrics) -> None:
        pass  # runs are counted from run_finish events (every run, with or without the plugin)


class _InferenceSeries:
    """The children of one (agent, model, outcome); token series made on first use (a series
    appears in ``/metrics`` only once tokens were counted)."""

    __slots__ = ("_input", "_output", "agent", "duration", "metrics", "model", "requests")

    def __init__(self, metrics: ServerMetrics, agent: str, model: str, outcome: str) -> None:
        self.metrics = metrics
        self.agent = agent
        self.model = model
        self.requests = metrics.inference_requests.labels(agent, model, outcome)
        self.duration = metrics.inference_duration.labels(agent, model, outcome)
        self._input: CounterSeries | None = None
        self._output: CounterSeries | None = None

    def input_tokens(self) -> CounterSeries:
        if self._input is None:
            self._input = self.metrics.inference_tokens.labels(self.agent, self.model, "input")
        return self._input

    def output_tokens(self) -> CounterSeries:
        if self._output is None:
            self._output = self.metrics.inference_tokens.labels(self.agent, self.model, "output")
        return self._output


def enable_on(agent: AgentSpec) -> AgentSpec:
    """``agent`` with the observability plugin enabled (in its hook filter when it has one)."""
    if OBSERVABILITY_PLUGIN_ID not in agent.plugin_ids:
        agent = agent.with_plugin(OBSERVABILITY_PLUGIN_ID)
    if agent.active_hook_filter and OBSERVABILITY_PLUGIN_ID not in agent.active_hook_filter:
        agent = agent.with_hook_filter(OBSERVABILITY_PLUGIN_ID)
    return agent


class ServerTelemetry:
    """The plugin instance of a server, its sinks, and the OTLP exporters when enabled."""

    def __init__(
        self,
        config: ObservabilityServerConfig,
        metrics: ServerMetrics,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.config = config
        sinks: list[MetricsSink] = [PrometheusSink(metrics, config.max_label_values)]
        self.otlp: OtlpTelemetry | None = None
        from awaken_ext_observability.otlp import OtelConfig, OtlpTelemetry

        # ``otlp: false`` ignores the environment (even an unsupported protocol setting).
        env_config = OtelConfig() if config.otlp is False else OtelConfig.from_env(environ)
        wanted = config.otlp if config.otlp is not None else env_config.is_configured
        if wanted:
            otel_config = OtelConfig(
                endpoint=config.otlp_endpoint,
                service_name=config.service_name or env_config.service_name or "awaken",
                enabled=env_config.is_configured,
            )
            self.otlp = OtlpTelemetry(
                otel_config, metric_export_interval_ms=config.metric_export_interval_ms
            )
            sinks.append(self.otlp.sink)
        # One sink is passed as it is: the plugin builds the start callbacks' structs only
        # for a sink that overrides them, and a composite overrides every callback.
        sink = sinks[0] if len(sinks) == 1 else CompositeSink(sinks)
        self.plugin = ObservabilityPlugin(sink, capture_content=config.capture_content)

    def apply(self, system: AgentSystemConfig) -> AgentSystemConfig:
        """``system`` with the plugin enabled on every agent."""
        return system.model_copy(update={"agents": [enable_on(a) for a in system.agents]})

    def flush(self) -> None:
        """Export what the OTLP exporters hold (if any)."""
        if self.otlp is not None:
            self.otlp.flush()

    def shutdown(self) -> None:
        """Flush and stop the OTLP exporters (if any)."""
        if self.otlp is not None:
            self.otlp.shutdown()

    def __repr__(self) -> str:
        return f"ServerTelemetry(otlp={self.otlp is not None})"
