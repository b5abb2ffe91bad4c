"""InMemorySink and the plugin's collection rules, without OpenTelemetry."""

from __future__ import annotations

import msgspec
import pytest
from awaken_contract.contract.message import ToolCall
from awaken_ext_observability import (
    AgentMetrics,
    CompositeSink,
    GenAISpan,
    InMemorySink,
    MetricsSink,
    RunOutcome,
    SinkError,
    SpanContext,
    ToolSpan,
)
from awaken_ext_observability.spans import MetricsEvent

from .support import ScriptedLlm, Unreachable, calls, request, runtime, text


async def test_metrics_of_a_tool_run() -> None:
    sink = InMemorySink()
    llm = ScriptedLlm(
        [
            calls(ToolCall("c1", "get_weather", {"city": "Tokyo"})),
            calls(ToolCall("c2", "get_weather", {"city": "Atlantis"})),
            text("Done."),
        ]
    )
    result = await runtime(llm, sink).run(request())
    m = sink.metrics()
    assert [s.step_index for s in m.inferences] == [0, 1, 2]
    assert {(s.model, s.provider) for s in m.inferences} == {("m-1", "llm")}
    assert m.total_input_tokens == 36 and m.total_output_tokens == 15 and m.total_tokens == 51
    assert [(t.name, t.call_id, t.status, t.step_index) for t in m.tools] == [
        ("get_weather", "c1", "success", 0),
        ("get_weather", "c2", "error", 1),
    ]
    assert m.tool_failures == 1 and m.inference_count == 3 and m.tool_count == 2
    assert m.inferences[0].context.run_id == result.run_id
    (stats,) = m.stats_by_model()
    assert (stats.inference_count, stats.input_tokens) == (3, 36)
    (tool_stats,) = m.stats_by_tool()
    assert (tool_stats.call_count, tool_stats.failure_count) == (2, 1)
    assert m.session_duration_ms >= 0
    assert len(m.events()) == 5


async def test_failed_inference_is_recorded_with_its_error() -> None:
    sink = InMemorySink()
    await runtime(Unreachable(), sink).run(request())
    (span,) = sink.metrics().inferences
    assert span.error_type == "ProviderError" and span.error_class == "InferenceFailed"
    assert span.input_tokens is None


async def test_run_end_reports_the_runs_own_metrics_and_outcome() -> None:
    ended: list[AgentMetrics] = []

    class Ends(InMemorySink):
        def on_run_end(self, metrics: AgentMetrics) -> None:
            ended.append(metrics)

    rt = runtime(ScriptedLlm([text("One."), text("Two.")]), Ends())
    first = await rt.run(request(thread="t1"))
    second = await rt.run(request(thread="t2"))
    assert [m.context.run_id for m in ended if m.context] == [first.run_id, second.run_id]
    assert [m.inference_count for m in ended] == [1, 1]
    assert [m.outcome for m in ended] == [RunOutcome.FINISHED, RunOutcome.FINISHED]


def test_span_json_shape() -> None:
    span = ToolSpan(context=SpanContext(run_id="r1"), step_index=0, name="read_file", call_id="c1")
    data = msgspec.json.decode(msgspec.json.encode(span))
    assert data["type"] == "tool" and data["context"] == {"run_id": "r1"}
    assert data["operation"] == "execute_tool" and data["tool_type"] == "function"
    decoded = msgspec.json.decode(msgspec.json.encode(span), type=MetricsEvent)
    assert decoded == span


def test_record_dispatches_and_composite_fans_out() -> None:
    a, b = InMemorySink(), InMemorySink()
    both = CompositeSink([a]).add(b)
    both.record(GenAISpan(context=SpanContext(run_id="r"), model="x", input_tokens=3))
    assert len(both) == 2
    assert a.metrics().total_input_tokens == b.metrics().total_input_tokens == 3


def test_composite_reports_failed_flushes() -> None:
    class Broken(InMemorySink):
        def flush(self) -> None:
            raise OSError("disk full")

    with pytest.raises(SinkError, match="1 sink\\(s\\) failed to flush"):
        CompositeSink([InMemorySink(), Broken()]).flush()


def test_metrics_sink_requires_the_books_three_callbacks() -> None:
    class Partial(MetricsSink):
        def on_inference(self, span: GenAISpan) -> None: ...

    with pytest.raises(TypeError):
        Partial()  # type: ignore[abstract]


def test_without_a_sink_the_plugin_uses_the_global_opentelemetry_providers() -> None:
    from awaken_ext_observability import ObservabilityPlugin
    from awaken_ext_observability.otel import OtelSink

    assert isinstance(ObservabilityPlugin().sink, OtelSink)


def test_entry_point_in_the_awaken_plugins_group() -> None:
    from importlib.metadata import entry_points

    from awaken_ext_observability import OBSERVABILITY_PLUGIN_ID, ObservabilityPlugin

    (ep,) = [e for e in entry_points(group="awaken.plugins") if e.name == OBSERVABILITY_PLUGIN_ID]
    plugin = ep.load()()
    assert isinstance(plugin, ObservabilityPlugin) and plugin.plugin_id == "observability"
