"""Unit tests of the stop policies, ``policies_from_specs`` and the stats reducer."""

import msgspec
import pytest
from awaken_contract.contract.lifecycle import AnyStopConditionSpec
from awaken_contract.contract.message import ToolCall
from awaken_runtime.policies import (
    ConsecutiveErrorsPolicy,
    ContentMatchPolicy,
    LoopDetectionPolicy,
    MaxRoundsPolicy,
    StopConditionStatsKey,
    StopDecision,
    StopOnToolPolicy,
    StopPolicy,
    StopPolicyStats,
    TimeoutPolicy,
    TokenBudgetPolicy,
    policies_from_specs,
    tool_round_signature,
)
from awaken_runtime.policies.state import (
    RecordInference,
    RecordStepOutcome,
    RecordStop,
    StartClock,
    StopConditionStats,
)


def test_decisions() -> None:
    assert not StopDecision.CONTINUE.is_stop
    assert StopDecision.continue_() is StopDecision.CONTINUE
    stop = StopDecision.stop("x", "why")
    assert stop.is_stop and stop.code == "x" and stop.detail == "why"
    with pytest.raises(ValueError):
        StopDecision.stop("")


def test_max_rounds() -> None:
    policy = MaxRoundsPolicy(3)
    assert policy.id() == "max_rounds"
    assert not policy.evaluate(StopPolicyStats(step_count=2)).is_stop
    decision = policy.evaluate(StopPolicyStats(step_count=3))
    assert decision.code == "max_rounds" and decision.detail == "exceeded 3 rounds"
    assert not MaxRoundsPolicy(0).evaluate(StopPolicyStats(step_count=1000)).is_stop


def test_token_budget() -> None:
    policy = TokenBudgetPolicy(100)
    within = StopPolicyStats(total_input_tokens=60, total_output_tokens=40)
    assert not policy.evaluate(within).is_stop
    decision = policy.evaluate(StopPolicyStats(total_input_tokens=60, total_output_tokens=41))
    assert decision.code == "token_budget" and "101" in decision.detail
    assert not TokenBudgetPolicy(0).evaluate(StopPolicyStats(total_input_tokens=10**9)).is_stop


def test_timeout() -> None:
    policy = TimeoutPolicy(1000)
    assert not policy.evaluate(StopPolicyStats(elapsed_ms=1000)).is_stop
    assert policy.evaluate(StopPolicyStats(elapsed_ms=1001)).code == "timeout"
    assert not TimeoutPolicy(0).evaluate(StopPolicyStats(elapsed_ms=10**9)).is_stop


def test_consecutive_errors() -> None:
    policy = ConsecutiveErrorsPolicy(2)
    assert not policy.evaluate(StopPolicyStats(consecutive_errors=1)).is_stop
    assert policy.evaluate(StopPolicyStats(consecutive_errors=2)).code == "consecutive_errors"
    assert not ConsecutiveErrorsPolicy(0).evaluate(StopPolicyStats(consecutive_errors=9)).is_stop


def test_stop_on_tool() -> None:
    policy = StopOnToolPolicy("finish")
    assert not policy.evaluate(StopPolicyStats(last_tool_names=("search",))).is_stop
    decision = policy.evaluate(StopPolicyStats(last_tool_names=("search", "finish")))
    assert decision.code == "stop_on_tool" and "finish" in decision.detail
    assert not StopOnToolPolicy("").evaluate(StopPolicyStats(last_tool_names=("",))).is_stop


def test_content_match() -> None:
    policy = ContentMatchPolicy("(?i)task complete")
    assert not policy.evaluate(StopPolicyStats(last_response_text="working on it")).is_stop
    decision = policy.evaluate(StopPolicyStats(last_response_text="OK. Task Complete!"))
    assert decision.code == "content_match" and "Task Complete" in decision.detail
    assert not ContentMatchPolicy("").evaluate(StopPolicyStats(last_response_text="x")).is_stop
    with pytest.raises(ValueError, match="invalid content_match pattern"):
        ContentMatchPolicy("(unclosed")


