"""The mailbox service: every run activation is a durable job, executed by leased workers.

Book chapter "HITL and mailbox". Submits become jobs in a :class:`MailboxStore`; one worker per
thread (per process) claims the thread's next job with a lease, renews the lease while the run
executes (longer while it waits for a human decision), then acks, nacks with backoff or
dead-letters it. A sweep reclaims expired leases, so the job of a crashed process is re-run by
another (or the restarted) one; a dispatcher loop picks up work queued by other processes; GC
purges finished jobs. Foreground submits interrupt the thread first (new input wins).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import time
from dataclasses import dataclass
from typing import Any

from awaken_contract.contract.event import (
    Error,
    RunFinish,
)
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.journal import JournaledThreadRunStore
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind, TerminationReason
from awaken_contract.contract.mailbox import (
    MailboxInterrupt,
    MailboxJob,
    MailboxJobStatus,
    MailboxRunResult,
    MailboxStore,
)
from awaken_contract.contract.storage import (
    RunDecision,
    RunOutcome,
    RunRecord,
    RunRequestSnapshot,
    ThreadRunStore,
)
from awaken_contract.contract.suspension import ToolCallResume
from awaken_contract.errors import (
    AgentLoopError,
    AgentRuntimeError,
    AlreadyExists,
    InferenceExecutionError,
    InferenceFailed,
    LoopStorageFailed,
    ResolveError,
    StorageError,
    VersionConflict,
)
from awaken_contract.ids import new_id, now_ms, now_secs

from awaken_server.errors import BadRequest, Conflict
from awaken_server.mailbox.config import MailboxConfig
from awaken_server.mailbox.sink import ReconnectableEventSink
from awaken_server.mailbox.submission import (
    JobExtras,
    RunSubmission,
    build_request,
    extras_of,
    extras_to_builtins,
)
from awaken_server.mailbox.worker import JobSink, ThreadWorker, WorkerState
from awaken_server.metrics import ServerMetrics
from awaken_server.runtime_port import (
    runtime_cancel,
    runtime_cancel_and_wait,
    runtime_send_decision,
    runtime_send_messages,
)
from awaken_server.sse import EventHubRegistry, HubSink, RunEventHub

__all__ = ["Mailbox", "SubmitHandle", "SubmitResult", "SubmitStatus", "WorkerState"]

_log = logging.getLogger("awaken.mailbox")

THREAD_BUSY = "thread has an active run; cannot claim inline"
TRANSIENT_ERROR_CODES = frozenset({"storage_error"})
"""``error`` event codes that make a finished run's job retry (nack) instead of ack."""


class SubmitStatus(enum.StrEnum):
    """Whether a submitted job started executing right away."""

    RUNNING = "running"
    QUEUED = "queued"


@dataclass(slots=True)
class SubmitResult:
    """Outcome of a background submit."""

    status: SubmitStatus
    job_id: str
    run_id: str
    thread_id: str


@dataclass(slots=True)
class SubmitHandle:
    """A foreground run started by this process: stream its events from ``hub``."""

    job_id: str
    run_id: str
    thread_id: str
    hub: RunEventHub
    task: asyncio.Task[None]
    sink: ReconnectableEventSink
    reservation: int | None = None
    """Hub reader slot held from the start; pass it to ``hub.stream(reserved=...)``."""


class _Permanent(Exception):
    """A job that can never succeed (dead letter)."""


