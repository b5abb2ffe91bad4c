"""Structured output through the loop: the final_result tool, native requests, validation
retries with the errors shown to the model, and the exhausted-retry error."""

from __future__ import annotations

from typing import Any

import pytest
from awaken_contract.contract.event import Error, RunFinish, ToolCallDone
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import ToolDescriptor, tool
from awaken_contract.errors import AwakenError
from awaken_contract.output_schema import OutputSchema
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.runtime import AgentRunResult
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.structured import FINAL_RESULT_TOOL, OutputValidator, extract_json
from pydantic import BaseModel, Field


class City(BaseModel):
    """A city and its population."""

    name: str
    population: int = Field(ge=0)


class NativeLlm(ScriptedLlm):
    """A scripted model that claims provider-native structured output."""

    def supports_response_format(self, request: InferenceRequest) -> bool:
        return True


def _final(args: Any, call_id: str = "f1") -> ToolCall:
    return ToolCall(call_id, FINAL_RESULT_TOOL, args)


async def _run(
    llm: ScriptedLlm, spec: AgentSpec, sink: VecEventSink | None = None, tools: Any = ()
) -> AgentRunResult:
    builder = (
        AgentRuntimeBuilder()
        .with_agent_spec(spec.with_model("m"))
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="scripted"))
    )
    for item in tools:
        builder = builder.with_tool(item.descriptor().id, item)
    runtime = builder.build()
    return await runtime.run(
        RunRequest("t", [Message.user("Biggest city in Japan?")]).with_agent_id(spec.id),
        sink,
    )


async def test_final_result_tool_returns_the_pydantic_instance() -> None:
    llm = ScriptedLlm([tool_step([_final({"name": "Tokyo", "population": 14000000})])])
    sink = VecEventSink()
    result = await _run(llm, AgentSpec("a").with_output_schema(City), sink)
    assert result.is_success
    assert result.output == City(name="Tokyo", population=14000000)
    assert isinstance(result.output, City)
    assert result.response == '{"name":"Tokyo","population":14000000}'
    (request,) = llm.requests
    assert request.response_format is None
    final_tool = next(t for t in request.tools if t.id == FINAL_RESULT_TOOL)
    assert final_tool.parameters["required"] == ["name", "population"]
    assert final_tool.parameters["additionalProperties"] is False
    finish = next(e for e in sink.events if isinstance(e, RunFinish))
    assert finish.result is not None
    assert finish.result["output"] == {"name": "Tokyo", "population": 14000000}
    done = [e for e in sink.events if isinstance(e, ToolCallDone)]
    assert [d.id for d in done] == ["f1"] and done[0].result.is_success


async def test_invalid_answer_is_retried_with_the_validation_error() -> None:
    llm = ScriptedLlm(
        [
            tool_step([_final({"name": "Tokyo", "population": -1})]),
            tool_step([_final({"name": "Tokyo", "population": 14}, "f2")]),
        ]
    )
    result = await _run(llm, AgentSpec("a").with_output_schema(City))
    assert result.output == City(name="Tokyo", population=14)
    assert result.steps == 2
    retry = llm.requests[1].messages
    feedback = next(m for m in retry if m.role is Role.TOOL and m.tool_call_id == "f1")
    assert "population" in feedback.text() and "greater than or equal to 0" in feedback.text()


async def test_exhausted_retries_end_the_run_with_a_clear_error() -> None:
    bad = [tool_step([_final({"name": "X"}, f"f{i}")]) for i in range(5)]
    llm = ScriptedLlm(bad)
    sink = VecEventSink()
    result = await _run(llm, AgentSpec("a").with_output_schema(City, max_retries=1), sink)
    assert result.termination.type is TerminationKind.ERROR
    assert len(llm.requests) == 2  # the first answer and one retry
    error = next(e for e in sink.events if isinstance(e, Error))
    assert "structured output invalid after 2 attempt(s)" in error.message
    assert "population: Field required" in error.message
    assert result.output is None


async def test_native_mode_sends_a_response_format_and_parses_the_text() -> None:
    schema = {
        "title": "Answer",
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["tags"],
    }
    llm = NativeLlm([text_step('{"tags": 3}'), text_step('```json\n{"tags": ["a", "b"]}\n```')])
    result = await _run(llm, AgentSpec("a").with_output_schema(schema), VecEventSink())
    assert result.output == {"tags": ["a", "b"]}
    first = llm.requests[0]
    assert first.response_format is not None
    assert first.response_format.name == "Answer"
    assert first.response_format.strict is True  # closed and fully required
    assert all(t.id != FINAL_RESULT_TOOL for t in first.tools)
    hint = llm.requests[1].messages[-1]
    assert hint.is_internal and "tags: 3 is not of type 'array'" in hint.text()
    assert "JSON value only" in hint.text()


