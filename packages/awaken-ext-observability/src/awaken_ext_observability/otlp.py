"""OTLP/HTTP export set up from the standard ``OTEL_*`` environment variables (extra ``[otel]``).

The OTLP exporters read ``OTEL_EXPORTER_OTLP_[TRACES_|METRICS_]ENDPOINT``, ``…_HEADERS`` and
``…_TIMEOUT`` themselves; the resource reads ``OTEL_SERVICE_NAME`` and
``OTEL_RESOURCE_ATTRIBUTES``. Only ``http/protobuf`` is supported (the protocol variable is
checked so a ``grpc`` setting fails loudly instead of exporting nowhere).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import msgspec
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from awaken_ext_observability.errors import ObservabilityConfigError
from awaken_ext_observability.otel import INSTRUMENTATION_NAME, OtelSink

__all__ = ["OtelConfig", "OtlpTelemetry"]

_ENDPOINT_VARS = (
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
)
_PROTOCOL_VARS = (
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
)
_SUPPORTED_PROTOCOL = "http/protobuf"


class OtelConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Whether and how to export: ``endpoint`` (base URL) and ``service_name`` override the
    environment; ``enabled`` forces export on even with only per-signal endpoints set."""

    endpoint: str | None = None
    service_name: str | None = None
    enabled: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> OtelConfig:
        """Read the standard variables (an unsupported protocol → ``ObservabilityConfigError``)."""
        env = os.environ if env is None else env
        for var in _PROTOCOL_VARS:
            protocol = env.get(var, "").strip()
            if protocol and protocol != _SUPPORTED_PROTOCOL:
                raise ObservabilityConfigError(
                    f"{var}={protocol!r}: only {_SUPPORTED_PROTOCOL!r} is supported"
                )
        configured = any(env.get(v, "").strip() for v in _ENDPOINT_VARS)
        return cls(service_name=env.get("OTEL_SERVICE_NAME") or None, enabled=configured)

    @property
    def is_configured(self) -> bool:
        """True when there is somewhere to export to."""
        return self.enabled or bool(self.endpoint)


class OtlpTelemetry:
    """Tracer and meter providers exporting over OTLP/HTTP, and the :class:`OtelSink` on them.

    ``shutdown()`` flushes and stops both exporters.
    """

    def __init__(self, config: OtelConfig, *, metric_export_interval_ms: int = 10_000) -> None:
        if not config.is_configured:
            raise ObservabilityConfigError("No OTLP endpoint configured")
        attrs = {"service.name": config.service_name} if config.service_name else {}
        resource = Resource.create(attrs)
        base = config.endpoint.rstrip("/") if config.endpoint else None
        span_exporter = OTLPSpanExporter(endpoint=f"{base}/v1/traces" if base else None)
        metric_exporter = OTLPMetricExporter(endpoint=f"{base}/v1/metrics" if base else None)
        self.tracer_provider = TracerProvider(resource=resource)
        self.tracer_provider.add_span_processor(BatchSpanProcessor(span_exporter))
        self.meter_provider = MeterProvider(
            resource=resource,
            metric_readers=[
                PeriodicExportingMetricReader(
                    metric_exporter, export_interval_millis=metric_export_interval_ms
                )
            ],
        )
        self.sink = OtelSink(
            self.tracer_provider.get_tracer(INSTRUMENTATION_NAME),
            self.meter_provider.get_meter(INSTRUMENTATION_NAME),
        )

    def flush(self) -> None:
        """Export everything collected so far."""
        self.tracer_provider.force_flush()
        self.meter_provider.force_flush()

    def shutdown(self) -> None:
        """Flush and stop the exporters."""
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()
