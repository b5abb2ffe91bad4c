"""Submitting runs: every submission becomes a durable job under a :class:`RunPlan`.

Foreground submits interrupt the thread first (new input wins) and claim their job inline;
background submits queue behind the thread's work. Decisions go to the live run in this
process, else become a durable resume job; steering hands messages to the running run.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import time
from dataclasses import dataclass

from awaken_contract.contract.checkpoint_writer import JobClaim
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.mailbox import MailboxJob
from awaken_contract.contract.run_plan import RunPlan, find_waiting_run
from awaken_contract.contract.storage import RunDecision, RunRecord, RunRequestSnapshot
from awaken_contract.contract.suspension import ToolCallResume
from awaken_contract.errors import AlreadyExists
from awaken_contract.ids import new_id, now_ms, now_secs

from awaken_server.errors import BadRequest, Conflict
from awaken_server.mailbox.control import RunControl
from awaken_server.mailbox.core import MailboxCore
from awaken_server.mailbox.execute import JobRunner
from awaken_server.mailbox.job_checkpoints import JobCheckpointWriter, rides_checkpoints
from awaken_server.mailbox.sink import ReconnectableEventSink
from awaken_server.mailbox.submission import RunSubmission, extras_to_builtins
from awaken_server.mailbox.worker import ThreadWorker, WorkerState
from awaken_server.sse import RunEventHub

__all__ = ["THREAD_BUSY", "SubmitHandle", "SubmitResult", "SubmitStatus", "Submitter"]


async def _claimed(writer: JobCheckpointWriter) -> bool:
    """Wait until the run's first checkpoint committed its job's claim (True) or the thread
    turned out busy (False); a run that ends before it checkpoints claims on its own, and
    its job's end resolves the claim in any case (``JobCheckpointWriter.abandon``)."""
    return await writer.claimed is not None


_log = logging.getLogger("awaken.mailbox")

THREAD_BUSY = "thread has an active run; cannot claim inline"


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


