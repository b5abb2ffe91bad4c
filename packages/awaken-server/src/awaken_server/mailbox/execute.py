"""Executing jobs: claim, run under a renewed lease, then ack, nack with backoff or dead-letter.

One worker per thread and process. A claimed job is rebuilt into the runtime request (under the
run plan made at submission), run with the runtime the job started with, and settled by the
run's outcome: errors that say ``retryable`` are retried, others dead-lettered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from awaken_contract.contract.event import Error, RunFinish
from awaken_contract.contract.journal import JournaledThreadRunStore
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind, TerminationReason
from awaken_contract.contract.mailbox import MailboxJob, MailboxJobStatus, MailboxRunResult
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.run_plan import RunPlan
from awaken_contract.contract.storage import RunRecord
from awaken_contract.errors import AgentLoopError, AwakenError, VersionConflict
from awaken_contract.ids import new_id, now_ms

from awaken_server.mailbox.core import MailboxCore
from awaken_server.mailbox.job_checkpoints import JobCheckpointWriter, JobNotClaimed
from awaken_server.mailbox.lease import LeaseRenewals
from awaken_server.mailbox.sink import ReconnectableEventSink
from awaken_server.mailbox.submission import JobExtras, build_request, extras_of
from awaken_server.mailbox.worker import JobSink, ThreadWorker, WorkerState
from awaken_server.sse import RunEventHub

__all__ = ["TRANSIENT_ERROR_CODES", "JobRunner"]

_log = logging.getLogger("awaken.mailbox")

TRANSIENT_ERROR_CODES = frozenset({"storage_error"})
"""``error`` event codes that make a finished run's job retry (nack) instead of ack."""


class _Permanent(Exception):
    """A job that can never succeed (dead letter)."""