async def test_other_tools_run_before_the_final_result() -> None:
    @tool
    def lookup(city: str) -> int:
        """Population of a city."""
        return 14000000

    llm = ScriptedLlm(
        [
            tool_step([ToolCall("c1", "lookup", {"city": "Tokyo"})]),
            tool_step([_final({"name": "Tokyo", "population": 14000000})]),
        ]
    )
    result = await _run(llm, AgentSpec("a").with_output_schema(City), tools=[lookup])
    assert result.output == City(name="Tokyo", population=14000000)
    second = llm.requests[1].messages
    assert any(m.role is Role.TOOL and m.tool_call_id == "c1" for m in second)


async def test_a_plain_text_answer_in_tool_mode_is_sent_back() -> None:
    llm = ScriptedLlm([text_step("Tokyo!"), tool_step([_final({"name": "T", "population": 1})])])
    result = await _run(llm, AgentSpec("a").with_output_schema(City))
    assert result.output == City(name="T", population=1)
    hint = llm.requests[1].messages[-1]
    assert "not JSON" in hint.text() and f"Call the {FINAL_RESULT_TOOL} tool" in hint.text()


async def test_a_non_object_schema_is_wrapped_and_unwrapped() -> None:
    schema = {"type": "array", "items": {"type": "integer"}}
    llm = ScriptedLlm([tool_step([_final({"response": [1, 2, 3]})])])
    result = await _run(llm, AgentSpec("a").with_output_schema(schema))
    assert result.output == [1, 2, 3]
    params = next(t for t in llm.requests[0].tools if t.id == FINAL_RESULT_TOOL).parameters
    assert params["properties"]["response"] == schema


def test_yaml_agent_declares_output_schema() -> None:
    spec = AgentSpec.from_yaml(
        "id: extractor\n"
        "output_schema:\n"
        "  name: city\n"
        "  max_retries: 1\n"
        "  schema: {type: object, properties: {name: {type: string}}, required: [name]}\n"
    )
    assert spec.output_schema is not None
    assert spec.output_schema.name == "city" and spec.output_schema.max_retries == 1
    bare = AgentSpec.from_yaml("id: b\noutput_schema: {type: object}\n")
    assert bare.output_schema is not None and bare.output_schema.json_schema == {"type": "object"}
    again = AgentSpec.from_json(spec.model_dump_json())
    assert again.output_schema == spec.output_schema
    assert spec.model_dump()["output_schema"]["schema"]["required"] == ["name"]


def test_optional_fields_are_not_strict() -> None:
    class Loose(BaseModel):
        name: str
        note: str | None = None

    validator = OutputValidator(OutputSchema.of(Loose))
    assert validator.strict is False
    assert OutputValidator(OutputSchema.of(Loose, strict=True)).strict is True


def test_invalid_schemas_and_names_are_refused() -> None:
    # The JSON Schema itself is checked when the agent resolves (the contract has no
    # jsonschema dependency): build() refuses it, naming the agent.
    spec = AgentSpec("typed").with_model("m").with_output_schema({"type": "no-such-type"})
    builder = AgentRuntimeBuilder().with_agent_spec(spec).with_provider("llm", ScriptedLlm([]))
    builder = builder.with_model("m", ModelSpec(id="m", provider="llm", model="x"))
    with pytest.raises(AwakenError, match="output_schema is an invalid JSON Schema"):
        builder.build()
    with pytest.raises(ValueError, match="name must be"):
        OutputSchema.of({"type": "object"}, name="has space")
    with pytest.raises(TypeError):
        OutputSchema.of(42)  # type: ignore[arg-type]


def test_extract_json_finds_fenced_and_embedded_values() -> None:
    assert extract_json('Here: ```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json('say {"a": [1]} done') == {"a": [1]}
    with pytest.raises(ValueError):
        extract_json("no json")


def test_descriptor_is_tool_shaped() -> None:
    tool_ = OutputValidator(OutputSchema.of(City)).tool()
    assert isinstance(tool_, ToolDescriptor)
    assert "A city and its population." in tool_.description


async def test_final_result_beside_other_calls_ends_the_run_without_them() -> None:
    calls: list[str] = []

    @tool
    def lookup(city: str) -> int:
        """Population of a city."""
        calls.append(city)
        return 1

    llm = ScriptedLlm(
        [
            tool_step(
                [
                    ToolCall("c1", "lookup", {"city": "Tokyo"}),
                    _final({"name": "T", "population": 2}),
                ]
            )
        ]
    )
    result = await _run(llm, AgentSpec("a").with_output_schema(City), tools=[lookup])
    assert result.output == City(name="T", population=2) and calls == []
    assert len(llm.requests) == 1