class Submitter:
    """Turns submissions into durable jobs: plans the run, enqueues, claims inline
    (foreground) or hands over to dispatch (background); delivers decisions and steering."""

    def __init__(self, core: MailboxCore, runner: JobRunner, control: RunControl) -> None:
        self.core = core
        self.runner = runner
        self.control = control

    async def submit(
        self, submission: RunSubmission, *, sink: EventSink | None = None
    ) -> SubmitHandle:
        """Foreground submit: interrupt the thread, enqueue, claim inline and start the run.

        An idle thread (no job queued or claimed, here or in another process) needs no
        interrupt: the job is enqueued, claimed and started in one store transaction.
        Events go to the run's replay hub (``handle.hub``) and, when given, to ``sink`` (through
        a :class:`ReconnectableEventSink`, see :meth:`reconnect_sink`). Raises
        :class:`Conflict` when the thread's active run cannot be released.
        """
        self.core.check_accepting()
        thread_id = self._validate(submission)
        if self.core.worker_state(thread_id) is WorkerState.IDLE:
            planned_continuation = submission.continue_run_id
            # (a thread id minted just now names a thread without runs: nothing to look up)
            new_thread = thread_id != (submission.thread_id or "").strip()
            handle = await self._start_inline(
                thread_id, submission, sink, if_idle=True, new_thread=new_thread
            )
            if handle is not None:
                return handle
            submission.continue_run_id = planned_continuation  # plan again after the interrupt
        released = await self.control.interrupt_and_wait(thread_id)
        if not released:
            raise Conflict(THREAD_BUSY)
        handle = await self._start_inline(thread_id, submission, sink, if_idle=False)
        if handle is None:
            raise Conflict(THREAD_BUSY)
        return handle

    async def _start_inline(
        self,
        thread_id: str,
        submission: RunSubmission,
        sink: EventSink | None,
        *,
        if_idle: bool,
        new_thread: bool = False,
    ) -> SubmitHandle | None:
        """Plan, enqueue, claim and start the run on this process's idle worker; ``None``
        when the store has other work for the thread (``if_idle``) or a claimed job."""
        worker = await self._reserve_worker(thread_id)
        writer: JobCheckpointWriter | None = None
        try:
            plan = await self._prepare_run(
                thread_id, submission, background=False, new_thread=new_thread
            )
            run_id = plan.run_id
            now = now_ms()
            job = self._new_job(thread_id, plan, submission, background=False, now=now)
            # (a store that enqueues and claims in two steps must not let a dispatcher win)
            job.available_at = now + self.core.config.inline_claim_guard_ms
            claim = JobClaim(
                job,
                self.core.consumer_id,
                self.core.config.lease_ms,
                now,
                start=new_id(),
                claim_token=new_id(),
                if_idle=if_idle,
            )
            claimed: MailboxJob | None
            if self._claim_rides_checkpoint():
                # The run's first checkpoint commits the claim (ADR 0028).
                writer = JobCheckpointWriter.deferred(self.core.store, claim)
                claimed = claim.claimed_job()
            else:
                claimed = await self.core.store.enqueue_claimed(
                    job, claim.consumer, claim.lease_ms, now, start=claim.start, if_idle=if_idle
                )
        except BaseException:
            worker.state = WorkerState.IDLE
            raise
        if claimed is not None:
            target = ReconnectableEventSink(sink)
            hub = self.core.hubs.open(run_id, thread_id)
            # Hold the native hub's frames for the HTTP response that is about to read them
            # (a caller with its own sink reads that sink instead, so nothing is reserved).
            reservation = hub.reserve() if sink is None else None
            task = self.runner.start_job(worker, claimed, target, writer, planned=plan)
            if writer is None or await _claimed(writer):
                return SubmitHandle(
                    claimed.job_id, run_id, thread_id, hub, task, target, reservation
                )
            if reservation is not None:
                hub.release(reservation)
            await task  # abandoned before it wrote anything: the worker is idle again
        else:
            worker.state = WorkerState.IDLE  # (an ended task left its worker idle — or busy
            # with the thread's next job, which the task dispatched as it ended)
        if not if_idle and plan.resumes:
            await self.core.reconcile_run(run_id, TerminationReason.cancelled())
        return None

    def _claim_rides_checkpoint(self) -> bool:
        """The job's claim can commit with its run's first checkpoint: the runtime checkpoints
        into the mailbox's run store, which claims jobs of this mailbox atomically."""
        store = self.core.run_store
        return self.core.runtime.thread_run_store is store and rides_checkpoints(
            store, self.core.store
        )

    async def _reserve_worker(self, thread_id: str) -> ThreadWorker:
        """Take this process's worker of the thread for an inline claim (state Claiming);
        a concurrent claim attempt is waited out briefly, a running job is a conflict."""
        worker = self.core.worker(thread_id)
        if worker.state is WorkerState.CLAIMING:
            deadline = time.monotonic() + self.core.config.cancel_wait.total_seconds()
            while worker.state is WorkerState.CLAIMING and time.monotonic() < deadline:  # noqa: ASYNC110 - a claim takes one store round trip
                await asyncio.sleep(0.005)
        if worker.state is not WorkerState.IDLE:
            raise Conflict(THREAD_BUSY)
        worker.state = WorkerState.CLAIMING
        return worker

    async def submit_background(self, submission: RunSubmission) -> SubmitResult:
        """Background submit: enqueue behind the thread's active work (no interrupt)."""
        self.core.check_accepting()
        thread_id = self._validate(submission)
        plan = await self._prepare_run(thread_id, submission, background=True)
        job = self._new_job(thread_id, plan, submission, background=True, now=now_ms())
        stored = await self.core.store.enqueue(job)
        self.core.count("enqueue", "ok")
        started = await self.runner.try_dispatch(thread_id)
        status = SubmitStatus.RUNNING if started else SubmitStatus.QUEUED
        self.core.wake.set()
        return SubmitResult(status, stored.job_id, plan.run_id, thread_id)

    async def submit_live_then_queue(
        self, submission: RunSubmission, expected_run_id: str | None = None
    ) -> SubmitResult:
        """Steer: hand the messages to the thread's running run, else queue them durably."""
        thread_id = self._validate(submission)
        worker = self.core.workers.get(thread_id)
        if (
            worker is not None
            and worker.state is WorkerState.RUNNING
            and worker.run_id is not None
            and (expected_run_id is None or expected_run_id == worker.run_id)
            and worker.runtime is not None
            and worker.runtime.send_messages(worker.run_id, submission.messages)
        ):
            return SubmitResult(SubmitStatus.RUNNING, worker.job_id or "", worker.run_id, thread_id)
        return await self.submit_background(submission)

    async def decide(
        self, id: str, tool_call_id: str, resume: ToolCallResume, *, thread_scoped: bool = False
    ) -> str | None:
        """Deliver a decision: to the live run in this process, else as a durable resume job.

        ``id`` is a run id (or a thread id when ``thread_scoped``). Returns the run id the
        decision went to, or ``None`` when no waiting run has that call."""
        worker = self.core.local_worker(id)
        if (
            worker is not None
            and worker.run_id is not None
            and worker.runtime is not None
            and worker.runtime.send_decision(worker.run_id, tool_call_id, resume)
        ):
            return worker.run_id
        run: RunRecord | None
        if thread_scoped:
            run = await find_waiting_run(self.core.run_store, id)
        else:
            run = await self.core.run_store.load_run(id)
        if run is None or not run.is_resumable_waiting():
            return None
        if tool_call_id not in run.decision_targets():
            return None
        submission = RunSubmission(
            thread_id=run.thread_id,
            agent_id=run.agent_id,
            decisions=[(tool_call_id, resume)],
            continue_run_id=run.run_id,
        )
        await self.submit_background(submission)
        return run.run_id

    def reconnect_sink(self, thread_id: str, sink: EventSink) -> bool:
        """Send the live run's later events on ``thread_id`` to ``sink`` (book: SSE reconnect).

        True only if this process runs the thread right now."""
        worker = self.core.local_worker(thread_id)
        if worker is None or worker.sink is None:
            return False
        worker.sink.reconnect(sink)
        return True

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
        self,
        thread_id: str,
        submission: RunSubmission,
        *,
        background: bool,
        new_thread: bool = False,
    ) -> RunPlan:
        """Plan the run: the agent, the run id (continue a waiting run, honour hints, else
        new); create the durable run record (status ``created``) for new background runs
        (a foreground run is claimed at once and its first checkpoint writes the record —
        before its ``run_start`` is sent). A ``new_thread`` has no runs to look at.

        A foreground plan says what was minted just now (``new_thread``: the thread id;
        ``new_run``: the run id): the job starts at once, so nothing can be stored under them
        and its run reads nothing there."""
        store = self.core.run_store
        latest = None if new_thread else await store.latest_run(thread_id)
        agent_id = (submission.agent_id or "").strip()
        if not agent_id and latest is not None and latest.status is not RunStatus.CREATED:
            agent_id = latest.agent_id.strip()
        if not agent_id:
            agent_id = self.core.default_agent_id

        if submission.continue_run_id:
            return RunPlan(agent_id=agent_id, run_id=submission.continue_run_id, resumes=True)
        if not submission.run_id_hint and not new_thread:
            waiting = await find_waiting_run(store, thread_id, latest)
            if waiting is not None:
                submission.continue_run_id = waiting.run_id
                return RunPlan.resume(waiting, (submission.agent_id or "").strip())
        run_id = submission.run_id_hint or new_id()
        if background:
            with contextlib.suppress(AlreadyExists):
                await self.core.run_store.create_run(
                    self._created_record(thread_id, run_id, agent_id, submission)
                )
            return RunPlan(agent_id=agent_id, run_id=run_id)
        return RunPlan(
            agent_id=agent_id,
            run_id=run_id,
            new_thread=new_thread,
            new_run=not submission.run_id_hint,
        )

    @staticmethod
    def _created_record(
        thread_id: str, run_id: str, agent_id: str, submission: RunSubmission
    ) -> RunRecord:
        """The record of a queued run (status ``created``)."""
        now = now_secs()
        return RunRecord(
            run_id=run_id,
            thread_id=thread_id,
            agent_id=agent_id,
            parent_run_id=submission.parent_run_id,
            request=RunRequestSnapshot(
                origin=submission.origin,
                input_message_ids=[m.id for m in submission.messages if m.id],
                input_message_count=len(submission.messages),
                request_extras=extras_to_builtins(
                    submission.extras(submission.run_mode(background=True))
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
            user_id=submission.user_id,
        )

    def _new_job(
        self,
        thread_id: str,
        plan: RunPlan,
        submission: RunSubmission,
        *,
        background: bool,
        now: int,
    ) -> MailboxJob:
        extras = submission.extras(submission.run_mode(background=background))
        job = MailboxJob.new(
            thread_id,
            messages=list(submission.messages),
            agent_id=plan.agent_id,
            run_id=plan.run_id,
            max_attempts=self.core.config.default_max_attempts,
            origin=submission.origin,
            request_extras=extras_to_builtins(extras),
            now=now,
        )
        job.parent_run_id = submission.parent_run_id
        return job
