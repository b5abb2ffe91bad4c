"""Per-thread worker state of the mailbox service and the sink a job's run writes to."""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from awaken_contract.contract.event import (
    AgentEvent,
    Error,
    RunFinish,
    ToolCallDone,
    ToolCallResumed,
)
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.suspension import ToolCallOutcome
from awaken_contract.runtime import AgentRuntimeApi

from awaken_server.mailbox.sink import ReconnectableEventSink
from awaken_server.metrics import ServerMetrics
from awaken_server.sse import RunEventHub

__all__ = ["JobSink", "ThreadWorker", "WorkerState"]


class WorkerState(enum.StrEnum):
    """State of a thread's worker in this process."""

    IDLE = "idle"
    CLAIMING = "claiming"
    RUNNING = "running"


@dataclass(slots=True)
class ThreadWorker:
    """What this process is doing for one thread (Idle → Claiming → Running → Idle)."""

    thread_id: str
    state: WorkerState = WorkerState.IDLE
    job_id: str | None = None
    claim_token: str | None = None
    run_id: str | None = None
    runtime: AgentRuntimeApi | None = None
    sink: ReconnectableEventSink | None = None
    task: asyncio.Task[None] | None = None
    suspended: bool = False
    lease_lost: bool = False
    done: asyncio.Event = field(default_factory=asyncio.Event)


_WATCHED = frozenset({ToolCallDone, ToolCallResumed, RunFinish, Error})
"""The event types the job sink looks at (every other event is only forwarded)."""


class JobSink(EventSink):
    """The sink a job's run writes to: metrics, suspension tracking, hub + reconnectable target."""

    __slots__ = (
        "error_code",
        "finished",
        "hub",
        "metrics",
        "on_park_change",
        "target",
        "worker",
    )

    def __init__(
        self,
        worker: ThreadWorker,
        hub: RunEventHub,
        target: ReconnectableEventSink,
        metrics: ServerMetrics | None,
        on_park_change: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        self.worker = worker
        self.hub = hub
        self.target = target
        self.metrics = metrics
        self.on_park_change = on_park_change
        """Awaited when the run parks or resumes, before the event is forwarded (the job's
        lease is switched to the suspended / running length there)."""
        self.finished = False
        self.error_code: str | None = None

    async def emit(self, event: AgentEvent) -> None:
        if type(event) in _WATCHED:  # (most events are none of these: one set look-up)
            await self._watch(event)
        hub = self.hub  # (as HubSink.emit, without one more coroutine per event)
        if hub.next_seq >= hub.capacity and hub.must_wait():  # (cheap test first)
            await hub.wait_for_room()
        hub.publish(event)
        target = self.target
        if target.connected:
            await target.emit(event)

    async def _watch(self, event: AgentEvent) -> None:
        """Track suspension, the run's end and its error code from ``event``."""
        worker = self.worker
        parked = worker.suspended
        if isinstance(event, ToolCallDone):
            if event.outcome is ToolCallOutcome.SUSPENDED:
                worker.suspended = True
        elif isinstance(event, ToolCallResumed):
            worker.suspended = False
        elif isinstance(event, RunFinish):
            self.finished = event.termination.type is not TerminationKind.SUSPENDED
            if self.metrics is not None:
                self.metrics.observe_event(event)  # (it counts finished runs only)
        elif isinstance(event, Error):
            self.error_code = event.code
        if worker.suspended != parked and self.on_park_change is not None:
            await self.on_park_change()

    def skip_seq(self, count: int = 1) -> None:
        self.hub.skip(count)
