"""OTLP/HTTP export to a receiver on 127.0.0.1 started by the test; the protobuf that arrives
is decoded with opentelemetry-proto."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from awaken_contract.contract.message import ToolCall
from awaken_ext_observability import ObservabilityConfigError
from awaken_ext_observability.otlp import OtelConfig, OtlpTelemetry
from awaken_ext_observability.testing import OtlpReceiver
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)

from .support import ScriptedLlm, calls, request, runtime, text


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    r = OtlpReceiver()
    yield r
    r.close()


async def test_spans_and_metrics_arrive_over_otlp_http(
    receiver: OtlpReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
    monkeypatch.setenv("OTEL_SERVICE_NAME", "otlp-test")
    config = OtelConfig.from_env()
    assert config.is_configured and config.service_name == "otlp-test"
    telemetry = OtlpTelemetry(config)
    llm = ScriptedLlm([calls(ToolCall("c1", "get_weather", {"city": "Tokyo"})), text("Sunny.")])
    try:
        await runtime(llm, telemetry.sink).run(request())
        telemetry.flush()
    finally:
        telemetry.shutdown()

    exports = receiver.trace_exports()
    assert exports, f"no trace export arrived: {[p for p, _, _ in receiver.received]}"
    assert all(ct == "application/x-protobuf" for p, ct, _ in receiver.received)
    services = {
        a.value.string_value
        for export in exports
        for rs in export.resource_spans
        for a in rs.resource.attributes
        if a.key == "service.name"
    }
    assert services == {"otlp-test"}
    spans = receiver.spans()
    assert sorted(spans) == ["chat m-1", "execute_tool get_weather", "invoke_agent a"]
    (run,) = spans["invoke_agent a"]
    (tool,) = spans["execute_tool get_weather"]
    assert tool.parent_span_id == run.span_id and tool.trace_id == run.trace_id
    assert all(chat.parent_span_id == run.span_id for chat in spans["chat m-1"])
    chat_attrs = {a.key: a.value for a in spans["chat m-1"][0].attributes}
    assert chat_attrs["gen_ai.request.model"].string_value == "m-1"
    assert chat_attrs["gen_ai.usage.input_tokens"].int_value == 12
    tool_attrs = {a.key: a.value.string_value for a in tool.attributes}
    assert tool_attrs["gen_ai.tool.call.id"] == "c1"

    names = set()
    for body in receiver.bodies("/v1/metrics"):
        export_m = ExportMetricsServiceRequest()
        export_m.ParseFromString(body)
        for rm in export_m.resource_metrics:
            for sm in rm.scope_metrics:
                for metric in sm.metrics:
                    names.add(metric.name)
                    if metric.name == "gen_ai.client.operation.duration":
                        (point,) = metric.histogram.data_points
                        assert point.count == 2
                        assert list(point.explicit_bounds)[:2] == [0.01, 0.02]
    assert {"gen_ai.client.token.usage", "gen_ai.client.operation.duration"} <= names


def test_unconfigured_and_unsupported_settings_fail_loudly() -> None:
    assert not OtelConfig.from_env({}).is_configured
    with pytest.raises(ObservabilityConfigError, match="No OTLP endpoint configured"):
        OtlpTelemetry(OtelConfig.from_env({}))
    with pytest.raises(ObservabilityConfigError, match="grpc"):
        OtelConfig.from_env({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
    per_signal = OtelConfig.from_env({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://x/v1/traces"})
    assert per_signal.is_configured
