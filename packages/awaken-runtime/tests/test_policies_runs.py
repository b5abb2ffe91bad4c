"""Stop policies inside real runs: event order, ``RunFinish`` termination and what ran."""

from typing import Any

import msgspec
import pytest
from awaken_contract.contract.event import AgentEvent, RunFinish, StateSnapshot
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.executor import LlmExecutor
from awaken_contract.contract.inference import StreamResult, TokenUsage
from awaken_contract.contract.lifecycle import (
    ContentMatch,
    LoopDetection,
    StopOnTool,
    TerminationReason,
)
from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.plugin import Plugin
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.policies import (
    ConsecutiveErrorsPolicy,
    MaxCostPolicy,
    MaxRoundsPlugin,
    MaxRoundsPolicy,
    StopConditionPlugin,
    StopConditionStatsKey,
    TimeoutPolicy,
    TokenBudgetPolicy,
)
from awaken_stores import InMemoryStore


class Echo(Tool):
    def __init__(self) -> None:
        self.calls = 0

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("echo", "echo", "Echo text")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.calls += 1
        return ToolResult.success("echo", {"echoed": args.get("text")})


class Broken(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("broken", "broken", "Always fails")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.error("broken", "disk on fire")


class Finish(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("finish", "finish", "Report the final answer")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("finish", {"answer": args.get("answer")})


def echo_call(i: int, text: str = "x") -> StreamResult:
    return tool_step([ToolCall(f"c{i}", "echo", {"text": text})])


def with_usage(result: StreamResult, prompt: int, completion: int) -> StreamResult:
    result.usage = TokenUsage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )
    return result


def build(
    llm: LlmExecutor,
    plugins: dict[str, Plugin] | None = None,
    *,
    max_rounds: int = 16,
    store: InMemoryStore | None = None,
    model: ModelSpec | None = None,
) -> Any:
    spec = AgentSpec("a").with_model("m").with_system_prompt("sys").with_max_rounds(max_rounds)
    builder = (
        AgentRuntimeBuilder()
        .with_tool("echo", Echo())
        .with_tool("broken", Broken())
        .with_tool("finish", Finish())
        .with_provider("llm", llm)
        .with_model("m", model or ModelSpec(id="m", provider="llm", model="model-1"))
    )
    for plugin_id, plugin in (plugins or {}).items():
        builder = builder.with_plugin(plugin_id, plugin)
        spec = spec.with_plugin(plugin_id)
    if store is not None:
        builder = builder.with_thread_run_store(store)
    return builder.with_agent_spec(spec).build()


async def run(runtime: Any, thread: str = "t") -> tuple[Any, list[AgentEvent]]:
    sink = VecEventSink()
    result = await runtime.run(RunRequest(thread, [Message.user("go")]).with_agent_id("a"), sink)
    return result, sink.take()


def names(events: list[AgentEvent]) -> list[str]:
    return [type(e).__name__ for e in events]


def stats_of(events: list[AgentEvent]) -> dict[str, Any]:
    snapshot = [e for e in events if isinstance(e, StateSnapshot)][-1].snapshot
    extensions = snapshot.extensions if hasattr(snapshot, "extensions") else snapshot["extensions"]
    return extensions[StopConditionStatsKey.KEY]  # type: ignore[no-any-return]


def assert_well_formed(events: list[AgentEvent]) -> None:
    seq = names(events)
    assert seq[0] == "RunStart" and seq[-1] == "RunFinish"
    assert seq[-2] == "StateSnapshot"
    steps = [n for n in seq if n in ("StepStart", "StepEnd")]
    assert steps == ["StepStart", "StepEnd"] * (len(steps) // 2)


async def test_stop_condition_max_rounds_stops_after_the_rounds_and_keeps_detail() -> None:
    llm = ScriptedLlm([echo_call(i) for i in range(10)])
    runtime = build(llm, {"stop-condition": StopConditionPlugin([MaxRoundsPolicy(2)])})
    result, events = await run(runtime)
    assert result.termination == TerminationReason.stopped("max_rounds", "exceeded 2 rounds")
    assert len(llm.requests) == 2  # no third inference is paid for
    assert_well_formed(events)
    seq = names(events)
    assert seq.count("StepStart") == 2 and seq.count("ToolCallDone") == 2
    finish = events[-1]
    assert isinstance(finish, RunFinish)
    assert finish.termination == TerminationReason.stopped("max_rounds", "exceeded 2 rounds")
    assert finish.result is not None and finish.result["status_reason"] == "stopped:max_rounds"


async def test_agent_max_rounds_stops_the_run() -> None:
    llm = ScriptedLlm([echo_call(i) for i in range(10)])
    result, events = await run(build(llm, max_rounds=3))
    assert result.termination.type == "stopped"
    assert result.termination.stopped_reason is not None
    assert result.termination == TerminationReason.stopped("max_rounds", "exceeded 3 rounds")
    assert len(llm.requests) == 3
    assert_well_formed(events)


async def test_max_rounds_plugin_registered_explicitly() -> None:
    llm = ScriptedLlm([echo_call(i) for i in range(10)])
    runtime = build(llm, {"stop-condition:max-rounds": MaxRoundsPlugin(1)})
    result, events = await run(runtime)
    assert result.termination == TerminationReason.stopped("max_rounds", "exceeded 1 rounds")
    assert len(llm.requests) == 1
    assert_well_formed(events)


async def test_token_budget_stops_when_usage_exceeds_budget() -> None:
    llm = ScriptedLlm([with_usage(echo_call(i), 40, 20) for i in range(10)])
    runtime = build(llm, {"stop-condition": StopConditionPlugin([TokenBudgetPolicy(150)])})
    result, events = await run(runtime)
    stopped = result.termination.stopped_reason
    assert stopped is not None and stopped.code == "token_budget"
    assert stopped.detail is not None and "180" in stopped.detail
    assert len(llm.requests) == 3  # 60, 120, 180 > 150
    assert stats_of(events)["total_input_tokens"] == 120
    assert stats_of(events)["step_count"] == 3


PRICED = ModelSpec(
    id="m", provider="llm", model="model-1", input_price_per_mtok=1.0, output_price_per_mtok=2.0
)


async def test_max_cost_stops_once_the_inferences_cost_more_than_the_budget() -> None:
    # every inference: 400k prompt tokens ($0.40) + 100k completion tokens ($0.20) = $0.60
    llm = ScriptedLlm([with_usage(echo_call(i), 400_000, 100_000) for i in range(10)])
    plugin = StopConditionPlugin([MaxCostPolicy(1.0)])
    result, events = await run(build(llm, {"stop-condition": plugin}, model=PRICED))
    assert result.termination == TerminationReason.stopped("max_cost", "cost 1.2, budget 1")
    assert len(llm.requests) == 2  # $0.60, $1.20 > $1.00: no third inference is paid for
    assert stats_of(events)["total_cost"] == pytest.approx(1.2)
    assert_well_formed(events)


async def test_max_cost_from_the_stop_conditions_section() -> None:
    llm = ScriptedLlm([with_usage(echo_call(i), 400_000, 100_000) for i in range(10)])
    plugin = StopConditionPlugin.from_specs(msgspec_specs('[{"type":"max_cost","max_total":1.5}]'))
    result, _ = await run(build(llm, {"stop-condition": plugin}, model=PRICED))
    stopped = result.termination.stopped_reason
    assert stopped is not None and stopped.code == "max_cost"
    assert len(llm.requests) == 3  # $1.80 > $1.50


async def test_max_cost_ignores_models_without_prices() -> None:
    steps = [with_usage(echo_call(i), 400_000, 100_000) for i in range(3)]
    llm = ScriptedLlm([*steps, text_step("done")])
    plugin = StopConditionPlugin([MaxCostPolicy(0.01)])
    result, _ = await run(build(llm, {"stop-condition": plugin}))
    assert result.termination == TerminationReason.natural_end()


async def test_timeout_uses_the_plugin_clock() -> None:
    now = [1_000_000]

    def clock() -> int:
        now[0] += 400  # every reading advances the fake clock by 400 ms
        return now[0]

    llm = ScriptedLlm([echo_call(i) for i in range(10)])
    plugin = StopConditionPlugin([TimeoutPolicy(1000)], clock=clock)
    result, _ = await run(build(llm, {"stop-condition": plugin}))
    stopped = result.termination.stopped_reason
    assert stopped is not None and stopped.code == "timeout"
    assert 1 < len(llm.requests) < 10


async def test_consecutive_errors_counts_rounds_whose_tools_all_failed() -> None:
    broken = tool_step([ToolCall("b1", "broken", {})])
    mixed = tool_step([ToolCall("b2", "broken", {}), ToolCall("e1", "echo", {"text": "y"})])
    llm = ScriptedLlm(
        [
            broken,
            mixed,  # resets the count
            tool_step([ToolCall("b3", "broken", {})]),
            tool_step([ToolCall("b4", "broken", {})]),
            echo_call(99),
        ]
    )
    plugin = StopConditionPlugin([ConsecutiveErrorsPolicy(2)])
    result, events = await run(build(llm, {"stop-condition": plugin}))
    stopped = result.termination.stopped_reason
    assert stopped is not None and stopped.code == "consecutive_errors"
    assert len(llm.requests) == 4
    assert stats_of(events)["consecutive_errors"] == 2


async def test_stop_on_tool_stops_after_the_tool_ran() -> None:
    llm = ScriptedLlm(
        [
            echo_call(1),
            tool_step([ToolCall("f1", "finish", {"answer": "42"})], text="Finishing."),
            echo_call(2),
        ]
    )
    plugin = StopConditionPlugin.from_specs([StopOnTool(tool_name="finish")])
    store = InMemoryStore()
    result, _ = await run(build(llm, {"stop-condition": plugin}, store=store))
    assert result.termination.stopped_reason is not None
    assert result.termination.stopped_reason.code == "stop_on_tool"
    assert len(llm.requests) == 2
    assert result.response == "Finishing."
    history = await store.load_messages("t")
    assert history is not None
    tool_messages = [m for m in history if m.role is Role.TOOL]
    assert [m.tool_call_id for m in tool_messages] == ["c1", "f1"]
    assert "42" in tool_messages[-1].text()


async def test_content_match_stops_on_matching_text_with_tool_calls() -> None:
    llm = ScriptedLlm(
        [
            echo_call(1),
            tool_step([ToolCall("c2", "echo", {"text": "z"})], text="All DONE here"),
            echo_call(3),
        ]
    )
    plugin = StopConditionPlugin.from_specs([ContentMatch(pattern="(?i)all done")])
    result, events = await run(build(llm, {"stop-condition": plugin}))
    stopped = result.termination.stopped_reason
    assert stopped is not None and stopped.code == "content_match"
    assert len(llm.requests) == 2
    assert_well_formed(events)


async def test_a_natural_answer_is_never_turned_into_a_stop() -> None:
    llm = ScriptedLlm([echo_call(1), text_step("Task complete.")])
    plugin = StopConditionPlugin.from_specs([ContentMatch(pattern="complete")])
    result, events = await run(build(llm, {"stop-condition": plugin}, max_rounds=2))
    assert result.termination == TerminationReason.natural_end()
    assert result.response == "Task complete."
    finish = events[-1]
    assert isinstance(finish, RunFinish) and finish.result is not None
    assert finish.result["status_reason"] == "natural"


async def test_loop_detection_stops_on_repeated_tool_calls() -> None:
    llm = ScriptedLlm(
        [
            tool_step([ToolCall("c1", "echo", {"text": "a"})]),
            tool_step([ToolCall("c2", "echo", {"text": "b"})]),
            tool_step([ToolCall("c3", "echo", {"text": "a"})]),  # repeats round 1
            echo_call(4),
        ]
    )
    plugin = StopConditionPlugin.from_specs([LoopDetection(window=2)])
    result, _ = await run(build(llm, {"stop-condition": plugin}))
    stopped = result.termination.stopped_reason
    assert stopped is not None and stopped.code == "loop_detection"
    assert stopped.detail is not None and "2 round(s) earlier" in stopped.detail
    assert len(llm.requests) == 3


async def test_zero_limits_disable_every_policy() -> None:
    llm = ScriptedLlm([with_usage(echo_call(i), 1000, 1000) for i in range(4)] + [text_step("ok")])
    plugin = StopConditionPlugin.from_specs(
        msgspec_specs(
            '[{"type":"max_rounds","rounds":0},{"type":"timeout","seconds":0},'
            '{"type":"token_budget","max_total":0},{"type":"consecutive_errors","max":0},'
            '{"type":"stop_on_tool","tool_name":""},{"type":"content_match","pattern":""},'
            '{"type":"loop_detection","window":0}]'
        )
    )
    result, _ = await run(build(llm, {"stop-condition": plugin}))
    assert result.termination == TerminationReason.natural_end()
    assert result.response == "ok"


async def test_two_stop_plugins_count_each_round_once() -> None:
    llm = ScriptedLlm([with_usage(echo_call(i), 10, 10) for i in range(10)])
    plugins: dict[str, Plugin] = {
        "stop-condition": StopConditionPlugin([TokenBudgetPolicy(1000)]),
        "stop-condition:max-rounds": MaxRoundsPlugin(3),
    }
    result, events = await run(build(llm, plugins))
    assert result.termination == TerminationReason.stopped("max_rounds", "exceeded 3 rounds")
    stats = stats_of(events)
    assert stats["step_count"] == 3 and stats["total_input_tokens"] == 30
    assert stats["stopped"] == {"code": "max_rounds", "detail": "exceeded 3 rounds"}


async def test_first_policy_in_order_wins() -> None:
    llm = ScriptedLlm([with_usage(echo_call(i), 100, 100) for i in range(10)])
    plugin = StopConditionPlugin([TokenBudgetPolicy(10), MaxRoundsPolicy(1)])
    result, _ = await run(build(llm, {"stop-condition": plugin}))
    assert result.termination.stopped_reason is not None
    assert result.termination.stopped_reason.code == "token_budget"


def msgspec_specs(raw: str) -> list[Any]:
    import msgspec
    from awaken_contract.contract.lifecycle import AnyStopConditionSpec

    return msgspec.json.decode(raw, type=list[AnyStopConditionSpec])


async def test_stopped_run_exact_event_order() -> None:
    llm = ScriptedLlm([echo_call(i) for i in range(5)])
    runtime = build(llm, {"stop-condition:max-rounds": MaxRoundsPlugin(1)})
    _, events = await run(runtime)
    assert names(events) == [
        "RunStart",
        "StepStart",
        "ToolCallStart",
        "ToolCallDelta",
        "ToolCallReady",
        "InferenceComplete",
        "ToolCallDone",
        "StateSnapshot",
        "StepEnd",
        "StateSnapshot",
        "RunFinish",
    ]
    finish = events[-1]
    assert isinstance(finish, RunFinish)
    assert msgspec.to_builtins(finish.termination) == {
        "type": "stopped",
        "value": {"code": "max_rounds", "detail": "exceeded 1 rounds"},
    }


async def test_stop_conditions_declared_in_the_agent_spec_section() -> None:
    spec = AgentSpec.from_json(
        """{"id": "a", "model_id": "m", "system_prompt": "sys",
            "plugin_ids": ["stop-condition"],
            "sections": {"stop_conditions": [{"type": "stop_on_tool", "tool_name": "finish"},
                                             {"type": "max_rounds", "rounds": 5}]}}"""
    )
    llm = ScriptedLlm([echo_call(1), tool_step([ToolCall("f", "finish", {})]), echo_call(2)])
    runtime = (
        AgentRuntimeBuilder()
        .with_tool("echo", Echo())
        .with_tool("finish", Finish())
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="model-1"))
        .with_plugin("stop-condition", StopConditionPlugin())
        .with_agent_spec(spec)
        .build()
    )
    result, _ = await run(runtime)
    assert result.termination.stopped_reason is not None
    assert result.termination.stopped_reason.code == "stop_on_tool"
    assert len(llm.requests) == 2


def test_an_invalid_stop_conditions_section_fails_at_build() -> None:
    import pytest
    from awaken_contract.errors import ValidationFailed

    spec = AgentSpec("a", model="m", plugin_ids=["stop-condition"]).with_section(
        "stop_conditions", [{"type": "timeout", "seconds": "soon"}]
    )
    builder = (
        AgentRuntimeBuilder()
        .with_provider("llm", ScriptedLlm([]))
        .with_model("m", ModelSpec(id="m", provider="llm", model="model-1"))
        .with_plugin("stop-condition", StopConditionPlugin())
        .with_agent_spec(spec)
    )
    with pytest.raises(ValidationFailed, match="stop_conditions"):
        builder.build()
