"""A.7: DiscBeta maths and the re-deferral decision."""

import math

import pytest
from awaken_ext_deferred_tools import (
    DeferralRule,
    DeferralState,
    DeferredToolsConfig,
    DiscBetaEntry,
    DiscBetaParams,
    DiscBetaState,
    ToolLoadMode,
    observe,
    tools_to_defer,
)
from awaken_ext_deferred_tools.disc_beta import z_score

EAGER, DEFERRED = ToolLoadMode.EAGER, ToolLoadMode.DEFERRED


def test_entry_maths() -> None:
    entry = DiscBetaEntry(alpha=2.0, beta_param=6.0, c=100.0, c_bar=5.0)
    assert entry.mean() == 0.25
    assert entry.variance() == pytest.approx(12 / (64 * 9))
    sd = math.sqrt(12 / (64 * 9))
    assert entry.upper(0.95) == pytest.approx(0.25 + 1.645 * sd)
    assert entry.upper(0.90) == pytest.approx(0.25 + 1.282 * sd)
    assert entry.upper(0.5) == pytest.approx(0.25 + sd)
    assert DiscBetaEntry(alpha=50.0, beta_param=0.01, c=1, c_bar=1).upper(0.95) == 1.0
    empty = DiscBetaEntry(alpha=0.0, beta_param=0.0, c=1, c_bar=1)
    assert empty.mean() == 0.0 and empty.upper(0.9) == 1.0
    assert entry.breakeven(2000.0) == 95 / 2000
    assert math.isinf(entry.breakeven(0.0))
    assert math.isinf(DiscBetaEntry(1, 1, c=5, c_bar=5).breakeven(2000))
    assert [z_score(c) for c in (0.99, 0.95, 0.92, 0.90, 0.8)] == [1.645, 1.645, 1.282, 1.282, 1.0]


def test_observe_discounts_then_counts() -> None:
    entry = DiscBetaEntry(alpha=1.0, beta_param=1.0, c=1, c_bar=1)
    hit = observe(entry, 0.9, 7, True)
    assert (hit.alpha, hit.beta_param, hit.last_used_turn) == (pytest.approx(1.9), 0.9, 7)
    miss = observe(hit, 0.9, 8, False)
    assert miss.beta_param == pytest.approx(1.81) and miss.last_used_turn == 7


def test_spec_example_redefers_after_the_bound_drops_below_the_threshold() -> None:
    """Defaults, p = 0.01, c = 400, c_bar = 5: threshold (395/2000)·0.5 = 0.09875."""
    config = DeferredToolsConfig()
    entry = DiscBetaEntry.from_prior(0.01, 5.0, 400.0, 5.0)
    threshold = entry.breakeven(2000.0) * 0.5
    assert threshold == pytest.approx(0.09875)
    entry = observe(entry, 0.95, 0, False)  # step 1: not called
    entry = observe(entry, 0.95, 1, True)  # step 2: called once
    uppers = [entry.upper(0.90)]
    for turn in range(2, 20):
        entry = observe(entry, 0.95, turn, False)
        uppers.append(entry.upper(0.90))
    assert round(uppers[0], 3) == 0.335
    assert round(uppers[4], 3) == 0.214
    assert round(uppers[11], 3) == 0.124
    first_below = next(i for i, u in enumerate(uppers) if u < threshold)
    assert first_below == 15 and round(uppers[15], 4) == 0.0969

    def decide(idle: int) -> list[str]:
        e = DiscBetaEntry.from_prior(0.01, 5.0, 400.0, 5.0)
        e = observe(observe(e, 0.95, 0, False), 0.95, 1, True)
        for turn in range(2, 2 + idle):
            e = observe(e, 0.95, turn, False)
        state = DeferralState({"t": EAGER})
        return tools_to_defer(DiscBetaState({"t": e}), state, config, current_turn=2 + idle)

    assert decide(14) == []
    assert decide(15) == ["t"]


def idle_entry(last_used: int | None = None) -> DiscBetaEntry:
    # a bound far below any threshold
    return DiscBetaEntry(
        alpha=0.01, beta_param=500.0, c=4000.0, c_bar=1.0, last_used_turn=last_used
    )


def test_each_skip_rule() -> None:
    config = DeferredToolsConfig(rules=[DeferralRule(tool="pinned", mode=EAGER)])
    disc = DiscBetaState(
        {
            "eager": idle_entry(),
            "already_deferred": idle_entry(),
            "untracked_mode": idle_entry(),
            "pinned": idle_entry(),
            "recent": idle_entry(last_used=8),
            "future": idle_entry(last_used=20),
            "free": DiscBetaEntry(0.01, 500.0, c=5.0, c_bar=5.0),
            "busy": DiscBetaEntry(50.0, 1.0, c=4000.0, c_bar=1.0),
            "old": idle_entry(last_used=5),
        }
    )
    state = DeferralState(
        {
            "eager": EAGER,
            "already_deferred": DEFERRED,
            "pinned": EAGER,
            "recent": EAGER,
            "future": EAGER,
            "free": EAGER,
            "busy": EAGER,
            "old": EAGER,
        }
    )
    assert tools_to_defer(disc, state, config, current_turn=10) == ["eager", "old"]
    strict = DeferredToolsConfig(disc_beta=DiscBetaParams(defer_after=11))
    assert tools_to_defer(disc, state, strict, current_turn=10) == []
    # never used: idle = current_turn
    assert tools_to_defer(disc, state, config, current_turn=4) == []
