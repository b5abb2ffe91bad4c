"""The mailbox service: every run activation is a durable job, executed by leased workers.

Book chapter "HITL and mailbox". :class:`Mailbox` is the one object callers hold; its parts
have one responsibility each: :class:`~awaken_server.mailbox.submit.Submitter` (submissions
become jobs under a run plan), :class:`~awaken_server.mailbox.execute.JobRunner` (claim, run
under a renewed lease, settle), :class:`~awaken_server.mailbox.control.RunControl` (interrupt,
cancel) and :class:`~awaken_server.mailbox.maintenance.Maintenance` (recovery, sweep,
dispatch, GC, drain). They share one :class:`~awaken_server.mailbox.core.MailboxCore`.
"""

from __future__ import annotations

from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.mailbox import MailboxInterrupt, MailboxStore
from awaken_contract.contract.storage import ThreadRunStore
from awaken_contract.contract.suspension import ToolCallResume
from awaken_contract.ids import new_id
from awaken_contract.runtime import AgentRuntimeApi

from awaken_server.mailbox.config import MailboxConfig
from awaken_server.mailbox.control import RunControl
from awaken_server.mailbox.core import MailboxCore
from awaken_server.mailbox.execute import JobRunner
from awaken_server.mailbox.maintenance import Maintenance
from awaken_server.mailbox.submission import RunSubmission
from awaken_server.mailbox.submit import SubmitHandle, SubmitResult, SubmitStatus, Submitter
from awaken_server.mailbox.worker import WorkerState
from awaken_server.metrics import ServerMetrics
from awaken_server.sse import EventHubRegistry, hub_registry_for

__all__ = ["Mailbox", "SubmitHandle", "SubmitResult", "SubmitStatus", "WorkerState"]


