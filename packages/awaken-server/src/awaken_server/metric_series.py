"""Counter and histogram series updated in one call, read by Prometheus when it collects.

prometheus_client guards every value with a lock and validates on every update: an ``inc`` is
four Python calls and a lock round trip, an ``observe`` one more plus a loop over the buckets.
The server updates a dozen series per run, always on the event loop's thread, so a series
here swaps its child's values for plain numbers (:class:`_Value`, the same interface without
the lock) and updates them directly; ``/metrics`` still renders through prometheus_client,
from the very same child objects, so the exposition is unchanged. In multiprocess mode
(``PROMETHEUS_MULTIPROC_DIR``) the values live in shared files: the child is used as it is.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from prometheus_client import Counter, Histogram
from prometheus_client.values import MutexValue

__all__ = [
    "CounterFamily",
    "CounterSeries",
    "HistogramFamily",
    "HistogramSeries",
    "counter_series",
    "histogram_series",
]


class CounterSeries(Protocol):
    """One counter series: ``inc`` as ``Counter.inc``."""

    def inc(self, amount: float = 1) -> None: ...


class HistogramSeries(Protocol):
    """One histogram series: ``observe`` as ``Histogram.observe``."""

    def observe(self, amount: float) -> None: ...


class _Value:
    """prometheus_client's ``MutexValue`` without the lock (event-loop thread only)."""

    __slots__ = ("value",)
    _multiprocess = False

    def __init__(self, value: float) -> None:
        self.value = value

    def inc(self, amount: float) -> None:
        self.value += amount

    def set(self, value: float, timestamp: float | None = None) -> None:
        self.value = value

    def get(self) -> float:
        return self.value

    def set_exemplar(self, exemplar: object) -> None:
        pass  # (the server records no exemplars)

    def get_exemplar(self) -> None:
        return None


def _unlocked(value: object) -> _Value | None:
    """A plain stand-in for a child's ``MutexValue`` (``None`` in multiprocess mode)."""
    if isinstance(value, _Value):
        return value
    if type(value) is not MutexValue:
        return None
    return _Value(float(value._value))  # (read before any update: no lock needed)


class _Counter:
    __slots__ = ("_value",)

    def __init__(self, value: _Value) -> None:
        self._value = value

    def inc(self, amount: float = 1) -> None:
        if amount < 0:
            raise ValueError("Counters can only be incremented by non-negative amounts.")
        self._value.value += amount


class _Histogram:
    __slots__ = ("_bounds", "_buckets", "_sum")

    def __init__(self, bounds: list[float], buckets: list[_Value], total: _Value) -> None:
        self._bounds = bounds
        self._buckets = buckets
        self._sum = total

    def observe(self, amount: float) -> None:
        self._sum.value += amount
        bounds = self._bounds
        i = bisect_left(bounds, amount)  # (the first bucket whose bound is >= amount)
        if i < len(bounds) and amount <= bounds[i]:  # (NaN falls in no bucket, as upstream)
            self._buckets[i].value += 1


def counter_series(child: Counter) -> CounterSeries:
    """The fast series of an unlabelled counter or a labelled counter's child."""
    value = _unlocked(child._value)
    if value is None:
        return child
    child._value = value  # (duck-typed as prometheus_client's MutexValue)
    return _Counter(value)


def histogram_series(child: Histogram) -> HistogramSeries:
    """The fast series of an unlabelled histogram or a labelled histogram's child."""
    total = _unlocked(child._sum)
    buckets = [_unlocked(b) for b in child._buckets]
    if total is None or None in buckets:
        return child
    child._sum = total
    child._buckets = buckets
    return _Histogram(child._upper_bounds, buckets, total)  # type: ignore[arg-type]


S = TypeVar("S", CounterSeries, HistogramSeries)
M = TypeVar("M", Counter, Histogram)


class _Family(Generic[M, S]):
    __slots__ = ("_children", "_series", "metric")

    def __init__(self, metric: M, series: Callable[[M], S]) -> None:
        self.metric: M = metric
        self._series: Callable[[M], S] = series
        self._children: dict[tuple[str, ...], S] = {}

    def labels(self, *values: str) -> S:
        """The series of ``values`` (as ``metric.labels(*values)``), made on first use."""
        found = self._children.get(values)
        if found is None:
            found = self._children[values] = self._series(self.metric.labels(*values))
        return found


class CounterFamily(_Family[Counter, CounterSeries]):
    """A labelled counter whose series are remembered by label values (every label of the
    server's metrics has a bounded set of values)."""

    __slots__ = ()

    def __init__(self, metric: Counter) -> None:
        super().__init__(metric, counter_series)


class HistogramFamily(_Family[Histogram, HistogramSeries]):
    """A labelled histogram whose series are remembered by label values."""

    __slots__ = ()

    def __init__(self, metric: Histogram) -> None:
        super().__init__(metric, histogram_series)
