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
