"""``AgentMetrics``: the spans of a run (or of everything a sink saw) and their totals."""

from __future__ import annotations

import enum

import msgspec

from awaken_ext_observability.spans import (
    DelegationSpan,
    GenAISpan,
    HandoffSpan,
    MetricsEvent,
    SpanContext,
    SuspensionSpan,
    ToolSpan,
)

__all__ = ["AgentMetrics", "ModelStats", "RunOutcome", "ToolStats"]


class RunOutcome(enum.StrEnum):
    """How a run segment ended (low cardinality: a span status and a metric label)."""

    FINISHED = "finished"
    SUSPENDED = "suspended"
    ERROR = "error"
    CANCELLED = "cancelled"
    STOPPED = "stopped"
    BLOCKED = "blocked"


class ModelStats(msgspec.Struct):
    """Inference totals of one (model, provider)."""

    model: str
    provider: str
    inference_count: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    total_duration_ms: int = 0


class ToolStats(msgspec.Struct):
    """Call totals of one tool."""

    name: str
    call_count: int = 0
    failure_count: int = 0
    total_duration_ms: int = 0


def _sum(values: list[int | None]) -> int:
    return sum(v for v in values if v is not None)


class AgentMetrics(msgspec.Struct, kw_only=True):
    """Collected spans plus ``session_duration_ms``; a run's metrics also name the run
    (``context``) and how its segment ended (``outcome``)."""

    inferences: list[GenAISpan] = msgspec.field(default_factory=list)
    tools: list[ToolSpan] = msgspec.field(default_factory=list)
    suspensions: list[SuspensionSpan] = msgspec.field(default_factory=list)
    handoffs: list[HandoffSpan] = msgspec.field(default_factory=list)
    delegations: list[DelegationSpan] = msgspec.field(default_factory=list)
    session_duration_ms: int = 0
    context: SpanContext | None = None
    outcome: RunOutcome | None = None

    def add(self, event: MetricsEvent) -> None:
        """Append ``event`` to its list."""
        if isinstance(event, GenAISpan):
            self.inferences.append(event)
        elif isinstance(event, ToolSpan):
            self.tools.append(event)
        elif isinstance(event, SuspensionSpan):
            self.suspensions.append(event)
        elif isinstance(event, HandoffSpan):
            self.handoffs.append(event)
        else:
            self.delegations.append(event)

    def copy(self) -> AgentMetrics:
        """A copy with its own lists."""
        return AgentMetrics(
            inferences=list(self.inferences),
            tools=list(self.tools),
            suspensions=list(self.suspensions),
            handoffs=list(self.handoffs),
            delegations=list(self.delegations),
            session_duration_ms=self.session_duration_ms,
            context=self.context,
            outcome=self.outcome,
        )

    @property
    def total_input_tokens(self) -> int:
        return _sum([s.input_tokens for s in self.inferences])

    @property
    def total_output_tokens(self) -> int:
        return _sum([s.output_tokens for s in self.inferences])

    @property
    def total_tokens(self) -> int:
        return _sum([s.total_tokens for s in self.inferences])

    @property
    def total_cache_read_tokens(self) -> int:
        return _sum([s.cache_read_input_tokens for s in self.inferences])

    @property
    def total_cache_creation_tokens(self) -> int:
        return _sum([s.cache_creation_input_tokens for s in self.inferences])

    @property
    def total_inference_duration_ms(self) -> int:
        return sum(s.duration_ms for s in self.inferences)

    @property
    def total_tool_duration_ms(self) -> int:
        return sum(s.duration_ms for s in self.tools)

    @property
    def inference_count(self) -> int:
        return len(self.inferences)

    @property
    def tool_count(self) -> int:
        return len(self.tools)

    @property
    def tool_failures(self) -> int:
        return sum(1 for s in self.tools if s.error_type is not None)

    @property
    def total_suspensions(self) -> int:
        return len(self.suspensions)

    @property
    def total_handoffs(self) -> int:
        return len(self.handoffs)

    @property
    def total_delegations(self) -> int:
        return len(self.delegations)

    @property
    def successful_delegations(self) -> int:
        return sum(1 for s in self.delegations if s.success)

    def events(self) -> list[MetricsEvent]:
        """All spans: inferences, tools, suspensions, handoffs, delegations."""
        return [
            *self.inferences,
            *self.tools,
            *self.suspensions,
            *self.handoffs,
            *self.delegations,
        ]

    def stats_by_model(self) -> list[ModelStats]:
        """Inference totals grouped by (model, provider), sorted by model."""
        groups: dict[tuple[str, str], ModelStats] = {}
        for s in self.inferences:
            st = groups.setdefault((s.model, s.provider), ModelStats(s.model, s.provider))
            st.inference_count += 1
            st.input_tokens += s.input_tokens or 0
            st.output_tokens += s.output_tokens or 0
            st.total_tokens += s.total_tokens or 0
            st.cache_read_input_tokens += s.cache_read_input_tokens or 0
            st.cache_creation_input_tokens += s.cache_creation_input_tokens or 0
            st.total_duration_ms += s.duration_ms
        return sorted(groups.values(), key=lambda st: (st.model, st.provider))

    def stats_by_tool(self) -> list[ToolStats]:
        """Call totals grouped by tool name, sorted by name."""
        groups: dict[str, ToolStats] = {}
        for s in self.tools:
            st = groups.setdefault(s.name, ToolStats(s.name))
            st.call_count += 1
            st.failure_count += s.error_type is not None
            st.total_duration_ms += s.duration_ms
        return sorted(groups.values(), key=lambda st: st.name)
