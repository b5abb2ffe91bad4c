"""A.3 classification and A.4 state reducers."""

import math

import msgspec
import pytest
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.plugin import PhaseContext
from awaken_contract.state import MutationBatch, Snapshot, StateMap
from awaken_ext_deferred_tools import (
    Defer,
    DeferralRegistry,
    DeferralRegistryKey,
    DeferralRule,
    DeferralState,
    DeferralStateKey,
    DeferredToolsConfig,
    DiscBetaEntry,
    DiscBetaKey,
    DiscBetaState,
    IncrementTurn,
    InitBatch,
    ObserveTurn,
    Promote,
    PromoteBatch,
    RecordCall,
    RecordTurnCalls,
    Register,
    RegisterBatch,
    Remove,
    SetBatch,
    SetPriors,
    StoredToolDescriptor,
    ToolLoadMode,
    ToolUsage,
    UsageStats,
    UsageStatsKey,
    classify,
    deferral_enabled,
    name_cost,
    schema_cost,
)

EAGER, DEFERRED = ToolLoadMode.EAGER, ToolLoadMode.DEFERRED


def big_tool(tool_id: str, name: str | None = None, fields: int = 40) -> ToolDescriptor:
    props = {f"field_{i}": {"type": "string", "description": "x" * 20} for i in range(fields)}
    return ToolDescriptor(tool_id, name or tool_id, f"{tool_id} tool").with_parameters(
        {"type": "object", "properties": props}
    )


# --------------------------------------------------------------------------- costs


def test_costs_are_utf8_bytes_of_compact_sorted_json_over_four_with_floors() -> None:
    params = {"type": "object", "properties": {"city": {"type": "string"}}}
    tool = ToolDescriptor("get_weather", "Weather", "w").with_parameters(params)
    compact = '{"properties":{"city":{"type":"string"}},"type":"object"}'
    assert schema_cost(tool) == len(compact) / 4 == 14.25
    assert name_cost(tool) == max(len("Weather") / 4, 1) == 1.75
    tiny = ToolDescriptor("t", "t", "d").with_parameters({"type": "object"})
    assert schema_cost(tiny) == 10.0 and name_cost(tiny) == 1.0
    wide = ToolDescriptor("w", "天気天気", "d").with_parameters({"d": "é" * 40})
    assert name_cost(wide) == 12 / 4
    assert schema_cost(wide) == len('{"d":"' + "é" * 40 + '"}') / 4 + 40 / 4


# --------------------------------------------------------------------------- classification


def test_classification_skips_toolsearch_registers_deferred_and_tracks_every_tool() -> None:
    config = DeferredToolsConfig(
        enabled=True,
        rules=[DeferralRule(tool="keep", mode=EAGER)],
        agent_priors={"keep": 0.5},
    )
    tools = [big_tool("keep"), big_tool("debug_dump"), big_tool("ToolSearch")]
    result = classify(tools, config)
    assert result.enabled
    assert result.modes == [("keep", EAGER), ("debug_dump", DEFERRED)]
    assert [d.id for d in result.deferred] == ["debug_dump"]
    entries = dict(result.entries)
    assert set(entries) == {"keep", "debug_dump"}
    assert (entries["keep"].alpha, entries["keep"].beta_param) == (2.5, 2.5)
    assert entries["debug_dump"].alpha == pytest.approx(0.05)
    assert entries["debug_dump"].beta_param == pytest.approx(4.95)
    assert entries["debug_dump"].last_used_turn is None
    assert entries["debug_dump"].c == schema_cost(tools[1])
    expected = schema_cost(tools[1]) - name_cost(tools[1])
    assert result.total_savings == pytest.approx(expected)


def test_priors_floor_at_point_zero_one() -> None:
    config = DeferredToolsConfig(agent_priors={"a": 0.0, "b": 1.0})
    entries = dict(classify([big_tool("a"), big_tool("b")], config).entries)
    assert (entries["a"].alpha, entries["a"].beta_param) == (0.01, 5.0)
    assert (entries["b"].alpha, entries["b"].beta_param) == (5.0, 0.01)


def test_auto_enables_only_when_savings_strictly_exceed_the_overhead() -> None:
    tool = big_tool("a")
    saving = schema_cost(tool) - name_cost(tool)
    assert classify([tool], DeferredToolsConfig(beta_overhead=saving - 1)).enabled
    assert not classify([tool], DeferredToolsConfig(beta_overhead=saving)).enabled
    assert classify([tool], DeferredToolsConfig(enabled=True, beta_overhead=1e9)).enabled
    assert not classify([tool] * 50, DeferredToolsConfig(enabled=False)).enabled
    # eager tools save nothing
    eager = DeferredToolsConfig(default_mode=EAGER, beta_overhead=0)
    assert not classify([tool], eager).enabled


def test_disabled_classification_writes_nothing_enabled_writes_three_keys() -> None:
    off = MutationBatch()
    classify([big_tool("a")], DeferredToolsConfig(enabled=False)).write(off)
    assert off.is_empty
    on = MutationBatch()
    classify([big_tool("a")], DeferredToolsConfig(enabled=True)).write(on)
    assert len(on) == 3


def ctx_with(modes: dict[str, ToolLoadMode] | None) -> PhaseContext:
    values = StateMap()
    if modes is not None:
        values.insert(DeferralStateKey, DeferralState(modes))
    return PhaseContext.test_default().with_snapshot(Snapshot(1, values))


