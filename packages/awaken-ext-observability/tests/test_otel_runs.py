"""OtelSink over real runs: span names, attributes, parent/child structure and GenAI metric
points for a text run, a tool run, a failing tool and a failed inference."""

from __future__ import annotations

from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.message import ToolCall
from awaken_ext_observability.otel import DURATION_BUCKETS, TOKEN_BUCKETS
from opentelemetry.trace import SpanKind, StatusCode

from .support import Otel, ScriptedLlm, Unreachable, calls, request, runtime, text


async def test_text_run_has_an_agent_span_with_one_chat_child(otel: Otel) -> None:
    result = await runtime(ScriptedLlm([text("Hello!")]), otel.sink).run(request())
    assert result.response == "Hello!"
    assert sorted(s.name for s in otel.spans()) == ["chat m-1", "invoke_agent a"]
    run, chat = otel.span("invoke_agent a"), otel.span("chat m-1")
    assert run.parent is None and run.kind is SpanKind.INTERNAL
    assert run.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert run.attributes["gen_ai.agent.id"] == "a"
    assert run.attributes["gen_ai.conversation.id"] == "t1"
    assert run.attributes["awaken.run.id"] == result.run_id
    assert run.attributes["awaken.run.status"] == "finished"
    assert run.attributes["gen_ai.usage.input_tokens"] == 12
    assert run.status.status_code is StatusCode.UNSET

    assert chat.kind is SpanKind.CLIENT
    assert chat.parent is not None and chat.parent.span_id == run.context.span_id
    assert chat.context.trace_id == run.context.trace_id
    attrs = chat.attributes
    assert attrs["gen_ai.operation.name"] == "chat"
    assert attrs["gen_ai.provider.name"] == "llm"
    assert attrs["gen_ai.request.model"] == "m-1"
    assert attrs["gen_ai.response.model"] == "m-1"
    assert attrs["gen_ai.usage.input_tokens"] == 12
    assert attrs["gen_ai.usage.output_tokens"] == 5
    assert tuple(attrs["gen_ai.response.finish_reasons"]) == ("stop",)
    assert "error.type" not in attrs
    # content capture is off by default
    assert "gen_ai.input.messages" not in attrs and "gen_ai.output.messages" not in attrs
    assert chat.start_time >= run.start_time and chat.end_time <= run.end_time

    tokens = otel.points("gen_ai.client.token.usage")
    by_type = {p.attributes["gen_ai.token.type"]: p for p in tokens}
    assert set(by_type) == {"input", "output"}
    assert (by_type["input"].sum, by_type["output"].sum) == (12, 5)
    assert tuple(by_type["input"].explicit_bounds) == TOKEN_BUCKETS
    assert by_type["input"].attributes["gen_ai.request.model"] == "m-1"
    assert by_type["input"].attributes["gen_ai.provider.name"] == "llm"
    (duration,) = otel.points("gen_ai.client.operation.duration")
    assert duration.count == 1 and tuple(duration.explicit_bounds) == DURATION_BUCKETS
    assert duration.attributes["gen_ai.operation.name"] == "chat"


async def test_tool_run_puts_tool_and_both_inferences_under_the_run(otel: Otel) -> None:
    llm = ScriptedLlm([calls(ToolCall("c1", "get_weather", {"city": "Tokyo"})), text("Sunny.")])
    await runtime(llm, otel.sink).run(request())
    run = otel.span("invoke_agent a")
    chats = [s for s in otel.spans() if s.name == "chat m-1"]
    tool = otel.span("execute_tool get_weather")
    assert len(chats) == 2
    for child in [*chats, tool]:
        assert child.parent is not None and child.parent.span_id == run.context.span_id
    assert tool.kind is SpanKind.INTERNAL
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool.attributes["gen_ai.tool.name"] == "get_weather"
    assert tool.attributes["gen_ai.tool.call.id"] == "c1"
    assert tool.attributes["gen_ai.tool.type"] == "function"
    assert "gen_ai.tool.call.arguments" not in tool.attributes
    assert tool.status.status_code is StatusCode.UNSET
    assert [tuple(c.attributes["gen_ai.response.finish_reasons"]) for c in chats] == [
        ("tool_calls",),
        ("stop",),
    ]
    # the tool ran between the two inferences
    first, second = sorted(chats, key=lambda s: s.start_time)
    assert first.end_time <= tool.start_time and tool.end_time <= second.start_time
    (duration,) = otel.points("gen_ai.client.operation.duration")
    assert duration.count == 2
    assert run.attributes["awaken.run.tool_count"] == 1


async def test_failing_tool_is_an_error_span(otel: Otel) -> None:
    llm = ScriptedLlm([calls(ToolCall("c1", "get_weather", {"city": "Atlantis"})), text("Sorry.")])
    result = await runtime(llm, otel.sink).run(request())
    assert result.termination.type is TerminationKind.NATURAL_END
    tool = otel.span("execute_tool get_weather")
    assert tool.status.status_code is StatusCode.ERROR
    assert tool.attributes["error.type"] == "tool_error"
    assert tool.attributes["error.message"] == "no such city"
    run = otel.span("invoke_agent a")
    assert run.attributes["awaken.run.tool_failures"] == 1
    assert run.status.status_code is StatusCode.UNSET  # the run itself recovered


async def test_failed_inference_ends_its_span_with_the_error(otel: Otel) -> None:
    result = await runtime(Unreachable(), otel.sink).run(request())
    assert result.termination.type is TerminationKind.ERROR
    chat, run = otel.span("chat m-1"), otel.span("invoke_agent a")
    assert chat.status.status_code is StatusCode.ERROR
    assert chat.attributes["error.type"] == "ProviderError"
    assert "connection refused" in str(chat.attributes["error.message"])
    assert "gen_ai.usage.input_tokens" not in chat.attributes
    assert chat.parent is not None and chat.parent.span_id == run.context.span_id
    assert run.status.status_code is StatusCode.ERROR
    assert run.attributes["error.type"] == "ProviderError"
    assert run.attributes["awaken.run.status"] == "error"
    (duration,) = otel.points("gen_ai.client.operation.duration")
    assert duration.attributes["error.type"] == "ProviderError"
    assert otel.points("gen_ai.client.token.usage") == []


async def test_content_capture_is_opt_in(otel: Otel) -> None:
    llm = ScriptedLlm([calls(ToolCall("c1", "get_weather", {"city": "Tokyo"})), text("Sunny.")])
    await runtime(llm, otel.sink, capture_content=True).run(request("weather?"))
    first = min((s for s in otel.spans() if s.name == "chat m-1"), key=lambda s: s.start_time)
    assert '"weather?"' in str(first.attributes["gen_ai.input.messages"])
    assert "get_weather" in str(first.attributes["gen_ai.output.messages"])
    tool = otel.span("execute_tool get_weather")
    assert tool.attributes["gen_ai.tool.call.arguments"] == '{"city": "Tokyo"}'
    assert "sunny in Tokyo" in str(tool.attributes["gen_ai.tool.call.result"])