class Mailbox:
    """Durable run queue + workers over any :class:`MailboxStore`.

    ``Mailbox(runtime, mailbox_store, "consumer-1", MailboxConfig())`` (the book's order); the
    thread/run store defaults to ``runtime.thread_run_store``. Call :meth:`start` (recovery,
    dispatcher, sweep, GC) and :meth:`stop` (graceful drain). ``runtime`` may be replaced at any
    time (config API); running jobs keep the runtime they started with.
    """

    def __init__(
        self,
        runtime: AgentRuntimeApi,
        store: MailboxStore,
        consumer_id: str | None = None,
        config: MailboxConfig | None = None,
        *,
        run_store: ThreadRunStore | None = None,
        hubs: EventHubRegistry | None = None,
        metrics: ServerMetrics | None = None,
        default_agent_id: str = "default",
    ) -> None:
        if run_store is None:
            run_store = runtime.thread_run_store
        if run_store is None:
            raise ValueError(
                "Mailbox needs a ThreadRunStore: pass run_store= or build the runtime "
                "with with_thread_run_store(store)"
            )
        self.core = MailboxCore(
            runtime,
            store,
            run_store,
            consumer_id or f"awaken-{new_id()}",
            config or MailboxConfig(),
            hubs or hub_registry_for(run_store),
            metrics,
            default_agent_id,
        )
        self.runner = JobRunner(self.core)
        self.control = RunControl(self.core)
        self.submitter = Submitter(self.core, self.runner, self.control)
        self.maintenance = Maintenance(self.core, self.runner)

    # ------------------------------------------------------------------ shared parts
    @property
    def runtime(self) -> AgentRuntimeApi:
        """The runtime new jobs run with."""
        return self.core.runtime

    @runtime.setter
    def runtime(self, value: AgentRuntimeApi) -> None:
        self.core.runtime = value

    @property
    def metrics(self) -> ServerMetrics | None:
        """Where mailbox and run metrics go."""
        return self.core.metrics

    @metrics.setter
    def metrics(self, value: ServerMetrics | None) -> None:
        self.core.metrics = value

    @property
    def store(self) -> MailboxStore:
        """The durable job store."""
        return self.core.store

    @property
    def run_store(self) -> ThreadRunStore:
        """The thread/run store runs persist to."""
        return self.core.run_store

    @property
    def hubs(self) -> EventHubRegistry:
        """Replay buffers of the runs' event streams."""
        return self.core.hubs

    @property
    def config(self) -> MailboxConfig:
        """Leases, retries, intervals."""
        return self.core.config

    @property
    def consumer_id(self) -> str:
        """This process's claim identity."""
        return self.core.consumer_id

    @property
    def default_agent_id(self) -> str:
        """The agent of a submission that names none on a thread without runs."""
        return self.core.default_agent_id

    @property
    def accepting(self) -> bool:
        """False once shutdown began."""
        return self.core.accepting

    # ------------------------------------------------------------------ queries
    def worker_state(self, thread_id: str) -> WorkerState:
        """This process's worker state for ``thread_id``."""
        return self.core.worker_state(thread_id)

    def active_run_id(self, thread_id: str) -> str | None:
        """The run this process executes on ``thread_id``."""
        return self.core.active_run_id(thread_id)

    def active_runs(self) -> int:
        """Jobs executing in this process."""
        return self.core.active_runs()

    # ------------------------------------------------------------------ submit
    async def submit(
        self, submission: RunSubmission, *, sink: EventSink | None = None
    ) -> SubmitHandle:
        """Foreground submit (see :meth:`Submitter.submit`)."""
        return await self.submitter.submit(submission, sink=sink)

    async def submit_background(self, submission: RunSubmission) -> SubmitResult:
        """Background submit: enqueue behind the thread's active work (no interrupt)."""
        return await self.submitter.submit_background(submission)

    async def submit_live_then_queue(
        self, submission: RunSubmission, expected_run_id: str | None = None
    ) -> SubmitResult:
        """Steer: hand the messages to the thread's running run, else queue them durably."""
        return await self.submitter.submit_live_then_queue(submission, expected_run_id)

    async def decide(
        self, id: str, tool_call_id: str, resume: ToolCallResume, *, thread_scoped: bool = False
    ) -> str | None:
        """Deliver a decision (see :meth:`Submitter.decide`)."""
        return await self.submitter.decide(id, tool_call_id, resume, thread_scoped=thread_scoped)

    def reconnect_sink(self, thread_id: str, sink: EventSink) -> bool:
        """Send the live run's later events on ``thread_id`` to ``sink`` (SSE reconnect)."""
        return self.submitter.reconnect_sink(thread_id, sink)

    # ------------------------------------------------------------------ execute
    async def try_dispatch(self, thread_id: str) -> bool:
        """If this process's worker for the thread is idle, claim and start its next job."""
        return await self.runner.try_dispatch(thread_id)

    # ------------------------------------------------------------------ control
    async def interrupt(self, thread_id: str) -> MailboxInterrupt:
        """Supersede the thread's queued jobs and cancel its active run (no waiting)."""
        return await self.control.interrupt(thread_id)

    async def cancel(self, id: str) -> bool:
        """Cancel by job id, run id or thread id (spec mailbox §5.5)."""
        return await self.control.cancel(id)

    # ------------------------------------------------------------------ maintenance
    async def start(self) -> None:
        """Recover (reclaim expired leases, dispatch queued work) and start maintenance loops."""
        await self.maintenance.start()

    async def stop(self, drain_secs: float = 30.0) -> None:
        """Stop claiming, drain running jobs up to ``drain_secs``, release the rest."""
        await self.maintenance.stop(drain_secs)

    async def recover(self) -> None:
        """Startup recovery: reclaim expired leases, then dispatch queued work."""
        await self.maintenance.recover()

    async def sweep(self) -> int:
        """Reclaim expired leases (a crashed worker's jobs become Queued again or dead)."""
        return await self.maintenance.sweep()

    async def dispatch_queued(self) -> int:
        """Try dispatch for every thread with Queued jobs; deliver decisions to live runs."""
        return await self.maintenance.dispatch_queued()

    async def gc(self) -> int:
        """Purge finished jobs older than ``gc_ttl``, idle workers and old replay buffers."""
        return await self.maintenance.gc()
