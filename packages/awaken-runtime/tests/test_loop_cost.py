"""Cost: each inference's cost from ModelSpec pricing, cumulative on the RunRecord."""

from __future__ import annotations

import pytest
from awaken_contract.contract.content import ContentBlock
from awaken_contract.contract.event import InferenceComplete
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.inference import StopReason, StreamResult, TokenUsage
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import tool
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm
from awaken_stores import InMemoryStore


@tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def step(usage: TokenUsage, *, call: bool) -> StreamResult:
    if call:
        return StreamResult(
            tool_calls=[ToolCall("c1", "ping", {})], usage=usage, stop_reason=StopReason.TOOL_USE
        )
    return StreamResult(
        content=[ContentBlock.text("done")], usage=usage, stop_reason=StopReason.END_TURN
    )


async def test_inference_cost_is_reported_and_accumulated_on_the_run_record() -> None:
    store = InMemoryStore()
    llm = ScriptedLlm(
        [
            step(TokenUsage(prompt_tokens=1_000, completion_tokens=100), call=True),
            step(
                TokenUsage(prompt_tokens=2_000, completion_tokens=200, cache_read_tokens=1_000),
                call=False,
            ),
        ]
    )
    model = ModelSpec(
        id="m",
        provider="p",
        model="priced-1",
        input_price_per_mtok=3.0,
        output_price_per_mtok=15.0,
        cache_read_price_per_mtok=0.3,
    )
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m"))
        .with_tool("ping", ping)
        .with_provider("p", llm)
        .with_model("m", model)
        .with_thread_run_store(store)
        .build()
    )
    sink = VecEventSink()
    result = await runtime.run(RunRequest("t1", [Message.user("go")]).with_agent_id("a"), sink)
    costs = [e.cost for e in sink.take() if isinstance(e, InferenceComplete)]
    first = (1_000 * 3.0 + 100 * 15.0) / 1e6
    second = (1_000 * 3.0 + 1_000 * 0.3 + 200 * 15.0) / 1e6
    assert costs == [pytest.approx(first), pytest.approx(second)]
    record = await store.load_run(result.run_id)
    assert record is not None
    assert record.cost == pytest.approx(first + second)
    assert (record.input_tokens, record.output_tokens) == (3_000, 300)


async def test_unpriced_models_report_no_cost() -> None:
    store = InMemoryStore()
    llm = ScriptedLlm([step(TokenUsage(prompt_tokens=10, completion_tokens=1), call=False)])
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m"))
        .with_provider("p", llm)
        .with_model("m", ModelSpec(id="m", provider="p", model="free"))
        .with_thread_run_store(store)
        .build()
    )
    sink = VecEventSink()
    result = await runtime.run(RunRequest("t1", [Message.user("go")]).with_agent_id("a"), sink)
    assert [e.cost for e in sink.take() if isinstance(e, InferenceComplete)] == [None]
    record = await store.load_run(result.run_id)
    assert record is not None and record.cost is None
