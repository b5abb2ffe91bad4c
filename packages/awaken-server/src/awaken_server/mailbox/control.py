"""Run control: interrupt a thread (supersede its queued jobs, cancel its run) and cancel by id."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.mailbox import MailboxInterrupt, MailboxJob, MailboxJobStatus
from awaken_contract.ids import now_ms

from awaken_server.mailbox.core import MailboxCore
from awaken_server.mailbox.worker import WorkerState

__all__ = ["RunControl"]

_log = logging.getLogger("awaken.mailbox")


class RunControl:
    """Interrupts and cancels: a thread's queued jobs and the run it executes (here or in
    another process)."""

    def __init__(self, core: MailboxCore) -> None:
        self.core = core

    async def interrupt(self, thread_id: str) -> MailboxInterrupt:
        """Bump the thread's generation, supersede its queued jobs (their runs → cancelled) and
        cancel the active job's run without waiting."""
        result = await self.core.store.interrupt(thread_id, now_ms())
        for job in result.superseded_jobs:
            if job.run_id:
                await self.core.reconcile_run(job.run_id, TerminationReason.cancelled())
        if result.active_job is not None:
            worker = self.core.workers.get(thread_id)
            if worker is not None and worker.state is WorkerState.RUNNING and worker.run_id:
                self.core.cancel_live(worker)
        return result

    async def interrupt_and_wait(self, thread_id: str) -> bool:
        """Interrupt the thread and wait (bounded) until no job of it is Claimed."""
        deadline = time.monotonic() + self.core.config.cancel_wait.total_seconds()
        active: MailboxJob | None = None
        try:
            active = (await self.interrupt(thread_id)).active_job
        except Exception:
            _log.warning("store interrupt failed; cancelling the thread's run", exc_info=True)
            await self.core.runtime.cancel_and_wait_by_thread(thread_id)
        # The run may be released by the runtime while this process's worker still settles its
        # job (result, ack): the thread is free only once the worker is idle.
        worker = self.core.workers.get(thread_id)
        if worker is not None and worker.state is WorkerState.RUNNING and worker.run_id:
            self.core.cancel_live(worker)
        while worker is not None and worker.state is not WorkerState.IDLE:
            if time.monotonic() >= deadline:
                return False
            if worker.done.is_set():  # between jobs (claiming the next one)
                await asyncio.sleep(0.01)
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(worker.done.wait(), 0.05)
        while active is not None:
            current = await self.core.store.load(active.job_id)
            if current is None or current.status is not MailboxJobStatus.CLAIMED:
                break
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.025)
        return True

    async def cancel(self, id: str) -> bool:
        """Cancel by job id, run id or thread id (spec mailbox §5.5)."""
        job = await self.core.store.load(id)
        if job is not None and job.status is MailboxJobStatus.QUEUED:
            cancelled = await self.core.store.cancel(id, now_ms())
            if cancelled is not None:
                if cancelled.run_id:
                    await self.core.reconcile_run(cancelled.run_id, TerminationReason.cancelled())
                return True
        worker = self.core.local_worker(id)
        if worker is not None and self.core.cancel_live(worker):
            return True
        if job is not None and job.run_id:
            id = job.run_id
        run = await self.core.run_store.load_run(id)
        if run is None:
            run = await self.core.run_store.latest_run(id)
        if run is None or run.status is RunStatus.DONE:
            return False
        worker = self.core.local_worker(run.thread_id)
        if worker is not None and worker.run_id == run.run_id:
            return self.core.cancel_live(worker)
        held = await self.core.store.list(run.thread_id, [MailboxJobStatus.CLAIMED], 1, 0)
        if held and held[0].run_id == run.run_id:
            # Executing in another process: superseding its job makes that worker's next lease
            # renewal fail, which cancels the run there.
            await self.interrupt(run.thread_id)
            return True
        if run.status is RunStatus.WAITING:
            # Parked with no live process: cancelling ends it (book).
            await self.core.reconcile_run(run.run_id, TerminationReason.cancelled())
            return True
        return False
