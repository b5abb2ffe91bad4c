"""The fast counter/histogram series expose exactly what prometheus_client's own updates do."""

from __future__ import annotations

import math
import re

import pytest
from awaken_ext_observability.conventions import DURATION_BUCKETS
from awaken_server.metric_series import (
    CounterFamily,
    HistogramFamily,
    counter_series,
    histogram_series,
)
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

_AMOUNTS = [0.0, 0.004, 0.005, 0.0051, 0.3, 1.0, 2.5, 59.9, 1e9, math.inf, math.nan, -1.0]


def _metrics(registry: CollectorRegistry) -> tuple[Counter, Counter, Histogram, Histogram]:
    return (
        Counter("c_total", "labelled", ["a", "b"], registry=registry),
        Counter("plain_total", "unlabelled", registry=registry),
        Histogram("h_seconds", "labelled", ["a"], buckets=DURATION_BUCKETS, registry=registry),
        Histogram("plain_seconds", "unlabelled", registry=registry),
    )


def _exposition(registry: CollectorRegistry) -> str:
    """``/metrics`` text without the ``_created`` timestamps (they differ between registries)."""
    return re.sub(r"(_created(\{[^}]*\})?) \S+", r"\1 T", generate_latest(registry).decode())


def test_fast_series_render_the_same_exposition_as_prometheus_client() -> None:
    upstream, fast = CollectorRegistry(), CollectorRegistry()
    c, plain_c, h, plain_h = _metrics(upstream)
    fc, fplain_c, fh, fplain_h = _metrics(fast)
    counters, histograms = CounterFamily(fc), HistogramFamily(fh)
    fast_plain_c, fast_plain_h = counter_series(fplain_c), histogram_series(fplain_h)
    for i, amount in enumerate(_AMOUNTS):
        labels = ("x", str(i % 3))
        if amount >= 0:  # (counters refuse negative amounts, both ways: below)
            c.labels(*labels).inc(amount)
            counters.labels(*labels).inc(amount)
            plain_c.inc()
            fast_plain_c.inc()
        h.labels(labels[1]).observe(amount)
        histograms.labels(labels[1]).observe(amount)
        plain_h.observe(amount)
        fast_plain_h.observe(amount)
    assert _exposition(fast) == _exposition(upstream)
    assert "h_seconds_bucket" in _exposition(fast)


def test_fast_counter_refuses_negative_amounts_as_upstream() -> None:
    registry = CollectorRegistry()
    series = counter_series(Counter("n_total", "n", registry=registry))
    with pytest.raises(ValueError, match="non-negative"):
        series.inc(-1)
    assert registry.get_sample_value("n_total") == 0.0


def test_a_child_updated_both_ways_keeps_one_value() -> None:
    registry = CollectorRegistry()
    counter = Counter("both_total", "both", ["k"], registry=registry)
    family = CounterFamily(counter)
    family.labels("v").inc(2)
    counter.labels("v").inc(3)  # (prometheus_client's own path, on the same child)
    assert family.labels("v") is family.labels("v")
    assert registry.get_sample_value("both_total", {"k": "v"}) == 5.0
