"""``awaken serve`` observability: OTLP/HTTP export configured from ServerConfig, the W3C
``traceparent`` of the request parents the run span, bounded Prometheus labels, JSON logs."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from awaken_ext_observability import GenAISpan, ObservabilityConfigError, SpanContext, ToolSpan
from awaken_ext_observability.testing import OtlpReceiver
from awaken_runtime.testing.asgi import serve_asgi
from awaken_server.bootstrap import default_system_config
from awaken_server.metrics import ServerMetrics
from awaken_server.serve import prepare_app
from awaken_server.telemetry import ObservabilityServerConfig, PrometheusSink, ServerTelemetry
from awaken_server.testing import test_server_config
from awaken_stores import InMemoryStore
from prometheus_client.parser import text_string_to_metric_families

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_SPAN = "00f067aa0ba902b7"


@pytest.fixture
def receiver() -> Any:
    r = OtlpReceiver()
    yield r
    r.close()


@pytest.fixture
async def otlp_server(receiver: OtlpReceiver) -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    config = test_server_config(
        observability=ObservabilityServerConfig(
            otlp=True, otlp_endpoint=receiver.endpoint, service_name="awaken-test"
        )
    )
    app, _ = await prepare_app(default_system_config({}), InMemoryStore(), config)
    running = await serve_asgi(app, lifespan="on")
    client = httpx.AsyncClient(base_url=running.url, timeout=30)
    try:
        yield app, client
    finally:
        await client.aclose()
        await running.stop()
        app.state.telemetry.shutdown()


async def test_traceparent_of_the_request_parents_the_exported_run_span(
    otlp_server: tuple[Any, httpx.AsyncClient], receiver: OtlpReceiver
) -> None:
    app, client = otlp_server
    payload = {"agentId": "assistant", "messages": [{"role": "user", "content": "weather?"}]}
    headers = {"traceparent": f"00-{TRACE_ID}-{PARENT_SPAN}-01"}
    async with client.stream("POST", "/v1/runs", json=payload, headers=headers) as response:
        assert response.status_code == 200
        async for _ in response.aiter_lines():
            pass
    app.state.telemetry.flush()
    spans = receiver.spans()
    (run,) = spans["invoke_agent assistant"]
    assert run.trace_id.hex() == TRACE_ID and run.parent_span_id.hex() == PARENT_SPAN
    chats = [s for name, found in spans.items() if name.startswith("chat ") for s in found]
    assert chats and all(c.parent_span_id == run.span_id for c in chats)


async def test_a_run_without_traceparent_starts_its_own_trace(
    otlp_server: tuple[Any, httpx.AsyncClient], receiver: OtlpReceiver
) -> None:
    app, client = otlp_server
    payload = {"agentId": "assistant", "messages": [{"role": "user", "content": "hi"}]}
    headers = {"traceparent": "not-a-traceparent"}
    async with client.stream("POST", "/v1/runs", json=payload, headers=headers) as response:
        assert response.status_code == 200
        async for _ in response.aiter_lines():
            pass
    app.state.telemetry.flush()
    (run,) = receiver.spans()["invoke_agent assistant"]
    assert run.parent_span_id == b"" and run.trace_id.hex() != TRACE_ID


def test_otlp_turns_on_from_the_standard_environment() -> None:
    metrics = ServerMetrics()
    off = ServerTelemetry(ObservabilityServerConfig(), metrics, environ={})
    assert off.otlp is None
    on = ServerTelemetry(
        ObservabilityServerConfig(),
        ServerMetrics(),
        environ={"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"},
    )
    try:
        assert on.otlp is not None
    finally:
        on.shutdown()
    grpc = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    with pytest.raises(ObservabilityConfigError, match="grpc"):
        ServerTelemetry(ObservabilityServerConfig(), metrics, environ=grpc)
    disabled = ServerTelemetry(ObservabilityServerConfig(otlp=False), metrics, environ=grpc)
    assert disabled.otlp is None


def test_prometheus_labels_are_bounded() -> None:
    metrics = ServerMetrics()
    sink = PrometheusSink(metrics, max_label_values=2)
    ctx = SpanContext(run_id="r", agent_id="a")
    for i in range(5):
        sink.on_tool(ToolSpan(context=ctx, name=f"made_up_{i}", call_id=str(i)))
        sink.on_inference(GenAISpan(context=ctx, model=f"m{i}", input_tokens=1))
    text = metrics.render().decode()
    tools = {
        line.split('tool="')[1].split('"')[0]
        for line in text.splitlines()
        if line.startswith("awaken_tool_calls_total{")
    }
    assert tools == {"made_up_0", "made_up_1", "other"}
    models = {
        line.split('model="')[1].split('"')[0]
        for line in text.splitlines()
        if line.startswith("awaken_inference_requests_total{")
    }
    assert models == {"m0", "m1", "other"}


def test_serve_log_format_json_carries_run_ids() -> None:
    """``configure_logging(…, "json")`` as ``awaken serve --log-format json`` calls it."""
    script = (
        "import asyncio, logging\n"
        "from awaken_server.serve import configure_logging\n"
        "configure_logging('info', 'json')\n"
        "logging.getLogger('awaken.runtime.loop_runner.loop').warning('probe')\n"
        "from awaken_contract.log_context import bind_run\n"
        "from awaken_contract.contract.identity import RunIdentity\n"
        "with bind_run(RunIdentity(thread_id='t9', run_id='r9', agent_id='a9')):\n"
        "    logging.getLogger('awaken.test').info('inside', extra={'k': 1})\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    outside, inside = lines
    assert outside["message"] == "probe" and "run_id" not in outside
    assert (inside["run_id"], inside["thread_id"], inside["agent_id"], inside["k"]) == (
        "r9",
        "t9",
        "a9",
        1,
    )


async def test_metrics_values_add_up_over_several_runs(live: Any, sse: Any) -> None:
    """Counts, token sums and histogram counts of three runs match what their events say."""
    usage = {"input": 0, "output": 0}
    inferences = tools = 0
    for city in ("Paris", "Oslo", "Rome"):
        body = {
            "agentId": "assistant",
            "messages": [{"role": "user", "content": f"weather in {city}"}],
        }
        async with live.client.stream("POST", "/v1/runs", json=body) as response:
            events = [f.data for f in await sse.collect(response) if f.data]
        for event in events:
            if event["event_type"] == "inference_complete":
                inferences += 1
                usage["input"] += (event.get("usage") or {}).get("prompt_tokens", 0)
                usage["output"] += (event.get("usage") or {}).get("completion_tokens", 0)
            elif event["event_type"] == "tool_call_done":
                tools += 1
    assert inferences == 6 and tools == 3  # (the demo model reports 0 tokens)
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families((await live.client.get("/metrics")).text)
        for s in family.samples
    }
    model = (("agent", "assistant"), ("model", "demo-scripted"))
    assert samples["awaken_inference_requests_total", (*model, ("outcome", "ok"))] == 6
    assert samples["awaken_inference_duration_seconds_count", (*model, ("outcome", "ok"))] == 6
    for kind, total in usage.items():
        key = ("awaken_inference_tokens_total", (*model, ("type", kind)))
        assert samples.get(key, 0) == total
    tool = (("agent", "assistant"), ("outcome", "success"), ("tool", "get_weather"))
    assert samples["awaken_tool_calls_total", tool] == 3
    assert samples["awaken_tool_duration_seconds_count", tool] == 3
    assert samples["awaken_runs_total", (("outcome", "natural_end"),)] == 3
    assert samples["awaken_runs_started_total", ()] == 3
    assert samples["awaken_run_duration_seconds_count", ()] == 3
    assert samples["awaken_active_runs", ()] == 0
    assert samples["awaken_sse_connections", ()] == 0
    post = (("method", "POST"), ("route", "/v1/runs"), ("status", "200"))
    assert samples["awaken_http_requests_total", post] == 3


def test_prometheus_sink_values() -> None:
    """Requests, tokens (a series only once tokens were counted), errors and durations."""
    metrics = ServerMetrics()
    sink = PrometheusSink(metrics)
    ctx = SpanContext(run_id="r", agent_id="a")
    sink.on_inference(GenAISpan(context=ctx, model="m", duration_ms=20))
    sink.on_inference(GenAISpan(context=ctx, model="m", input_tokens=5, output_tokens=7))
    sink.on_inference(GenAISpan(context=ctx, model="m", input_tokens=1, duration_ms=3000))
    sink.on_inference(GenAISpan(context=ctx, model="m", error_type="Timeout"))
    sink.on_tool(ToolSpan(context=ctx, name="t", status="error", duration_ms=40))
    sink.on_tool(ToolSpan(context=ctx, name="t", status="error"))
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(metrics.render().decode())
        for s in family.samples
    }
    am = (("agent", "a"), ("model", "m"))
    assert samples["awaken_inference_requests_total", (*am, ("outcome", "ok"))] == 3
    assert samples["awaken_inference_requests_total", (*am, ("outcome", "error"))] == 1
    assert samples["awaken_inference_tokens_total", (*am, ("type", "input"))] == 6
    assert samples["awaken_inference_tokens_total", (*am, ("type", "output"))] == 7
    ok = (*am, ("outcome", "ok"))
    assert samples["awaken_inference_duration_seconds_sum", ok] == pytest.approx(3.02)
    assert samples["awaken_inference_duration_seconds_count", ok] == 3
    tool = (("agent", "a"), ("outcome", "error"), ("tool", "t"))
    assert samples["awaken_tool_calls_total", tool] == 2
    assert samples["awaken_tool_duration_seconds_sum", tool] == pytest.approx(0.04)
    # no token series for the failed inference's labels (nothing was counted there)
    assert not any(
        name == "awaken_inference_tokens_total" and ("outcome", "error") in labels
        for name, labels in samples
    )


def test_live_gauges_are_read_when_prometheus_collects() -> None:
    metrics = ServerMetrics()
    metrics.sse_connections.inc()
    metrics.sse_connections.inc()
    metrics.sse_connections.dec()
    metrics.active_runs.set(3)
    text = metrics.render().decode()
    assert "# TYPE awaken_sse_connections gauge\nawaken_sse_connections 1.0\n" in text
    assert "awaken_active_runs 3.0\n" in text
    assert metrics.registry.get_sample_value("awaken_http_requests_in_flight") == 0.0