class Mailbox:
    """Durable run queue + workers over any :class:`MailboxStore`.

    ``Mailbox(runtime, mailbox_store, "consumer-1", MailboxConfig())`` (the book's order); the
    thread/run store defaults to ``runtime.thread_run_store``. Call :meth:`start` (recovery,
    dispatcher, sweep, GC) and :meth:`stop` (graceful drain). ``runtime`` may be replaced at any
    time (config API); running jobs keep the runtime they started with.
    """

    def __init__(
        self,
        runtime: Any,
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
            run_store = getattr(runtime, "thread_run_store", None)
        if run_store is None:
            raise ValueError(
                "Mailbox needs a ThreadRunStore: pass run_store= or build the runtime "
                "with with_thread_run_store(store)"
            )
        self.runtime = runtime
        self.store = store
        self.run_store = run_store
        self.consumer_id = consumer_id or f"awaken-{new_id()}"
        self.config = config or MailboxConfig()
        self.hubs = hubs or EventHubRegistry()
        self.metrics = metrics
        self.default_agent_id = default_agent_id
        self._workers: dict[str, ThreadWorker] = {}
        self._run_threads: dict[str, str] = {}
        self._maintenance: list[asyncio.Task[None]] = []
        self._accepting = True
        self._started = False
        self._wake = asyncio.Event()
        self._background: set[asyncio.Future[bool]] = set()

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Recover (reclaim expired leases, dispatch queued work) and start maintenance loops."""
        if self._started:
            return
        self._started = True
        self._accepting = True
        await self.recover()
        self._maintenance = [
            asyncio.create_task(self._dispatch_loop(), name="awaken-mailbox-dispatch"),
            asyncio.create_task(self._sweep_loop(), name="awaken-mailbox-sweep"),
            asyncio.create_task(self._gc_loop(), name="awaken-mailbox-gc"),
        ]

    async def stop(self, drain_secs: float = 30.0) -> None:
        """Stop claiming, wait up to ``drain_secs`` for running jobs, then cancel the rest.

        Cancelled jobs are released (nacked, available at once) so another process — or this
        one after a restart — re-runs them from the last checkpoint; runs parked on a human
        decision are let go right away (their durable state stays ``waiting``).
        """
        self._accepting = False
        for task in self._maintenance:
            task.cancel()
        for task in self._maintenance:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._maintenance = []
        # A run parked on a human decision would wait forever: stop it now (its durable state
        # stays "waiting" and a decision after restart resumes it from the checkpoint).
        parked = [w for w in self._workers.values() if w.suspended and w.task is not None]
        for worker in parked:
            job_id, token, parked_task = worker.job_id, worker.claim_token, worker.task
            if parked_task is None:
                continue
            parked_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await parked_task
            if job_id and token:
                with contextlib.suppress(Exception):
                    await self.store.ack(job_id, token, now_ms())
        running = {
            w.task: (w.job_id, w.claim_token)
            for w in self._workers.values()
            if w.task is not None and not w.task.done()
        }
        if running:
            _, pending = await asyncio.wait(running, timeout=drain_secs)
            for task in pending:
                task.cancel()
            for task in pending:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
                # Release the lease: the job is queued again at once for any other process.
                job_id, token = running[task]
                if job_id and token:
                    with contextlib.suppress(Exception):
                        await self.store.nack(
                            job_id, token, now_ms(), "server shut down mid-run", now_ms()
                        )
        self._started = False

    @property
    def accepting(self) -> bool:
        """False once shutdown began."""
        return self._accepting

    # ------------------------------------------------------------------ queries
    def worker_state(self, thread_id: str) -> WorkerState:
        """This process's worker state for ``thread_id``."""
        worker = self._workers.get(thread_id)
        return WorkerState.IDLE if worker is None else worker.state

    def active_run_id(self, thread_id: str) -> str | None:
        """The run this process executes on ``thread_id``."""
        worker = self._workers.get(thread_id)
        if worker is None or worker.state is not WorkerState.RUNNING:
            return None
        return worker.run_id

    def active_runs(self) -> int:
        """Jobs executing in this process."""
        return sum(1 for w in self._workers.values() if w.state is WorkerState.RUNNING)

    def _local_worker(self, id: str) -> ThreadWorker | None:
        """The running worker addressed by thread id or run id."""
        worker = self._workers.get(id)
        if worker is None and id in self._run_threads:
            worker = self._workers.get(self._run_threads[id])
        if worker is not None and worker.state is WorkerState.RUNNING:
            return worker
        return None

    # ------------------------------------------------------------------ submits
    async def submit(
        self, submission: RunSubmission, *, sink: EventSink | None = None
    ) -> SubmitHandle:
        """Foreground submit: interrupt the thread, enqueue, claim inline and start the run.

        Events go to the run's replay hub (``handle.hub``) and, when given, to ``sink`` (through
        a :class:`ReconnectableEventSink`, see :meth:`reconnect_sink`). Raises
        :class:`Conflict` when the thread's active run cannot be released.
        """
        self._check_accepting()
        thread_id = self._validate(submission)
        released = await self._interrupt_and_wait(thread_id)
        if not released:
            raise Conflict(THREAD_BUSY)
        worker = await self._reserve_worker(thread_id)
        try:
            run_id, agent_id = await self._prepare_run(thread_id, submission, background=False)
            now = now_ms()
            job = self._new_job(thread_id, run_id, agent_id, submission, background=False, now=now)
            job.available_at = now + self.config.inline_claim_guard_ms
            stored = await self.store.enqueue(job)
            claimed = await self.store.claim_job(
                stored.job_id, self.consumer_id, self.config.lease_ms, now_ms()
            )
        except BaseException:
            worker.state = WorkerState.IDLE
            raise
        if claimed is None:
            worker.state = WorkerState.IDLE
            await self.store.cancel(stored.job_id, now_ms())
            await self._reconcile_run(run_id, TerminationReason.cancelled())
            raise Conflict(THREAD_BUSY)
        target = ReconnectableEventSink(sink)
        hub = self.hubs.open(run_id, thread_id)
        # Hold the native hub's frames for the HTTP response that is about to read them (a
        # caller with its own sink reads that sink instead, so nothing is reserved).
        reservation = hub.reserve() if sink is None else None
        task = self._start_job(worker, claimed, target)
        return SubmitHandle(claimed.job_id, run_id, thread_id, hub, task, target, reservation)

    async def _reserve_worker(self, thread_id: str) -> ThreadWorker:
        """Take this process's worker of the thread for an inline claim (state Claiming);
        a concurrent claim attempt is waited out briefly, a running job is a conflict."""
        worker = self._worker(thread_id)
        deadline = time.monotonic() + self.config.cancel_wait.total_seconds()
        while worker.state is WorkerState.CLAIMING and time.monotonic() < deadline:  # noqa: ASYNC110 - a claim takes one store round trip
            await asyncio.sleep(0.005)
        if worker.state is not WorkerState.IDLE:
            raise Conflict(THREAD_BUSY)
        worker.state = WorkerState.CLAIMING
        return worker

    async def submit_background(self, submission: RunSubmission) -> SubmitResult:
        """Background submit: enqueue behind the thread's active work (no interrupt)."""
        self._check_accepting()
        thread_id = self._validate(submission)
        run_id, agent_id = await self._prepare_run(thread_id, submission, background=True)
        job = self._new_job(thread_id, run_id, agent_id, submission, background=True, now=now_ms())
        stored = await self.store.enqueue(job)
        self._count("enqueue", "ok")
        started = await self.try_dispatch(thread_id)
        status = SubmitStatus.RUNNING if started else SubmitStatus.QUEUED
        self._wake.set()
        return SubmitResult(status, stored.job_id, run_id, thread_id)

    async def submit_live_then_queue(
        self, submission: RunSubmission, expected_run_id: str | None = None
    ) -> SubmitResult:
        """Steer: hand the messages to the thread's running run, else queue them durably."""
        thread_id = self._validate(submission)
        worker = self._workers.get(thread_id)
        if (
            worker is not None
            and worker.state is WorkerState.RUNNING
            and worker.run_id is not None
            and (expected_run_id is None or expected_run_id == worker.run_id)
            and await runtime_send_messages(worker.runtime, worker.run_id, submission.messages)
        ):
            return SubmitResult(SubmitStatus.RUNNING, worker.job_id or "", worker.run_id, thread_id)
        return await self.submit_background(submission)

    def reconnect_sink(self, thread_id: str, sink: EventSink) -> bool:
        """Send the live run's later events on ``thread_id`` to ``sink`` (book: SSE reconnect).

        True only if this process runs the thread right now."""
        worker = self._local_worker(thread_id)
        if worker is None or worker.sink is None:
            return False
        worker.sink.reconnect(sink)
        return True

    def _check_accepting(self) -> None:
        if not self._accepting:
            from awaken_server.errors import ServiceUnavailable

            raise ServiceUnavailable("server is shutting down", headers={"Retry-After": "5"})

    @staticmethod
    def _validate(submission: RunSubmission) -> str:
        if not submission.messages and not submission.decisions:
            raise BadRequest("at least one message is required")
        for message in submission.messages:
            if message.id is None:
                message.id = new_id()
        thread_id = (submission.thread_id or "").strip()
        return thread_id or new_id()

    async def _prepare_run(
        self, thread_id: str, submission: RunSubmission, *, background: bool
    ) -> tuple[str, str]:
        """Pick the run id (continue a waiting run, honour hints, else new) and the agent id;
        create the durable run record (status ``created``) for new runs."""
        latest = await self.run_store.latest_run(thread_id)
        agent_id = (submission.agent_id or "").strip()
        if not agent_id and latest is not None and latest.status is not RunStatus.CREATED:
            agent_id = latest.agent_id.strip()
        if not agent_id:
            agent_id = self.default_agent_id

        if submission.continue_run_id:
            return submission.continue_run_id, agent_id
        if not submission.run_id_hint:
            waiting = await self._resumable_waiting_run(thread_id, latest)
            if waiting is not None:
                submission.continue_run_id = waiting.run_id
                return waiting.run_id, (submission.agent_id or "").strip() or waiting.agent_id
        run_id = submission.run_id_hint or new_id()
        now = now_secs()
        record = RunRecord(
            run_id=run_id,
            thread_id=thread_id,
            agent_id=agent_id,
            parent_run_id=submission.parent_run_id,
            request=RunRequestSnapshot(
                origin=submission.origin,
                input_message_ids=[m.id for m in submission.messages if m.id],
                input_message_count=len(submission.messages),
                request_extras=extras_to_builtins(
                    submission.extras(submission.run_mode(background=background))
                ),
                decisions=[RunDecision(call_id=c, resume=r) for c, r in submission.decisions],
                frontend_tools=list(submission.frontend_tools),
                parent_thread_id=submission.parent_thread_id,
                transport_request_id=submission.transport_request_id,
            ),
            status=RunStatus.CREATED,
            created_at=now,
            updated_at=now,
            transport_request_id=submission.transport_request_id,
        )
        with contextlib.suppress(AlreadyExists):
            await self.run_store.create_run(record)
        return run_id, agent_id

    async def _resumable_waiting_run(
        self, thread_id: str, latest: RunRecord | None
    ) -> RunRecord | None:
        thread = await self.run_store.load_thread(thread_id)
        if thread is not None and thread.open_run_id:
            run = await self.run_store.load_run(thread.open_run_id)
            if run is not None and run.thread_id == thread_id and run.is_resumable_waiting():
                return run
        if latest is not None and latest.is_resumable_waiting():
            return latest
        return None

    def _new_job(
        self,
        thread_id: str,
        run_id: str,
        agent_id: str,
        submission: RunSubmission,
        *,
        background: bool,
        now: int,
    ) -> MailboxJob:
        extras = submission.extras(submission.run_mode(background=background))
        job = MailboxJob.new(
            thread_id,
            messages=list(submission.messages),
            agent_id=agent_id,
            run_id=run_id,
            max_attempts=self.config.default_max_attempts,
            origin=submission.origin,
            request_extras=extras_to_builtins(extras),
            now=now,
        )
        job.parent_run_id = submission.parent_run_id
        return job

    # ------------------------------------------------------------------ dispatch
    def _worker(self, thread_id: str) -> ThreadWorker:
        worker = self._workers.get(thread_id)
        if worker is None:
            worker = ThreadWorker(thread_id)
            self._workers[thread_id] = worker
        return worker

    async def try_dispatch(self, thread_id: str) -> bool:
        """If this process's worker for the thread is idle, claim and start its next job."""
        if not self._accepting:
            return False
        worker = self._worker(thread_id)
        if worker.state is not WorkerState.IDLE:
            return False
        worker.state = WorkerState.CLAIMING
        try:
            jobs = await self.store.claim(
                thread_id, self.consumer_id, self.config.lease_ms, now_ms(), 1
            )
        except Exception:
            worker.state = WorkerState.IDLE
            _log.exception("claim failed for thread %s", thread_id)
            return False
        if not jobs:
            worker.state = WorkerState.IDLE
            return False
        self._count("claim", "ok")
        self._start_job(worker, jobs[0], ReconnectableEventSink())
        return True

    async def _dispatch_job(self, job: MailboxJob) -> bool:
        """Claim and start one specific job if its thread's worker here is idle."""
        if not self._accepting:
            return False
        worker = self._worker(job.mailbox_id)
        if worker.state is not WorkerState.IDLE:
            return False
        worker.state = WorkerState.CLAIMING
        try:
            claimed = await self.store.claim_job(
                job.job_id, self.consumer_id, self.config.lease_ms, now_ms()
            )
        except Exception:
            claimed = None
            _log.warning("claim of job %s failed", job.job_id, exc_info=True)
        if claimed is None:
            worker.state = WorkerState.IDLE
            return False
        self._count("claim", "ok")
        self._start_job(worker, claimed, ReconnectableEventSink())
        return True

    def _start_job(
        self, worker: ThreadWorker, job: MailboxJob, target: ReconnectableEventSink
    ) -> asyncio.Task[None]:
        worker.state = WorkerState.RUNNING
        worker.job_id = job.job_id
        worker.claim_token = job.claim_token
        worker.run_id = job.run_id
        worker.runtime = self.runtime
        worker.sink = target
        worker.suspended = False
        worker.lease_lost = False
        worker.done = asyncio.Event()
        if job.run_id:
            self._run_threads[job.run_id] = worker.thread_id
        self.hubs.open(job.run_id or job.job_id, worker.thread_id)
        task = asyncio.create_task(self._execute(worker, job), name=f"awaken-job-{job.job_id}")
        worker.task = task
        return task

    async def _execute(self, worker: ThreadWorker, job: MailboxJob) -> None:
        token = job.claim_token or ""
        run_id = job.run_id or job.job_id
        hub = self.hubs.open(run_id, worker.thread_id)
        job_sink = JobSink(
            worker, HubSink(hub), worker.sink or ReconnectableEventSink(), self.metrics
        )
        renewal = asyncio.create_task(self._renew_lease(worker, job.job_id, token))
        started = time.monotonic()
        if self.metrics is not None:
            self.metrics.active_runs.inc()
            self.metrics.runs_started.inc()
        try:
            await self._run_job(worker, job, token, run_id, job_sink)
        except asyncio.CancelledError:
            # Shutdown: the job stays Claimed; its lease expires and a sweep re-runs it.
            raise
        except Exception:
            _log.exception("mailbox job %s failed unexpectedly", job.job_id)
        finally:
            renewal.cancel()
            if self.metrics is not None:
                self.metrics.active_runs.dec()
                self.metrics.run_duration.observe(time.monotonic() - started)
            worker.state = WorkerState.IDLE
            worker.job_id = None
            worker.sink = None
            worker.task = None
            worker.done.set()
            self._run_threads.pop(run_id, None)
            hub.close()
            if self._accepting:
                asyncio.get_running_loop().call_soon(self._schedule_dispatch, worker.thread_id)

    def _schedule_dispatch(self, thread_id: str) -> None:
        if self._accepting:
            task = asyncio.ensure_future(self.try_dispatch(thread_id))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _run_job(
        self, worker: ThreadWorker, job: MailboxJob, token: str, run_id: str, sink: JobSink
    ) -> None:
        current = await self.store.load(job.job_id)
        if current is None or current.status is not MailboxJobStatus.CLAIMED:
            return
        if current.claim_token != token:
            return
        if await self.store.current_generation(job.mailbox_id) > job.generation:
            await self.store.supersede_claimed(
                job.job_id, token, now_ms(), "claimed dispatch superseded before execution start"
            )
            await self._reconcile_run(run_id, TerminationReason.cancelled())
            return
        instance_id = new_id()
        try:
            request = await self._request_for(job, run_id, instance_id)
        except _Permanent as exc:
            await self._finish(job, token, "dead_letter", str(exc), sink, run_id, instance_id)
            return
        if request is None:  # the run already finished before a crash lost the ack
            await self._ack(job, token)
            return
        try:
            await self.store.record_job_start(job.job_id, token, instance_id, now_ms())
        except VersionConflict:
            # Interrupted (or the lease lost) between the checks above and now: superseded.
            await self._reconcile_run(run_id, TerminationReason.cancelled(), own_job=True)
            return
        _log.info(
            "job start job_id=%s run_id=%s thread_id=%s consumer=%s attempt=%d",
            job.job_id,
            run_id,
            job.mailbox_id,
            self.consumer_id,
            job.attempt_count,
        )
        try:
            result = await worker.runtime.run(request, sink)
        except (ResolveError, AgentRuntimeError) as exc:
            transient = type(exc).__name__ not in (
                "ThreadAlreadyRunning",
                "AgentNotFound",
                "ResolveFailed",
            ) and not isinstance(exc, ResolveError)
            outcome = "nack" if transient else "dead_letter"
            await self._finish(job, token, outcome, str(exc), sink, run_id, instance_id)
            return
        except (StorageError, InferenceFailed, InferenceExecutionError, LoopStorageFailed) as exc:
            await self._finish(job, token, "nack", str(exc), sink, run_id, instance_id)
            return
        except AgentLoopError as exc:
            await self._finish(job, token, "ack", str(exc), sink, run_id, instance_id)
            return
        except Exception as exc:
            _log.exception("run %s raised", run_id)
            await self._finish(
                job, token, "nack", f"{type(exc).__name__}: {exc}", sink, run_id, instance_id
            )
            return
        termination = getattr(result, "termination", None)
        response = getattr(result, "response", None)
        if (
            isinstance(termination, TerminationReason)
            and termination.type is TerminationKind.ERROR
            and sink.error_code in TRANSIENT_ERROR_CODES
        ):
            # The store failed under the run: an infrastructure failure, retried with backoff.
            message = termination.message or "storage error"
            await self._finish(job, token, "nack", message, sink, run_id, instance_id)
            return
        await self._record_done(
            job,
            token,
            MailboxRunResult(
                run_id=run_id,
                dispatch_instance_id=instance_id,
                status=RunStatus.DONE,
                termination=termination if isinstance(termination, TerminationReason) else None,
                response=response if isinstance(response, str) else None,
            ),
        )
        await self._ack(job, token)

    async def _record_done(self, job: MailboxJob, token: str, result: MailboxRunResult) -> None:
        """Record a finished dispatch's result on its job (best effort: a failure is ignored)."""
        with contextlib.suppress(Exception):
            await self.store.record_run_result(job.job_id, token, result, now_ms())

    async def _request_for(self, job: MailboxJob, run_id: str, instance_id: str) -> Any:
        """Rebuild the runtime request from the durable job and run record."""
        try:
            extras: JobExtras = extras_of(job.request_extras)
        except Exception as exc:
            raise _Permanent(f"cannot rebuild the run request: {exc}") from exc
        record = await self.run_store.load_run(run_id)
        continuation = record is not None and record.status is not RunStatus.CREATED
        if (
            record is not None
            and record.status is RunStatus.WAITING
            and record.dispatch_id == job.job_id
            and not extras.decisions
        ):
            # This activation already parked the run durably (its process died while waiting
            # for a human): nothing to redo; the decision arrives as its own job.
            return None
        persisted = False
        if job.messages:
            ids = {m.id for m in job.messages}
            log = await self.run_store.load_messages(job.mailbox_id) or []
            persisted = ids <= {m.id for m in log}
        if record is not None and record.status is RunStatus.DONE:
            if record.dispatch_id == job.job_id or persisted:
                return None  # its input was already consumed before a crash lost the ack
            # The run this job meant to continue ended meanwhile: start a new one.
            run_id, continuation = new_id(), False
        return build_request(
            thread_id=job.mailbox_id,
            run_id=run_id,
            continuation=continuation,
            agent_id=job.agent_id,
            messages=job.messages,
            messages_already_persisted=persisted,
            origin=job.origin,
            extras=extras,
            parent_run_id=job.parent_run_id,
            dispatch_id=job.job_id,
            session_id=instance_id,
        )

    async def _finish(
        self,
        job: MailboxJob,
        token: str,
        outcome: str,
        error: str,
        sink: JobSink,
        run_id: str,
        instance_id: str,
    ) -> None:
        """Report a failed run to the stream, record the result and settle the job."""
        if outcome != "ack" and not sink.finished:
            with contextlib.suppress(Exception):
                await sink.emit(Error(message=error, code="RUN_FAILED"))
                await sink.emit(
                    RunFinish(
                        thread_id=job.mailbox_id,
                        run_id=run_id,
                        termination=TerminationReason.error(error),
                    )
                )
        if self.metrics is not None:
            self.metrics.errors.labels(outcome).inc()
        await self._record_done(
            job,
            token,
            MailboxRunResult(
                run_id=run_id,
                dispatch_instance_id=instance_id,
                status=RunStatus.DONE,
                termination=TerminationReason.error(error),
                error=error,
            ),
        )
        try:
            if outcome == "ack":
                await self._ack(job, token)
            elif outcome == "nack":
                retry_at = now_ms() + self.config.retry_delay(job.attempt_count)
                settled = await self.store.nack(job.job_id, token, retry_at, error, now_ms())
                self._count("nack", "ok")
                if settled.status is MailboxJobStatus.DEAD_LETTER:
                    await self._reconcile_run(run_id, TerminationReason.error(error), own_job=True)
            else:
                await self.store.dead_letter(job.job_id, token, error, now_ms())
                self._count("dead_letter", "ok")
                await self._reconcile_run(run_id, TerminationReason.error(error), own_job=True)
        except VersionConflict:
            self._count(outcome, "superseded")

    async def _ack(self, job: MailboxJob, token: str) -> None:
        try:
            await self.store.ack(job.job_id, token, now_ms())
            self._count("ack", "ok")
        except VersionConflict:
            # Superseded (interrupt) or the lease was lost: nothing left to settle.
            self._count("ack", "superseded")

    async def _renew_lease(self, worker: ThreadWorker, job_id: str, token: str) -> None:
        interval = self.config.lease_renewal_interval.total_seconds()
        while True:
            await asyncio.sleep(interval)
            extension = self.config.suspended_lease_ms if worker.suspended else self.config.lease_ms
            try:
                ok = await self.store.extend_lease(job_id, token, extension, now_ms())
            except Exception:
                _log.warning("lease renewal of job %s failed; run continues", job_id, exc_info=True)
                return
            if not ok:
                worker.lease_lost = True
                if worker.run_id is not None:
                    await runtime_cancel(worker.runtime, worker.run_id)
                return

    # ------------------------------------------------------------------ control
    async def interrupt(self, thread_id: str) -> MailboxInterrupt:
        """Bump the thread's generation, supersede its queued jobs (their runs → cancelled) and
        cancel the active job's run without waiting."""
        result = await self.store.interrupt(thread_id, now_ms())
        for job in result.superseded_jobs:
            if job.run_id:
                await self._reconcile_run(job.run_id, TerminationReason.cancelled())
        if result.active_job is not None:
            worker = self._workers.get(thread_id)
            if worker is not None and worker.state is WorkerState.RUNNING and worker.run_id:
                await runtime_cancel(worker.runtime, worker.run_id)
        return result

    async def _interrupt_and_wait(self, thread_id: str) -> bool:
        """Interrupt the thread and wait (bounded) until no job of it is Claimed."""
        deadline = time.monotonic() + self.config.cancel_wait.total_seconds()
        active: MailboxJob | None = None
        try:
            active = (await self.interrupt(thread_id)).active_job
        except Exception:
            _log.warning("store interrupt failed; cancelling the thread's run", exc_info=True)
            await runtime_cancel_and_wait(self.runtime, thread_id)
        # The run may be released by the runtime while this process's worker still settles its
        # job (result, ack): the thread is free only once the worker is idle.
        worker = self._workers.get(thread_id)
        if worker is not None and worker.state is WorkerState.RUNNING and worker.run_id:
            await runtime_cancel(worker.runtime, worker.run_id)
        while worker is not None and worker.state is not WorkerState.IDLE:
            if time.monotonic() >= deadline:
                return False
            if worker.done.is_set():  # between jobs (claiming the next one)
                await asyncio.sleep(0.01)
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(worker.done.wait(), 0.05)
        while active is not None:
            current = await self.store.load(active.job_id)
            if current is None or current.status is not MailboxJobStatus.CLAIMED:
                break
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.025)
        return True

    async def cancel(self, id: str) -> bool:
        """Cancel by job id, run id or thread id (spec mailbox §5.5)."""
        job = await self.store.load(id)
        if job is not None and job.status is MailboxJobStatus.QUEUED:
            cancelled = await self.store.cancel(id, now_ms())
            if cancelled is not None:
                if cancelled.run_id:
                    await self._reconcile_run(cancelled.run_id, TerminationReason.cancelled())
                return True
        worker = self._local_worker(id)
        if (
            worker is not None
            and worker.run_id is not None
            and await runtime_cancel(worker.runtime, worker.run_id)
        ):
            return True
        if job is not None and job.run_id:
            id = job.run_id
        run = await self.run_store.load_run(id)
        if run is None:
            run = await self.run_store.latest_run(id)
        if run is None or run.status is RunStatus.DONE:
            return False
        worker = self._local_worker(run.thread_id)
        if worker is not None and worker.run_id == run.run_id:
            return await runtime_cancel(worker.runtime, run.run_id)
        held = await self.store.list(run.thread_id, [MailboxJobStatus.CLAIMED], 1, 0)
        if held and held[0].run_id == run.run_id:
            # Executing in another process: superseding its job makes that worker's next lease
            # renewal fail, which cancels the run there.
            await self.interrupt(run.thread_id)
            return True
        if run.status is RunStatus.WAITING:
            # Parked with no live process: cancelling ends it (book).
            await self._reconcile_run(run.run_id, TerminationReason.cancelled())
            return True
        return False

    async def decide(
        self, id: str, tool_call_id: str, resume: ToolCallResume, *, thread_scoped: bool = False
    ) -> str | None:
        """Deliver a decision: to the live run in this process, else as a durable resume job.

        ``id`` is a run id (or a thread id when ``thread_scoped``). Returns the run id the
        decision went to, or ``None`` when no waiting run has that call."""
        worker = self._local_worker(id)
        if (
            worker is not None
            and worker.run_id is not None
            and await runtime_send_decision(worker.runtime, worker.run_id, tool_call_id, resume)
        ):
            return worker.run_id
        run: RunRecord | None
        if thread_scoped:
            thread = await self.run_store.load_thread(id)
            run = None
            if thread is not None and thread.open_run_id:
                run = await self.run_store.load_run(thread.open_run_id)
            if run is None:
                run = await self.run_store.latest_run(id)
        else:
            run = await self.run_store.load_run(id)
        if run is None or not run.is_resumable_waiting() or run.waiting is None:
            return None
        targets = {t.ticket_id for t in run.waiting.tickets} | {
            t.tool_call_id for t in run.waiting.tickets
        }
        targets |= set(run.waiting.ticket_ids)
        if tool_call_id not in targets:
            return None
        submission = RunSubmission(
            thread_id=run.thread_id,
            agent_id=run.agent_id,
            decisions=[(tool_call_id, resume)],
            continue_run_id=run.run_id,
        )
        await self.submit_background(submission)
        return run.run_id

    async def _reconcile_run(
        self, run_id: str, termination: TerminationReason, *, own_job: bool = False
    ) -> None:
        """Mark a run that will never execute (again) as done, unless it already is."""
        try:
            run = await self.run_store.load_run(run_id)
            if run is None or run.status is RunStatus.DONE:
                return
            if not own_job and self._local_worker(run_id) is not None:
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

    # ------------------------------------------------------------------ maintenance
    async def recover(self) -> None:
        """Startup recovery: reclaim expired leases, then dispatch every thread with queued work."""
        await self.sweep()
        await self.dispatch_queued()

    async def sweep(self) -> int:
        """Reclaim expired leases (a crashed worker's jobs become Queued again or dead)."""
        reclaimed = await self.store.reclaim_expired_leases(now_ms(), 100)
        for job in reclaimed:
            self._count("reclaim", "ok")
            if job.status is MailboxJobStatus.DEAD_LETTER and job.run_id:
                await self._reconcile_run(job.run_id, TerminationReason.error("dead letter"))
            elif job.status is MailboxJobStatus.QUEUED:
                # Re-run at once, even if it still carries a foreground claim guard.
                await self._dispatch_job(job)
        if reclaimed:
            self._wake.set()
        return len(reclaimed)

    async def dispatch_queued(self) -> int:
        """Try dispatch for every thread with Queued jobs; deliver decisions to live runs."""
        started = 0
        for thread_id in await self.store.queued_mailbox_ids():
            worker = self._workers.get(thread_id)
            if worker is not None and worker.state is WorkerState.RUNNING:
                await self._deliver_queued_decisions(worker)
                continue
            if await self.try_dispatch(thread_id):
                started += 1
        if self.metrics is not None:
            with contextlib.suppress(Exception):
                depth = await self.store.count_by_status(MailboxJobStatus.QUEUED)
                self.metrics.mailbox_depth.set(depth)
        return started

    async def _deliver_queued_decisions(self, worker: ThreadWorker) -> None:
        """A decision queued durably (e.g. by another process) for a run this process is
        holding live: take the job back and hand the decision to the live run."""
        if not worker.suspended or worker.run_id is None:
            return
        queued = await self.store.list(worker.thread_id, [MailboxJobStatus.QUEUED], 20, 0)
        for job in queued:
            extras = extras_of(job.request_extras)
            if job.messages or not extras.decisions or extras.continue_run_id != worker.run_id:
                continue
            if await self.store.cancel(job.job_id, now_ms()) is None:
                continue
            for call_id, resume in extras.decisions:
                await runtime_send_decision(worker.runtime, worker.run_id, call_id, resume)

    async def gc(self) -> int:
        """Purge finished jobs older than ``gc_ttl``, idle workers and old replay buffers, and
        prune finished runs by ``config.retention``."""
        cutoff = now_ms() - int(self.config.gc_ttl.total_seconds() * 1000)
        purged = await self.store.purge_terminal(cutoff)
        if self.config.retention.is_enabled and isinstance(self.run_store, JournaledThreadRunStore):
            await self.run_store.prune(self.config.retention)
        for thread_id in [t for t, w in self._workers.items() if w.state is WorkerState.IDLE]:
            del self._workers[thread_id]
        self.hubs.purge(self.config.replay_buffer_ttl.total_seconds())
        return purged

    async def _dispatch_loop(self) -> None:
        poll = self.config.poll_interval.total_seconds()
        while True:
            try:
                await self.dispatch_queued()
            except asyncio.CancelledError:
                raise
            except Exception:
                _log.warning("dispatch pass failed", exc_info=True)
            self._wake.clear()
            waiter = asyncio.ensure_future(self._wake.wait())
            store_wait = asyncio.ensure_future(self.store.wait_for_work(poll))
            try:
                await asyncio.wait(
                    {waiter, store_wait}, timeout=poll * 2, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                waiter.cancel()
                store_wait.cancel()

    async def _periodic(self, interval: float, action: Any, name: str) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                await action()
            except asyncio.CancelledError:
                raise
            except Exception:
                _log.warning("mailbox %s failed", name, exc_info=True)

    async def _sweep_loop(self) -> None:
        await self._periodic(self.config.sweep_interval.total_seconds(), self.sweep, "sweep")

    async def _gc_loop(self) -> None:
        await self._periodic(self.config.gc_interval.total_seconds(), self.gc, "gc")

    def _count(self, operation: str, result: str) -> None:
        if self.metrics is not None:
            self.metrics.mailbox_ops.labels(operation, result).inc()
