"""S1 with observability: the S1 run (2 inferences + 1 tool) with the observability plugin off,
on with an ``InMemorySink``, and on with an ``OtelSink`` over the OTel SDK (no-op span exporter,
in-memory metric reader), measured in the same process. Target: InMemorySink overhead ≤ 25 %.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _scenario import awaken_run, build_runtime
from awaken.ext_observability import InMemorySink, ObservabilityPlugin, OtelSink
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from s1_overhead import BLOCK, ROUNDS, WARMUP, measure, p90


class NoOpExporter(SpanExporter):
    """Accepts every span and drops it (the cost measured is the SDK's, not an exporter's)."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


def otel_sink() -> OtelSink:
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(NoOpExporter()))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    return OtelSink(tracer_provider.get_tracer("awaken"), meter_provider.get_meter("awaken"))


async def main() -> None:
    variants = {
        "off": build_runtime(),
        "InMemorySink": build_runtime(plugin=ObservabilityPlugin(InMemorySink())),
        "OtelSink (no-op exporter)": build_runtime(plugin=ObservabilityPlugin(otel_sink())),
    }
    results: dict[str, list[float]] = {name: [] for name in variants}
    # interleave the variants so machine load affects them alike
    for _ in range(3):
        for name, runtime in variants.items():
            results[name].extend(await measure(lambda runtime=runtime: awaken_run(runtime)))
    base = statistics.median(results["off"])
    print(f"S1 with observability (3x{ROUNDS}x{BLOCK} runs per variant after {WARMUP} warm-up)")
    for name, values in results.items():
        med = statistics.median(values)
        overhead = (med / base - 1) * 100
        print(
            f"  {name:26s}: median {med:8.1f} µs/run   p90 {p90(values):8.1f}"
            f"   overhead {overhead:+6.1f} %"
        )
    print("  target: InMemorySink overhead <= 25 %")


if __name__ == "__main__":
    asyncio.run(main())
