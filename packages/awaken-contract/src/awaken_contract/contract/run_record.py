"""Run records: the durable ``RunRecord`` with its request snapshot, waiting state and outcome;
run queries and pages (what ``RunStore`` persists). Timestamps are unix **seconds**."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, TypeVar

import msgspec

from awaken_contract.contract.identity import RunRequestOrigin
from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.message_record import (
    MessageSeqRange,
)
from awaken_contract.contract.suspension import ToolCallResume, ToolCallResumeMode, WaitingReason
from awaken_contract.contract.tool_result import ToolDescriptor
from awaken_contract.state import PersistedState

__all__ = [
    "MAX_RUN_PAGE_LIMIT",
    "RunDecision",
    "RunKeys",
    "RunMessageInput",
    "RunMessageOutput",
    "RunOutcome",
    "RunPage",
    "RunQuery",
    "RunRecord",
    "RunRequestSnapshot",
    "RunWaitingState",
    "RunWaitingTicket",
]

MAX_RUN_PAGE_LIMIT = 200
"""``RunQuery.limit`` is clamped to ``1..=MAX_RUN_PAGE_LIMIT``."""


def _none() -> None:
    """Default factory for keys that are always written, even when null."""
    return None


def _zero() -> int:
    """Default factory for integer keys that are always written, even when 0."""
    return 0


def _user_origin() -> RunRequestOrigin:
    return RunRequestOrigin.USER


def _replay_mode() -> ToolCallResumeMode:
    return ToolCallResumeMode.REPLAY_TOOL_CALL


class RunDecision(msgspec.Struct):
    """A resume decision attached to a run request."""

    call_id: str
    resume: ToolCallResume


class RunRequestSnapshot(msgspec.Struct, omit_defaults=True):
    """What is needed to rebuild a run request from the durable record."""

    origin: RunRequestOrigin = msgspec.field(default_factory=_user_origin)
    sender_id: str | None = None
    input_message_ids: list[str] = msgspec.field(default_factory=list)
    input_message_count: int = 0
    request_extras: Any | None = None
    decisions: list[RunDecision] = msgspec.field(default_factory=list)
    frontend_tools: list[ToolDescriptor] = msgspec.field(default_factory=list)
    parent_thread_id: str | None = None
    transport_request_id: str | None = None


class RunMessageInput(msgspec.Struct, omit_defaults=True):
    """Which thread messages were the input of a run."""

    thread_id: str
    range: MessageSeqRange | None = None
    trigger_message_ids: list[str] = msgspec.field(default_factory=list)
    selected_message_ids: list[str] = msgspec.field(default_factory=list)
    context_policy: Any | None = None
    compacted_snapshot_id: str | None = None


class RunMessageOutput(msgspec.Struct, omit_defaults=True):
    """Which thread messages a run produced."""

    thread_id: str
    range: MessageSeqRange | None = None
    message_ids: list[str] = msgspec.field(default_factory=list)


class RunWaitingTicket(msgspec.Struct, omit_defaults=True):
    """One suspended tool call a waiting run needs a decision for."""

    ticket_id: str
    tool_call_id: str
    tool_name: str
    arguments: Any | None = None
    resume_mode: ToolCallResumeMode = msgspec.field(default_factory=_replay_mode)
    reason: str | None = None
    updated_at: int = msgspec.field(default_factory=_zero)


class RunWaitingState(msgspec.Struct, omit_defaults=True):
    """Why (and on what) a run waits."""

    reason: WaitingReason
    ticket_ids: list[str] = msgspec.field(default_factory=list)
    tickets: list[RunWaitingTicket] = msgspec.field(default_factory=list)
    since_dispatch_id: str | None = None
    message: str | None = None

    def call_targets(self) -> list[str]:
        """One decision target per waiting call: its tool-call id (else its ticket id)."""
        targets = sorted({t.tool_call_id or t.ticket_id for t in self.tickets})
        return targets or list(self.ticket_ids)

    def decision_targets(self) -> set[str]:
        """Every id a decision may address: ticket ids and their tool-call ids."""
        targets = set(self.ticket_ids)
        for ticket in self.tickets:
            targets.add(ticket.ticket_id)
            targets.add(ticket.tool_call_id)
        targets.discard("")
        return targets


class RunOutcome(msgspec.Struct, omit_defaults=True):
    """How a run ended."""

    termination_reason: TerminationReason
    final_output: str | None = None
    error_payload: Any | None = None


class RunRecord(msgspec.Struct, omit_defaults=True, kw_only=True):
    """The durable record of one run; timestamps are unix seconds."""

    run_id: str
    thread_id: str
    agent_id: str
    parent_run_id: str | None = msgspec.field(default_factory=_none)
    request: RunRequestSnapshot | None = None
    input: RunMessageInput | None = None
    output: RunMessageOutput | None = None
    status: RunStatus
    termination_reason: TerminationReason | None = None
    final_output: str | None = None
    error_payload: Any | None = None
    dispatch_id: str | None = None
    session_id: str | None = None
    transport_request_id: str | None = None
    user_id: str | None = None
    """The user the run acts for (its Profile-scoped state is this user's); kept on resume."""
    waiting: RunWaitingState | None = None
    outcome: RunOutcome | None = None
    created_at: int
    started_at: int | None = None
    finished_at: int | None = None
    updated_at: int
    steps: int = msgspec.field(default_factory=_zero)
    input_tokens: int = msgspec.field(default_factory=_zero)
    output_tokens: int = msgspec.field(default_factory=_zero)
    cost: float | None = None
    state: PersistedState | None = msgspec.field(default_factory=_none)

    def waiting_reason(self) -> WaitingReason | None:
        """The waiting reason, only while the run's status is ``waiting``."""
        if self.status is RunStatus.WAITING and self.waiting is not None:
            return self.waiting.reason
        return None

    def is_resumable_waiting(self) -> bool:
        """True when the run waits and says why."""
        return self.waiting_reason() is not None

    def is_background_task_waiting(self) -> bool:
        """True when the run waits on background tasks."""
        return self.waiting_reason() is WaitingReason.BACKGROUND_TASKS

    def decision_targets(self) -> set[str]:
        """Ids a decision may address on this run (empty unless it waits on tickets)."""
        return set() if self.waiting is None else self.waiting.decision_targets()


class RunKeys(Protocol):
    """What a run query filters and sorts on (a ``RunRecord``, or a store row keeping them)."""

    @property
    def thread_id(self) -> str: ...

    @property
    def status(self) -> RunStatus: ...

    @property
    def created_at(self) -> int: ...


K = TypeVar("K", bound=RunKeys)


class RunQuery(msgspec.Struct, omit_defaults=True, gc=False):
    """Filter and page of ``list_runs``."""

    offset: int = 0
    limit: int = 50
    thread_id: str | None = None
    status: RunStatus | None = None

    def matches(self, run: RunKeys) -> bool:
        """True when ``run`` passes the thread and status filters."""
        if self.thread_id is not None and run.thread_id != self.thread_id:
            return False
        return self.status is None or run.status is self.status

    def effective_limit(self) -> int:
        """``limit`` clamped to ``1..=200``."""
        return min(max(self.limit, 1), MAX_RUN_PAGE_LIMIT)

    def page(self, runs: Iterable[RunRecord]) -> RunPage:
        """Filter, sort by created_at ascending and page ``runs`` (for stores that scan)."""
        items, total, has_more = self.select(runs)
        return RunPage(items=items, total=total, has_more=has_more)

    def select(self, runs: Iterable[K]) -> tuple[list[K], int, bool]:
        """:meth:`page` over anything with the run keys (a store's own rows): the page's items,
        the matching total and whether more follow."""
        matching = sorted((r for r in runs if self.matches(r)), key=lambda r: r.created_at)
        total = len(matching)
        start = min(max(self.offset, 0), total)
        items = matching[start : start + self.effective_limit()]
        return items, total, start + len(items) < total


class RunPage(msgspec.Struct):
    """One page of ``list_runs``."""

    items: list[RunRecord]
    total: int
    has_more: bool