def test_loop_detection() -> None:
    a, b = tool_round_signature([ToolCall("1", "s", {"q": 1})]), "other"
    policy = LoopDetectionPolicy(2)
    names = ("s",)
    assert not policy.evaluate(StopPolicyStats(tool_rounds=(a,), last_tool_names=names)).is_stop
    assert policy.evaluate(StopPolicyStats(tool_rounds=(a, a), last_tool_names=names)).is_stop
    assert policy.evaluate(StopPolicyStats(tool_rounds=(a, b, a), last_tool_names=names)).is_stop
    # outside the window
    assert not policy.evaluate(
        StopPolicyStats(tool_rounds=(a, b, b, a), last_tool_names=names)
    ).is_stop
    # the current step called no tools
    assert not policy.evaluate(StopPolicyStats(tool_rounds=(a, a), last_tool_names=())).is_stop
    assert (
        not LoopDetectionPolicy(0)
        .evaluate(StopPolicyStats(tool_rounds=(a, a), last_tool_names=names))
        .is_stop
    )


def test_round_signature_ignores_call_ids_and_order() -> None:
    one = [ToolCall("1", "a", {"x": 1, "y": 2}), ToolCall("2", "b", {})]
    two = [ToolCall("9", "b", {}), ToolCall("8", "a", {"y": 2, "x": 1})]
    assert tool_round_signature(one) == tool_round_signature(two)
    assert tool_round_signature(one) != tool_round_signature([ToolCall("1", "a", {"x": 2})])


def test_policies_from_specs_covers_all_seven_variants() -> None:
    raw = (
        b'[{"type":"max_rounds","rounds":10},{"type":"timeout","seconds":300},'
        b'{"type":"token_budget","max_total":50000},{"type":"consecutive_errors","max":3},'
        b'{"type":"stop_on_tool","tool_name":"finish"},'
        b'{"type":"content_match","pattern":"(?i)complete"},'
        b'{"type":"loop_detection","window":4}]'
    )
    specs = msgspec.json.decode(raw, type=list[AnyStopConditionSpec])
    policies = policies_from_specs(specs)
    assert [type(p) for p in policies] == [
        MaxRoundsPolicy,
        TimeoutPolicy,
        TokenBudgetPolicy,
        ConsecutiveErrorsPolicy,
        StopOnToolPolicy,
        ContentMatchPolicy,
        LoopDetectionPolicy,
    ]
    assert [p.id() for p in policies] == [
        "max_rounds",
        "timeout",
        "token_budget",
        "consecutive_errors",
        "stop_on_tool",
        "content_match",
        "loop_detection",
    ]
    timeout = policies[1]
    assert isinstance(timeout, TimeoutPolicy) and timeout.max_ms == 300_000


def test_custom_policy() -> None:
    class MyCustomPolicy(StopPolicy):
        def __init__(self, threshold: int) -> None:
            self.threshold = threshold

        def id(self) -> str:
            return "my_custom"

        def evaluate(self, stats: StopPolicyStats) -> StopDecision:
            if stats.total_output_tokens > self.threshold:
                return StopDecision.stop("my_custom", f"output {stats.total_output_tokens}")
            return StopDecision.CONTINUE

    assert MyCustomPolicy(5).evaluate(StopPolicyStats(total_output_tokens=6)).code == "my_custom"
    assert "my_custom" in repr(MyCustomPolicy(5))


def _record(step: int, tokens: int = 1) -> RecordInference:
    return RecordInference(step, tokens, tokens, "t", ["x"], "sig", at_ms=50)


def test_stats_updates_are_idempotent_per_step() -> None:
    key = StopConditionStatsKey
    stats = key.apply(StopConditionStats(), StartClock(10))
    stats = key.apply(stats, StartClock(99))
    assert stats.start_time_ms == 10
    stats = key.apply(stats, _record(1, 5))
    stats = key.apply(stats, _record(1, 5))
    assert stats.step_count == 1 and stats.total_input_tokens == 5
    stats = key.apply(stats, _record(2, 5))
    assert stats.step_count == 2 and stats.total_output_tokens == 10
    assert stats.tool_rounds == ["sig", "sig"]
    stats = key.apply(stats, RecordStepOutcome(1, True))
    stats = key.apply(stats, RecordStepOutcome(1, True))
    assert stats.consecutive_errors == 1
    stats = key.apply(stats, RecordStepOutcome(2, False))
    assert stats.consecutive_errors == 0
    stats = key.apply(stats, RecordStop("a", "first"))
    stats = key.apply(stats, RecordStop("b", "second"))
    assert stats.stopped is not None and stats.stopped.code == "a"
    # the stats survive a JSON round trip (checkpoints)
    assert key.decode(key.encode(stats)) == stats
