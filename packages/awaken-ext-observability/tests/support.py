"""Test support: OTel SDK providers with in-memory exporters, and agent builders."""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StopReason, StreamResult, TokenUsage
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.errors import ProviderError
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_ext_observability import MetricsSink, ObservabilityPlugin
from awaken_ext_observability.otel import OtelSink
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

USAGE = TokenUsage(prompt_tokens=12, completion_tokens=5, total_tokens=17)


class Otel:
    """A tracer provider and a meter provider that keep what they export in memory."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self.sink = OtelSink(
            self.tracer_provider.get_tracer("awaken"), self.meter_provider.get_meter("awaken")
        )

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def span(self, name: str) -> ReadableSpan:
        found = [s for s in self.spans() if s.name == name]
        assert len(found) == 1, f"expected one span {name!r}, got {[s.name for s in self.spans()]}"
        return found[0]

    def points(self, metric: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        assert data is not None, "no metrics collected"
        return [
            point
            for rm in data.resource_metrics
            for sm in rm.scope_metrics
            for m in sm.metrics
            if m.name == metric
            for point in m.data.data_points
        ]


def text(value: str) -> StreamResult:
    return StreamResult(
        content=[Message.assistant(value).content[0]],
        usage=USAGE,
        stop_reason=StopReason.END_TURN,
    )


def calls(*tool_calls: ToolCall) -> StreamResult:
    return StreamResult(tool_calls=list(tool_calls), usage=USAGE, stop_reason=StopReason.TOOL_USE)


class Weather(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("get_weather", "Get Weather", "Weather for a city")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        if args.get("city") == "Atlantis":
            return ToolResult.error("get_weather", "no such city")
        return ToolResult.success("get_weather", {"forecast": f"sunny in {args['city']}"})


class Unreachable(LlmExecutor):
    async def execute(self, request: InferenceRequest) -> StreamResult:
        raise ProviderError("connection refused")

    def name(self) -> str:
        return "unreachable"


def runtime(
    llm: LlmExecutor | dict[str, LlmExecutor],
    sink: MetricsSink,
    *,
    plugins: dict[str, Any] | None = None,
    specs: list[AgentSpec] | None = None,
    store: Any = None,
    capture_content: bool = False,
    tools: dict[str, Tool] | None = None,
) -> Any:
    """Agent ``a`` (model ``m`` → upstream ``m-1`` at provider ``llm``) with the plugin on."""
    plugin = ObservabilityPlugin(sink, capture_content=capture_content)
    llms = llm if isinstance(llm, dict) else {"a": llm}
    builder = AgentRuntimeBuilder().with_tool("get_weather", Weather())
    for tool_id, tool in (tools or {}).items():
        builder = builder.with_tool(tool_id, tool)
    for agent_id, executor in llms.items():
        model = "m" if agent_id == "a" else f"m-{agent_id}"
        upstream = "m-1" if agent_id == "a" else f"{agent_id}-1"
        builder = builder.with_provider(f"llm-{agent_id}" if agent_id != "a" else "llm", executor)
        builder = builder.with_model(
            model,
            ModelSpec(
                id=model, provider="llm" if agent_id == "a" else f"llm-{agent_id}", model=upstream
            ),
        )
    for spec in specs or [AgentSpec("a").with_model("m")]:
        builder = builder.with_agent_spec(spec.with_hook_filter("observability"))
    builder = builder.with_plugin("observability", plugin)
    for plugin_id, extra in (plugins or {}).items():
        builder = builder.with_plugin(plugin_id, extra)
    if store is not None:
        builder = builder.with_thread_run_store(store)
    return builder.build()


def request(prompt: str = "hi", thread: str = "t1", agent: str = "a") -> RunRequest:
    return RunRequest(thread, [Message.user(prompt)]).with_agent_id(agent)


__all__ = ["USAGE", "Otel", "ScriptedLlm", "Unreachable", "calls", "request", "runtime", "text"]
