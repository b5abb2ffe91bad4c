"""Where spans go: the :class:`MetricsSink` interface and the in-memory and fan-out sinks.

A sink implements ``on_inference``, ``on_tool`` and ``on_run_end`` (the book's interface); the
other callbacks have no-op defaults. Tracing sinks also use the start callbacks
(``on_run_start``, ``on_tool_start``) to open live spans that children can be parented to.
Callbacks run inside phase hooks: keep them fast and never raise for a recording problem.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable

import msgspec

from awaken_ext_observability.errors import SinkError
from awaken_ext_observability.metrics import AgentMetrics
from awaken_ext_observability.spans import (
    DelegationSpan,
    GenAISpan,
    HandoffSpan,
    MetricsEvent,
    SpanContext,
    SuspensionSpan,
    ToolSpan,
)

__all__ = ["CompositeSink", "InMemorySink", "MetricsSink", "RunStart"]


class RunStart(msgspec.Struct, frozen=True, kw_only=True):
    """A run segment begins: its context, when, and how it relates to other traces.

    ``trace_parent`` is a W3C ``traceparent`` the run continues (from an HTTP request);
    ``resumes`` is the context of the parked segment this one resumes (same run id)."""

    context: SpanContext
    start_time_unix_nano: int
    trace_parent: str | None = None
    trace_state: str | None = None
    resumes: SpanContext | None = None


class MetricsSink(ABC):
    """Receives the plugin's spans."""

    @abstractmethod
    def on_inference(self, span: GenAISpan) -> None:
        """An inference ended (successfully or not)."""

    @abstractmethod
    def on_tool(self, span: ToolSpan) -> None:
        """A tool call ended."""

    @abstractmethod
    def on_run_end(self, metrics: AgentMetrics) -> None:
        """A run segment ended (finished or parked); ``metrics`` are that run's spans."""

    def on_suspension(self, span: SuspensionSpan) -> None:  # noqa: B027 - optional
        """A tool call parked or was decided."""

    def on_handoff(self, span: HandoffSpan) -> None:  # noqa: B027 - optional
        """The active agent changed."""

    def on_delegation(self, span: DelegationSpan) -> None:  # noqa: B027 - optional
        """A delegate agent's tool call ended."""

    def on_run_start(self, start: RunStart) -> None:  # noqa: B027 - optional
        """A run segment began."""

    def on_tool_start(  # noqa: B027 - optional
        self, context: SpanContext, call_id: str, name: str, start_time_unix_nano: int
    ) -> None:
        """A tool call began (its span may parent a delegated run)."""

    def record(self, event: MetricsEvent) -> None:
        """Dispatch ``event`` to its ``on_*`` callback."""
        if isinstance(event, GenAISpan):
            self.on_inference(event)
        elif isinstance(event, ToolSpan):
            self.on_tool(event)
        elif isinstance(event, SuspensionSpan):
            self.on_suspension(event)
        elif isinstance(event, HandoffSpan):
            self.on_handoff(event)
        else:
            self.on_delegation(event)

    def flush(self) -> None:  # noqa: B027 - optional
        """Push buffered data out (may raise :class:`SinkError`)."""

    def shutdown(self) -> None:  # noqa: B027 - optional
        """Flush and release resources (may raise :class:`SinkError`)."""


class InMemorySink(MetricsSink):
    """Keeps every span; ``metrics()`` returns a copy (thread-safe).

    ``on_run_end`` only copies the run's ``session_duration_ms`` (the spans arrived already).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._metrics = AgentMetrics()

    def on_inference(self, span: GenAISpan) -> None:
        with self._lock:
            self._metrics.inferences.append(span)

    def on_tool(self, span: ToolSpan) -> None:
        with self._lock:
            self._metrics.tools.append(span)

    def on_suspension(self, span: SuspensionSpan) -> None:
        with self._lock:
            self._metrics.suspensions.append(span)

    def on_handoff(self, span: HandoffSpan) -> None:
        with self._lock:
            self._metrics.handoffs.append(span)

    def on_delegation(self, span: DelegationSpan) -> None:
        with self._lock:
            self._metrics.delegations.append(span)

    def on_run_end(self, metrics: AgentMetrics) -> None:
        with self._lock:
            self._metrics.session_duration_ms = metrics.session_duration_ms

    def metrics(self) -> AgentMetrics:
        """A copy of everything recorded so far."""
        with self._lock:
            return self._metrics.copy()

    def clear(self) -> None:
        """Forget everything recorded."""
        with self._lock:
            self._metrics = AgentMetrics()


class CompositeSink(MetricsSink):
    """Fans every callback out to several sinks, in order."""

    def __init__(self, sinks: Iterable[MetricsSink] = ()) -> None:
        self.sinks: list[MetricsSink] = list(sinks)

    def add(self, sink: MetricsSink) -> CompositeSink:
        """Append ``sink``; returns ``self``."""
        self.sinks.append(sink)
        return self

    def __len__(self) -> int:
        return len(self.sinks)

    def on_inference(self, span: GenAISpan) -> None:
        for sink in self.sinks:
            sink.on_inference(span)

    def on_tool(self, span: ToolSpan) -> None:
        for sink in self.sinks:
            sink.on_tool(span)

    def on_run_end(self, metrics: AgentMetrics) -> None:
        for sink in self.sinks:
            sink.on_run_end(metrics)

    def on_suspension(self, span: SuspensionSpan) -> None:
        for sink in self.sinks:
            sink.on_suspension(span)

    def on_handoff(self, span: HandoffSpan) -> None:
        for sink in self.sinks:
            sink.on_handoff(span)

    def on_delegation(self, span: DelegationSpan) -> None:
        for sink in self.sinks:
            sink.on_delegation(span)

    def on_run_start(self, start: RunStart) -> None:
        for sink in self.sinks:
            sink.on_run_start(start)

    def on_tool_start(
        self, context: SpanContext, call_id: str, name: str, start_time_unix_nano: int
    ) -> None:
        for sink in self.sinks:
            sink.on_tool_start(context, call_id, name, start_time_unix_nano)

    def flush(self) -> None:
        self._all("flush")

    def shutdown(self) -> None:
        self._all("shutdown")

    def _all(self, method: str) -> None:
        failed = 0
        for sink in self.sinks:
            try:
                getattr(sink, method)()
            except Exception:
                failed += 1
        if failed:
            raise SinkError(f"{failed} sink(s) failed to {method}")