class JobRunner:
    """Claims a thread's next job and executes it: the run, its lease, its settlement."""

    def __init__(self, core: MailboxCore) -> None:
        self.core = core
        self._leases: LeaseRenewals | None = None

    def _lease_renewals(self) -> LeaseRenewals:
        """The lease renewals of this runner's jobs (one timer for all of them)."""
        if self._leases is None:
            interval = self.core.config.lease_renewal_interval.total_seconds()
            self._leases = LeaseRenewals(interval)
        return self._leases

    async def try_dispatch(self, thread_id: str) -> bool:
        """If this process's worker for the thread is idle, claim and start its next job."""
        if not self.core.accepting:
            return False
        worker = self.core.worker(thread_id)
        if worker.state is not WorkerState.IDLE:
            return False
        worker.state = WorkerState.CLAIMING
        try:
            jobs = await self.core.store.claim(
                thread_id,
                self.core.consumer_id,
                self.core.config.lease_ms,
                now_ms(),
                1,
                start=new_id(),
            )
        except Exception:
            worker.state = WorkerState.IDLE
            _log.exception("claim failed for thread %s", thread_id)
            return False
        if not jobs:
            worker.state = WorkerState.IDLE
            return False
        self.core.count("claim", "ok")
        self.start_job(worker, jobs[0], ReconnectableEventSink())
        return True

    async def dispatch_job(self, job: MailboxJob) -> bool:
        """Claim and start one specific job if its thread's worker here is idle."""
        if not self.core.accepting:
            return False
        worker = self.core.worker(job.mailbox_id)
        if worker.state is not WorkerState.IDLE:
            return False
        worker.state = WorkerState.CLAIMING
        try:
            claimed = await self.core.store.claim_job(
                job.job_id,
                self.core.consumer_id,
                self.core.config.lease_ms,
                now_ms(),
                start=new_id(),
            )
        except Exception:
            claimed = None
            _log.warning("claim of job %s failed", job.job_id, exc_info=True)
        if claimed is None:
            worker.state = WorkerState.IDLE
            return False
        self.core.count("claim", "ok")
        self.start_job(worker, claimed, ReconnectableEventSink())
        return True

    def start_job(
        self,
        worker: ThreadWorker,
        job: MailboxJob,
        target: ReconnectableEventSink,
        writer: JobCheckpointWriter | None = None,
        *,
        planned: RunPlan | None = None,
    ) -> asyncio.Task[None]:
        """Run the claimed ``job`` (or, with a deferred ``writer``, the job its run's first
        checkpoint claims) on ``worker``; ``planned``: the plan this process made for the job
        just now (its ``new_thread``/``new_run`` say what has nothing stored to read)."""
        if writer is None:
            writer = JobCheckpointWriter(self.core.store, job.job_id, job.claim_token or "")
        worker.state = WorkerState.RUNNING
        worker.job_id = job.job_id
        worker.claim_token = job.claim_token
        worker.run_id = job.run_id
        worker.runtime = self.core.runtime
        worker.sink = target
        worker.suspended = False
        worker.lease_lost = False
        worker.done = asyncio.Event()
        if job.run_id:
            self.core.run_threads[job.run_id] = worker.thread_id
        self.core.hubs.open(job.run_id or job.job_id, worker.thread_id)
        task = asyncio.create_task(
            self._execute(worker, job, writer, planned), name=f"awaken-job-{job.job_id}"
        )
        worker.task = task
        return task

    async def _execute(
        self,
        worker: ThreadWorker,
        job: MailboxJob,
        writer: JobCheckpointWriter,
        planned: RunPlan | None,
    ) -> None:
        run_id = job.run_id or job.job_id
        hub = self.core.hubs.open(run_id, worker.thread_id)
        await self._number_from_journal(hub, run_id, planned is not None and planned.new_run)
        job_sink = JobSink(
            worker,
            hub,
            worker.sink or ReconnectableEventSink(),
            self.core.metrics,
            on_park_change=lambda: self._extend_lease(worker, job.job_id, writer.claim_token),
        )
        renewal = self._lease_renewals().start(lambda: self._renew(worker, job.job_id, writer))
        started = time.monotonic()
        if self.core.metrics is not None:
            self.core.metrics.active_runs.inc()
            self.core.metrics.runs_started.inc()
        try:
            await self._run_job(worker, job, writer, run_id, job_sink, planned)
        except JobNotClaimed:
            pass  # the thread was busy after all: nothing was written, nothing to settle
        except asyncio.CancelledError:
            # Shutdown: the job stays Claimed; its lease expires and a sweep re-runs it.
            if self.core.accepting:
                asyncio.get_running_loop().call_soon(self._schedule_dispatch, worker.thread_id)
            raise
        except Exception:
            _log.exception("mailbox job %s failed unexpectedly", job.job_id)
        finally:
            renewal.cancel()
            if self.core.metrics is not None:
                self.core.metrics.active_runs.dec()
                self.core.metrics.run_duration.observe(time.monotonic() - started)
            worker.state = WorkerState.IDLE
            worker.job_id = None
            worker.sink = None
            worker.task = None
            worker.done.set()
            writer.abandon()
            self.core.run_threads.pop(run_id, None)
            hub.close()
        # The thread's next queued job (if any) is claimed from this task, not one of its own;
        # first whoever the job's end woke (an interrupt waiting to submit) goes.
        await asyncio.sleep(0)
        if self.core.accepting:
            try:
                await self.try_dispatch(worker.thread_id)
            except Exception:  # (never the ended job's failure: whoever awaits it goes on)
                _log.exception("dispatch after job %s failed", job.job_id)

    async def _number_from_journal(self, hub: RunEventHub, run_id: str, new_run: bool) -> None:
        """SSE ids of this attempt continue the run journal's seqs (the loop journals every
        event it emits, in order; a new run's journal is empty)."""
        store = self.core.run_store
        if isinstance(store, JournaledThreadRunStore):
            if new_run:
                hub.rebase(1)
                return
            try:
                hub.rebase(await store.last_seq(run_id) + 1)
            except Exception:
                _log.warning("journal of run %s unreadable; SSE ids from 0", run_id, exc_info=True)

    def _schedule_dispatch(self, thread_id: str) -> None:
        if self.core.accepting:
            task = asyncio.ensure_future(self.try_dispatch(thread_id))
            self.core.background.add(task)
            task.add_done_callback(self.core.background.discard)

    async def _run_job(
        self,
        worker: ThreadWorker,
        job: MailboxJob,
        writer: JobCheckpointWriter,
        run_id: str,
        sink: JobSink,
        planned: RunPlan | None = None,
    ) -> None:
        token: str | None
        # Claims record the start of execution in the same transaction (``start``): the job
        # is this attempt's from here on, with no interrupt in between. A job claimed without
        # ``start`` records it now (a stale or lost claim is superseded, not run).
        instance_id = job.dispatch_instance_id
        if instance_id is None or job.run_status is not RunStatus.RUNNING:
            instance_id = new_id()
            try:
                await self.core.store.record_job_start(
                    job.job_id, writer.claim_token, instance_id, now_ms()
                )
            except VersionConflict:
                await self.core.reconcile_run(run_id, TerminationReason.cancelled(), own_job=True)
                return
        try:
            request, record = await self._request_for(job, run_id, instance_id, planned)
        except _Permanent as exc:
            if (token := await writer.settle_token()) is not None:
                await self._finish(job, token, "dead_letter", str(exc), sink, run_id, instance_id)
            return
        if request is None:  # the run already finished (or parked) before a crash lost the ack
            assert record is not None
            if (token := await writer.settle_token()) is None:
                return
            settled = MailboxRunResult(
                run_id=run_id,
                dispatch_instance_id=instance_id,
                status=record.status,
                termination=record.termination_reason,
            )
            await self._ack(job, token, settled)
            return
        _log.info(
            "job start job_id=%s run_id=%s thread_id=%s consumer=%s attempt=%d",
            job.job_id,
            run_id,
            job.mailbox_id,
            self.core.consumer_id,
            job.attempt_count,
        )
        runtime = worker.runtime or self.core.runtime
        writer.final_result = lambda termination, response: self._final_result(
            sink, run_id, instance_id, termination, response
        )
        request.checkpoint_writer = writer
        try:
            result = await runtime.run(request, sink)
        except AwakenError as exc:
            if (token := await writer.settle_token()) is None:
                return
            # Retryable errors are retried with backoff; a loop error that cannot be retried
            # already ended (and reported) the run; anything else can never succeed.
            if exc.retryable:
                outcome = "nack"
            elif isinstance(exc, AgentLoopError):
                outcome = "ack"
            else:
                outcome = "dead_letter"
            await self._finish(job, token, outcome, str(exc), sink, run_id, instance_id)
            return
        except Exception as exc:
            _log.exception("run %s raised", run_id)
            if (token := await writer.settle_token()) is None:
                return
            await self._finish(
                job, token, "nack", f"{type(exc).__name__}: {exc}", sink, run_id, instance_id
            )
            return
        if writer.acked:  # the run's final checkpoint completed the job
            self.core.count("ack", "ok")
            return
        if (token := await writer.settle_token()) is None:
            return
        termination = result.termination
        done = self._final_result(sink, run_id, instance_id, termination, result.response)
        if done is None:
            # The store failed under the run: an infrastructure failure, retried with backoff.
            message = termination.message or "storage error"
            await self._finish(job, token, "nack", message, sink, run_id, instance_id)
            return
        await self._ack(job, token, done)

    @staticmethod
    def _final_result(
        sink: JobSink,
        run_id: str,
        instance_id: str,
        termination: TerminationReason,
        response: str,
    ) -> MailboxRunResult | None:
        """The result a run's final checkpoint acks the job with; ``None`` when the run's
        outcome is not an ack (a transient storage failure is retried: nack)."""
        if termination.type is TerminationKind.ERROR and sink.error_code in TRANSIENT_ERROR_CODES:
            return None
        return MailboxRunResult(
            run_id=run_id,
            dispatch_instance_id=instance_id,
            status=RunStatus.DONE,
            termination=termination,
            response=response,
        )

    async def _request_for(
        self, job: MailboxJob, run_id: str, instance_id: str, planned: RunPlan | None = None
    ) -> tuple[RunRequest | None, RunRecord | None]:
        """Rebuild the runtime request from the durable job and run record (``None`` for
        the request when there is nothing to run), with the record as read (a run
        ``planned`` as new has none yet; nor has a thread planned as new anything stored).

        The plan made at submission is the job's agent and run id; this attempt resumes that
        run once an earlier attempt (or the submission) started it, and starts a new run
        only when the planned one ended meanwhile."""
        try:
            extras: JobExtras = extras_of(job.request_extras)
        except Exception as exc:
            raise _Permanent(f"cannot rebuild the run request: {exc}") from exc
        new_run = planned is not None and planned.new_run
        new_thread = planned is not None and planned.new_thread
        record = None if new_run else await self.core.run_store.load_run(run_id)
        continuation = record is not None and record.status is not RunStatus.CREATED
        if (
            record is not None
            and record.status is RunStatus.WAITING
            and record.dispatch_id == job.job_id
            and not extras.decisions
        ):
            # This activation already parked the run durably (its process died while waiting
            # for a human): nothing to redo; the decision arrives as its own job.
            return None, record
        # Input an earlier attempt already wrote is recognised by the runtime (by message
        # id); whether it was consumed matters here only for a run that ended meanwhile.
        if record is not None and record.status is RunStatus.DONE:
            if record.dispatch_id == job.job_id or await self._input_persisted(job):
                return None, record  # its input was consumed before a crash lost the ack
            # The run this job meant to continue ended meanwhile: start a new one.
            run_id, continuation, record, new_run = new_id(), False, None, True
        plan = RunPlan(
            agent_id=job.agent_id,
            run_id=run_id,
            resumes=continuation,
            record=record,
            record_read=True,
            new_thread=new_thread and not continuation,
            new_run=new_run and not continuation,
        )
        request = build_request(
            thread_id=job.mailbox_id,
            plan=plan,
            messages=job.messages,
            origin=job.origin,
            extras=extras,
            parent_run_id=job.parent_run_id,
            dispatch_id=job.job_id,
            session_id=instance_id,
        )
        return request, record

    async def _input_persisted(self, job: MailboxJob) -> bool:
        """Every input message of ``job`` is already in the thread's log."""
        if not job.messages:
            return False
        log = await self.core.run_store.load_messages(job.mailbox_id) or []
        return {m.id for m in job.messages} <= {m.id for m in log}

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
        if self.core.metrics is not None:
            self.core.metrics.errors.labels(outcome).inc()
        result = MailboxRunResult(
            run_id=run_id,
            dispatch_instance_id=instance_id,
            status=RunStatus.DONE,
            termination=TerminationReason.error(error),
            error=error,
        )
        if outcome == "ack":
            await self._ack(job, token, result)
            return
        # (best effort: the job is settled below whether or not the result is recorded)
        with contextlib.suppress(Exception):
            await self.core.store.record_run_result(job.job_id, token, result, now_ms())
        try:
            if outcome == "nack":
                retry_at = now_ms() + self.core.config.retry_delay(job.attempt_count)
                settled = await self.core.store.nack(job.job_id, token, retry_at, error, now_ms())
                self.core.count("nack", "ok")
                if settled.status is MailboxJobStatus.DEAD_LETTER:
                    await self.core.reconcile_run(
                        run_id, TerminationReason.error(error), own_job=True
                    )
            else:
                await self.core.store.dead_letter(job.job_id, token, error, now_ms())
                self.core.count("dead_letter", "ok")
                await self.core.reconcile_run(run_id, TerminationReason.error(error), own_job=True)
        except VersionConflict:
            self.core.count(outcome, "superseded")

    async def _ack(
        self, job: MailboxJob, token: str, result: MailboxRunResult | None = None
    ) -> None:
        try:
            await self.core.store.ack(job.job_id, token, now_ms(), result=result)
            self.core.count("ack", "ok")
        except VersionConflict:
            # Superseded (interrupt) or the lease was lost: nothing left to settle.
            self.core.count("ack", "superseded")

    async def _renew(self, worker: ThreadWorker, job_id: str, writer: JobCheckpointWriter) -> bool:
        """One lease renewal (``False``: stop renewing); a deferred claim that has not
        committed yet has no lease to renew so far."""
        if not writer.claimed.done():
            return True
        if writer.not_claimed:
            return False
        return await self._extend_lease(worker, job_id, writer.claim_token)

    async def _extend_lease(self, worker: ThreadWorker, job_id: str, token: str) -> bool:
        """Extend the job's lease by the running or, while parked, the suspended length.

        Called by the job's ``LeaseRenewal`` and at once when the run parks or resumes;
        ``False`` when renewing should stop (the lease is lost — the run is cancelled — or the
        store failed).
        """
        extension = (
            self.core.config.suspended_lease_ms if worker.suspended else self.core.config.lease_ms
        )
        try:
            ok = await self.core.store.extend_lease(job_id, token, extension, now_ms())
        except Exception:
            _log.warning("lease renewal of job %s failed; run continues", job_id, exc_info=True)
            return False
        if not ok:
            worker.lease_lost = True
            if worker.run_id is not None and worker.runtime is not None:
                worker.runtime.cancel(worker.run_id)
            return False
        return True
