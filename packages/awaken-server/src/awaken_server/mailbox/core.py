"""The state the mailbox's parts share, and the run bookkeeping they all need."""

from __future__ import annotations

import asyncio
import logging

from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.mailbox import MailboxStore
from awaken_contract.contract.storage import RunOutcome, ThreadRunStore
from awaken_contract.ids import now_secs
from awaken_contract.runtime import AgentRuntimeApi

from awaken_server.errors import ServiceUnavailable
from awaken_server.mailbox.config import MailboxConfig
from awaken_server.mailbox.worker import ThreadWorker, WorkerState
from awaken_server.metrics import ServerMetrics
from awaken_server.sse import EventHubRegistry

__all__ = ["MailboxCore"]

_log = logging.getLogger("awaken.mailbox")


class MailboxCore:
    """What every part of the mailbox shares: the runtime and stores, this process's thread
    workers, metrics, the wake-up event and whether new work is accepted."""

    def __init__(
        self,
        runtime: AgentRuntimeApi,
        store: MailboxStore,
        run_store: ThreadRunStore,
        consumer_id: str,
        config: MailboxConfig,
        hubs: EventHubRegistry,
        metrics: ServerMetrics | None,
        default_agent_id: str,
    ) -> None:
        self.runtime = runtime
        self.store = store
        self.run_store = run_store
        self.consumer_id = consumer_id
        self.config = config
        self.hubs = hubs
        self.metrics = metrics
        self.default_agent_id = default_agent_id
        self.workers: dict[str, ThreadWorker] = {}
        self.run_threads: dict[str, str] = {}
        """Run id → thread id of the jobs this process executes."""
        self.accepting = True
        self.wake = asyncio.Event()
        self.background: set[asyncio.Future[bool]] = set()

    def worker_state(self, thread_id: str) -> WorkerState:
        """This process's worker state for ``thread_id``."""
        worker = self.workers.get(thread_id)
        return WorkerState.IDLE if worker is None else worker.state

    def active_run_id(self, thread_id: str) -> str | None:
        """The run this process executes on ``thread_id``."""
        worker = self.workers.get(thread_id)
        if worker is None or worker.state is not WorkerState.RUNNING:
            return None
        return worker.run_id

    def active_runs(self) -> int:
        """Jobs executing in this process."""
        return sum(1 for w in self.workers.values() if w.state is WorkerState.RUNNING)

    def local_worker(self, id: str) -> ThreadWorker | None:
        """The running worker addressed by thread id or run id."""
        worker = self.workers.get(id)
        if worker is None and id in self.run_threads:
            worker = self.workers.get(self.run_threads[id])
        if worker is not None and worker.state is WorkerState.RUNNING:
            return worker
        return None

    def worker(self, thread_id: str) -> ThreadWorker:
        """This process's worker of ``thread_id`` (made on first use)."""
        worker = self.workers.get(thread_id)
        if worker is None:
            worker = ThreadWorker(thread_id)
            self.workers[thread_id] = worker
        return worker

    @staticmethod
    def cancel_live(worker: ThreadWorker) -> bool:
        """Cancel the run a worker of this process executes (with the runtime it started)."""
        if worker.run_id is None or worker.runtime is None:
            return False
        return worker.runtime.cancel(worker.run_id)

    async def reconcile_run(
        self, run_id: str, termination: TerminationReason, *, own_job: bool = False
    ) -> None:
        """Mark a run that will never execute (again) as done, unless it already is."""
        try:
            run = await self.run_store.load_run(run_id)
            if run is None or run.status is RunStatus.DONE:
                return
            if not own_job and self.local_worker(run_id) is not None:
                return
            now = now_secs()
            run.status = RunStatus.DONE
            run.termination_reason = termination
            run.finished_at = now
            run.updated_at = now
            run.waiting = None
            run.outcome = RunOutcome(termination_reason=termination)
            messages = await self.run_store.load_messages(run.thread_id) or []
            await self.run_store.checkpoint(run.thread_id, messages, run)
        except Exception:
            _log.warning("could not reconcile run %s", run_id, exc_info=True)

    def count(self, operation: str, result: str) -> None:
        """Count one mailbox operation and its result."""
        if self.metrics is not None:
            self.metrics.mailbox_ops.labels(operation, result).inc()

    def check_accepting(self) -> None:
        """Refuse new submissions once shutdown began (503 + Retry-After)."""
        if not self.accepting:
            raise ServiceUnavailable("server is shutting down", headers={"Retry-After": "5"})
