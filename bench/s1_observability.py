"""S1 with observability: the S1 run (2 inferences + 1 tool) with the observability plugin off,
on with an ``InMemorySink``, and on with an ``OtelSink`` over the OTel SDK (no-op span exporter,
in-memory metric reader), measured in the same process. Target: InMemorySink overhead ≤ 25 %.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _scenario import awaken_run, build_runtime
from awaken.ext_observability import InMemorySink, ObservabilityPlugin, OtelSink
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from s1_overhead import BLOCK, WARMUP, p90

ROUNDS = 15


class NoOpExporter(SpanExporter):
    """Accepts every span and drops it (the cost measured is the SDK's, not an exporter's)."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


def otel_sink() -> OtelSink:
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(NoOpExporter()))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    return OtelSink(tracer_provider.get_tracer("awaken"), meter_provider.get_meter("awaken"))


async def block(runtime: object, runs: int) -> tuple[float, float]:
    """(wall µs, CPU µs) per run over ``runs`` sequential runs. The process's CPU time is what
    the overhead is judged on: on a shared, loaded machine wall time mostly measures the
    neighbours."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(runs):
        await awaken_run(runtime)
    return (
        (time.perf_counter() - wall) / runs * 1e6,
        (time.process_time() - cpu) / runs * 1e6,
    )


async def main() -> None:
    variants = {
        "off": build_runtime(),
        "InMemorySink": build_runtime(plugin=ObservabilityPlugin(InMemorySink())),
        "OtelSink (no-op exporter)": build_runtime(plugin=ObservabilityPlugin(otel_sink())),
    }
    for runtime in variants.values():
        await block(runtime, WARMUP)
    gc.collect()
    walls: dict[str, list[float]] = {name: [] for name in variants}
    cpus: dict[str, list[float]] = {name: [] for name in variants}
    # Blocks of the variants alternate, so machine load affects them alike.
    for _ in range(ROUNDS):
        for name, runtime in variants.items():
            wall, cpu = await block(runtime, BLOCK)
            walls[name].append(wall)
            cpus[name].append(cpu)
    base = statistics.median(cpus["off"])
    print(f"S1 with observability ({ROUNDS} alternating rounds of {BLOCK} runs per variant)")
    for name in variants:
        cpu = statistics.median(cpus[name])
        print(
            f"  {name:26s}: CPU median {cpu:7.1f} µs/run  overhead {(cpu / base - 1) * 100:+6.1f} %"
            f"   (wall median {statistics.median(walls[name]):7.1f}, p90 {p90(walls[name]):7.1f})"
        )
    print("  target: InMemorySink overhead <= 25 %")


if __name__ == "__main__":
    asyncio.run(main())
