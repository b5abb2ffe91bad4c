"""Mailbox maintenance: startup recovery, graceful drain, lease sweep, dispatch and GC loops.

A sweep reclaims expired leases, so the job of a crashed process is re-run by another (or the
restarted) one; the dispatcher picks up work queued by other processes; GC purges finished
jobs, idle workers and old replay buffers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from awaken_contract.contract.journal import JournaledThreadRunStore
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_contract.contract.mailbox import MailboxJob, MailboxJobStatus
from awaken_contract.ids import now_ms

from awaken_server.mailbox.core import MailboxCore
from awaken_server.mailbox.execute import JobRunner
from awaken_server.mailbox.submission import extras_of
from awaken_server.mailbox.worker import ThreadWorker, WorkerState

__all__ = ["Maintenance"]

_log = logging.getLogger("awaken.mailbox")


class Maintenance:
    """Start (recovery + loops) and stop (drain); sweep expired leases, dispatch queued work,
    purge finished jobs."""

    def __init__(self, core: MailboxCore, runner: JobRunner) -> None:
        self.core = core
        self.runner = runner
        self._maintenance: list[asyncio.Task[None]] = []
        self._started = False

    async def start(self) -> None:
        """Recover (reclaim expired leases, dispatch queued work) and start maintenance loops."""
        if self._started:
            return
        self._started = True
        self.core.accepting = True
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
        self.core.accepting = False
        for task in self._maintenance:
            task.cancel()
        for task in self._maintenance:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._maintenance = []
        # A run parked on a human decision would wait forever: stop it now (its durable state
        # stays "waiting" and a decision after restart resumes it from the checkpoint).
        parked = [w for w in self.core.workers.values() if w.suspended and w.task is not None]
        for worker in parked:
            job_id, token, parked_task = worker.job_id, worker.claim_token, worker.task
            if parked_task is None:
                continue
            parked_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await parked_task
            if job_id and token:
                with contextlib.suppress(Exception):
                    await self.core.store.ack(job_id, token, now_ms())
        running = {
            w.task: (w.job_id, w.claim_token)
            for w in self.core.workers.values()
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
                        await self.core.store.nack(
                            job_id, token, now_ms(), "server shut down mid-run", now_ms()
                        )
        self._started = False

    async def recover(self) -> None:
        """Startup recovery: take back the claims this instance's identity held in its previous
        life (they are orphans now: no need to wait for their leases), reclaim expired leases,
        then dispatch every thread with queued work."""
        own = await self.core.store.reclaim_claims_of(self.core.consumer_id, now_ms(), 1000)
        if own:
            _log.info("reclaimed %d claim(s) of this instance's previous run", len(own))
        await self._requeued(own)
        await self.sweep()
        await self.dispatch_queued()

    async def sweep(self) -> int:
        """Reclaim expired leases (a crashed worker's jobs become Queued again or dead)."""
        reclaimed = await self.core.store.reclaim_expired_leases(now_ms(), 100)
        await self._requeued(reclaimed)
        return len(reclaimed)

    async def _requeued(self, reclaimed: list[MailboxJob]) -> None:
        for job in reclaimed:
            self.core.count("reclaim", "ok")
            if job.status is MailboxJobStatus.DEAD_LETTER and job.run_id:
                await self.core.reconcile_run(job.run_id, TerminationReason.error("dead letter"))
            elif job.status is MailboxJobStatus.QUEUED:
                # Re-run at once, even if it still carries a foreground claim guard.
                await self.runner.dispatch_job(job)
        if reclaimed:
            self.core.wake.set()

    async def dispatch_queued(self) -> int:
        """Try dispatch for every thread with Queued jobs; deliver decisions to live runs."""
        started = 0
        for thread_id in await self.core.store.queued_mailbox_ids():
            worker = self.core.workers.get(thread_id)
            if worker is not None and worker.state is WorkerState.RUNNING:
                await self._deliver_queued_decisions(worker)
                continue
            if await self.runner.try_dispatch(thread_id):
                started += 1
        if self.core.metrics is not None:
            with contextlib.suppress(Exception):
                depth = await self.core.store.count_by_status(MailboxJobStatus.QUEUED)
                self.core.metrics.mailbox_depth.set(depth)
        return started

    async def _deliver_queued_decisions(self, worker: ThreadWorker) -> None:
        """A decision queued durably (e.g. by another process) for a run this process is
        holding live: take the job back and hand the decision to the live run."""
        if not worker.suspended or worker.run_id is None:
            return
        queued = await self.core.store.list(worker.thread_id, [MailboxJobStatus.QUEUED], 20, 0)
        for job in queued:
            extras = extras_of(job.request_extras)
            if job.messages or not extras.decisions or extras.continue_run_id != worker.run_id:
                continue
            if await self.core.store.cancel(job.job_id, now_ms()) is None:
                continue
            for call_id, resume in extras.decisions:
                if worker.runtime is not None:
                    worker.runtime.send_decision(worker.run_id, call_id, resume)

    async def gc(self) -> int:
        """Purge finished jobs older than ``gc_ttl``, idle workers and old replay buffers, and
        prune finished runs by ``config.retention``."""
        cutoff = now_ms() - int(self.core.config.gc_ttl.total_seconds() * 1000)
        purged = await self.core.store.purge_terminal(cutoff)
        retention = self.core.config.retention
        run_store = self.core.run_store
        if retention.is_enabled and isinstance(run_store, JournaledThreadRunStore):
            await run_store.prune(retention)
        for thread_id in [t for t, w in self.core.workers.items() if w.state is WorkerState.IDLE]:
            del self.core.workers[thread_id]
        self.core.hubs.purge(self.core.config.replay_buffer_ttl.total_seconds())
        return purged

    async def _dispatch_loop(self) -> None:
        poll = self.core.config.poll_interval.total_seconds()
        while True:
            try:
                await self.dispatch_queued()
            except asyncio.CancelledError:
                raise
            except Exception:
                _log.warning("dispatch pass failed", exc_info=True)
            self.core.wake.clear()
            waiter = asyncio.ensure_future(self.core.wake.wait())
            store_wait = asyncio.ensure_future(self.core.store.wait_for_work(poll))
            try:
                await asyncio.wait(
                    {waiter, store_wait}, timeout=poll * 2, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                waiter.cancel()
                store_wait.cancel()

    async def _periodic(
        self, interval: float, action: Callable[[], Awaitable[int]], name: str
    ) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                await action()
            except asyncio.CancelledError:
                raise
            except Exception:
                _log.warning("mailbox %s failed", name, exc_info=True)

    async def _sweep_loop(self) -> None:
        await self._periodic(self.core.config.sweep_interval.total_seconds(), self.sweep, "sweep")

    async def _gc_loop(self) -> None:
        await self._periodic(self.core.config.gc_interval.total_seconds(), self.gc, "gc")