def test_runtime_enabled_check() -> None:
    auto = DeferredToolsConfig()
    assert not deferral_enabled(ctx_with(None), auto)
    assert not deferral_enabled(ctx_with({}), auto)
    assert deferral_enabled(ctx_with({"a": EAGER}), auto)
    assert deferral_enabled(ctx_with(None), DeferredToolsConfig(enabled=True))
    assert not deferral_enabled(ctx_with({"a": DEFERRED}), DeferredToolsConfig(enabled=False))


# --------------------------------------------------------------------------- reducers


def test_registry_reducer() -> None:
    a = StoredToolDescriptor("a", "A", "first", {"type": "object"}, "cat")
    b = StoredToolDescriptor("b", "B", "second")
    value = DeferralRegistryKey.apply(DeferralRegistry(), Register(a))
    value = DeferralRegistryKey.apply(value, RegisterBatch([b]))
    assert list(value.tools) == ["a", "b"]
    value = DeferralRegistryKey.apply(value, Remove("a"))
    value = DeferralRegistryKey.apply(value, Remove("missing"))
    assert list(value.tools) == ["b"]
    assert msgspec.to_builtins(a) == {
        "id": "a",
        "name": "A",
        "description": "first",
        "parameters": {"type": "object"},
        "category": "cat",
    }


def test_mode_reducer() -> None:
    value = DeferralStateKey.apply(DeferralState(), SetBatch([("a", DEFERRED), ("b", EAGER)]))
    value = DeferralStateKey.apply(value, Promote("a"))
    assert value.modes == {"a": EAGER, "b": EAGER}
    value = DeferralStateKey.apply(value, Defer("b"))
    value = DeferralStateKey.apply(value, PromoteBatch(["c"]))
    assert value.modes == {"a": EAGER, "b": DEFERRED, "c": EAGER}
    assert value.deferred_ids() == ["b"]


def test_usage_reducer_counts_presence_once_per_turn() -> None:
    value = UsageStats()
    assert value.presence_freq("a") == 0.0
    value = UsageStatsKey.apply(value, RecordCall("a"))
    value = UsageStatsKey.apply(value, RecordCall("a"))
    assert value.tools["a"] == ToolUsage(1, 2, 0, 0)
    value = UsageStatsKey.apply(value, IncrementTurn())
    value = UsageStatsKey.apply(value, IncrementTurn())
    value = UsageStatsKey.apply(value, RecordTurnCalls([("a", 3), ("b", 1)]))
    assert value.tools["a"] == ToolUsage(2, 5, 0, 2)
    assert value.tools["b"] == ToolUsage(1, 1, 2, 2)
    assert value.called_at(2) == ["a", "b"]
    value = UsageStatsKey.apply(value, IncrementTurn())
    assert value.presence_freq("a") == pytest.approx(2 / 3)
    assert value.presence_freq("never") == 0.0


def test_disc_beta_reducers() -> None:
    first = DiscBetaEntry.from_prior(0.01, 5.0, 400, 5)
    other = DiscBetaEntry.from_prior(0.5, 5.0, 50, 2)
    value = DiscBetaKey.apply(DiscBetaState(), InitBatch([("a", first)]))
    value = DiscBetaKey.apply(value, InitBatch([("a", other), ("b", other)]))
    assert value.tools == {"a": first, "b": other}  # insert-if-absent
    value = DiscBetaKey.apply(value, ObserveTurn(0.5, 3, ["a"]))
    assert value.tools["a"].alpha == pytest.approx(0.05 * 0.5 + 1)
    assert value.tools["a"].beta_param == pytest.approx(4.95 * 0.5)
    assert value.tools["a"].last_used_turn == 3
    assert value.tools["b"].alpha == pytest.approx(1.25)
    assert value.tools["b"].beta_param == pytest.approx(2.25)
    assert value.tools["b"].last_used_turn is None
    value = DiscBetaKey.apply(value, SetPriors({"a": 0.2, "zzz": 0.9}, 10.0))
    assert (value.tools["a"].alpha, value.tools["a"].beta_param) == (2.0, 8.0)
    assert value.tools["a"].last_used_turn == 3 and value.tools["a"].c == 400
    assert "zzz" not in value.tools


def test_values_and_updates_round_trip_through_json() -> None:
    state = DeferralState({"a": DEFERRED})
    data = DeferralStateKey.encode(state)
    assert data == {"modes": {"a": "deferred"}}
    assert DeferralStateKey.decode(data) == state
    usage = UsageStats(2, {"a": ToolUsage(1, 1, 0, 0)})
    assert UsageStatsKey.encode(usage) == {
        "total_turns": 2,
        "tools": {
            "a": {
                "turn_presence_count": 1,
                "total_call_count": 1,
                "first_use_turn": 0,
                "last_use_turn": 0,
            }
        },
    }
    disc = DiscBetaState({"a": DiscBetaEntry(1.0, 2.0, 30.0, 3.0)})
    assert DiscBetaKey.encode(disc) == {
        "tools": {"a": {"alpha": 1.0, "beta_param": 2.0, "c": 30.0, "c_bar": 3.0}}
    }
    assert DiscBetaKey.decode(DiscBetaKey.encode(disc)) == disc
    assert not math.isnan(disc.tools["a"].mean())
