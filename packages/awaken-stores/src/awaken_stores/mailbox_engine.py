"""The mailbox state machine, written once for every backend.

A backend only provides a *mailbox transaction*: under its lock (asyncio lock, file lock, SQLite
``BEGIN IMMEDIATE``, PostgreSQL row lock) it loads one mailbox's generation and its non-terminal
jobs (plus one job asked for by id), lets the engine change them, and writes back what changed.
Everything else — claims, tokens, staleness, retries, interrupts — lives here.
"""

from __future__ import annotations

import asyncio
import functools
from abc import abstractmethod
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TypeVar

import msgspec
from awaken_contract.contract.mailbox import (
    MailboxInterrupt,
    MailboxJob,
    MailboxJobList,
    MailboxJobStatus,
    MailboxRunResult,
    MailboxStore,
)
from awaken_contract.errors import AlreadyExists, StorageError, StorageNotFound, VersionConflict
from awaken_contract.ids import new_id

from awaken_stores._mailbox_txn import (
    MailboxTxn,
    accepting,
    clear_claim,
    end_attempt,
    started,
    with_result,
)

__all__ = ["MailboxEngine", "MailboxTxn", "TransactionApply", "wait_for_wakeup"]

T = TypeVar("T")

_QUEUED = MailboxJobStatus.QUEUED
_CLAIMED = MailboxJobStatus.CLAIMED
_FOREVER = 2**62  # a lease horizon no claim reaches


async def wait_for_wakeup(wakeup: asyncio.Event, wait_seconds: float) -> None:
    """Wait until ``wakeup`` is set or ``wait_seconds`` pass, then clear it (a mailbox's
    ``wait_for_work`` on its in-process wake-up event)."""
    try:
        await asyncio.wait_for(wakeup.wait(), wait_seconds)
    except TimeoutError:
        return
    finally:
        wakeup.clear()


class MailboxEngine(MailboxStore):
    """Implements every state-changing ``MailboxStore`` operation over backend transactions."""

    # ------------------------------------------------------------------ backend primitives
    @abstractmethod
    async def _apply(
        self,
        mailbox_id: str,
        job_id: str | None,
        change: Callable[[MailboxTxn], T],
        *,
        claiming: bool = False,
    ) -> T:
        """``change(txn)`` (synchronous) in one mailbox transaction, committed unless it raises.

        The transaction locks the mailbox and loads its generation, non-terminal jobs and job
        ``job_id`` (if it belongs to the mailbox); on normal exit it persists
        ``txn.generation`` and the changed jobs. ``claiming``: the transaction of a claim
        (a backend may skip a locked mailbox, see :meth:`MailboxTxn.busy_marker`). Backends
        with a transaction context manager get this from :class:`TransactionApply`."""

    @abstractmethod
    async def _mailbox_of(self, job_id: str) -> str | None:
        """The mailbox id of a job, or ``None`` when unknown."""

    @abstractmethod
    async def _expired_candidates(self, now: int, limit: int) -> list[tuple[str, str]]:
        """``(job_id, mailbox_id)`` of Claimed jobs with ``lease_until < now``, up to ``limit``."""

    async def _may_have_queued(self, mailbox_id: str) -> bool:
        """False only when the mailbox surely holds no Queued job: :meth:`claim` then answers
        without a transaction (a job queued just after is one queued just after the claim).
        Backends override it with a read cheaper than a transaction."""
        return True

    async def _work_available(self, mailbox_id: str) -> None:
        """Hook called after a job became claimable (wake-up of waiting workers)."""
        return None

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _supersede(txn: MailboxTxn, job: MailboxJob, now: int, reason: str) -> MailboxJob:
        return txn.put(
            clear_claim(
                job,
                status=MailboxJobStatus.SUPERSEDED,
                completed_at=now,
                updated_at=now,
                last_error=reason,
                generation=max(job.generation, txn.generation),
            )
        )

    @staticmethod
    def _is_stale(txn: MailboxTxn, job: MailboxJob) -> bool:
        return job.generation < txn.generation

    @staticmethod
    def _claim_one(
        txn: MailboxTxn,
        job: MailboxJob,
        token: str,
        consumer: str,
        lease_ms: int,
        now: int,
        start: str | None = None,
    ) -> MailboxJob:
        claimed = msgspec.structs.replace(
            job,
            status=_CLAIMED,
            claim_token=token,
            claimed_by=consumer,
            lease_until=now + lease_ms,
            updated_at=now,
        )
        return txn.put(claimed if start is None else started(claimed, start, now))

    async def _with_job(
        self,
        job_id: str,
        status: MailboxJobStatus,
        change: Callable[[MailboxTxn, MailboxJob], MailboxJob | None],
    ) -> MailboxJob | None:
        """``change(txn, job)`` inside the job's mailbox transaction when the job exists with
        ``status``; ``None`` otherwise."""
        mailbox_id = await self._mailbox_of(job_id)
        if mailbox_id is None:
            return None

        def apply(txn: MailboxTxn) -> MailboxJob | None:
            job = txn.jobs.get(job_id)
            if job is None or job.status is not status:
                return None
            return change(txn, job)

        return await self._apply(mailbox_id, job_id, apply)

    async def _update_claimed(
        self,
        job_id: str,
        token: str,
        now: int,
        what: str,
        change: Callable[[MailboxJob], MailboxJob],
    ) -> MailboxJob:
        """Replace job ``job_id`` by ``change(job)`` while ``token`` holds its claim.

        Raises ``StorageNotFound`` for an unknown job and ``VersionConflict`` when the claim is
        not held or is stale (the stale job is superseded and committed before the raise).
        """
        mailbox_id = await self._mailbox_of(job_id)
        if mailbox_id is None:
            raise StorageNotFound(job_id)
        apply = self._claimed_change(job_id, token, now, what, change)
        outcome = await self._apply(mailbox_id, job_id, apply)
        if isinstance(outcome, StorageError):
            raise outcome  # (after the commit: a stale job stays superseded)
        return outcome

    @classmethod
    def _claimed_change(
        cls,
        job_id: str,
        token: str,
        now: int,
        what: str,
        change: Callable[[MailboxJob], MailboxJob],
    ) -> Callable[[MailboxTxn], MailboxJob | StorageError]:
        """The transaction change of :meth:`_update_claimed`: the changed job, or the error
        to raise once the transaction committed (a stale job is superseded in it)."""

        def apply(txn: MailboxTxn) -> MailboxJob | StorageError:
            job = txn.jobs.get(job_id)
            if job is None:
                return StorageNotFound(job_id)
            if job.status is not _CLAIMED or job.claim_token != token:
                return VersionConflict(0, 1)
            if cls._is_stale(txn, job):
                cls._supersede(txn, job, now, f"claimed dispatch superseded before {what}")
                return VersionConflict(job.generation, txn.generation)
            return txn.put(change(job))

        return apply

    # ------------------------------------------------------------------ operations
    @staticmethod
    def _queued(txn: MailboxTxn, job: MailboxJob) -> MailboxJob:
        """``job`` as a new Queued job of the transaction's mailbox (not yet put)."""
        if job.job_id in txn.jobs:
            raise AlreadyExists(job.job_id)
        if job.dedupe_key is not None:
            for other in txn.jobs.values():
                if other.dedupe_key == job.dedupe_key and not other.is_terminal:
                    raise AlreadyExists(f"dedupe_key={job.dedupe_key}")
        return clear_claim(
            job,
            status=_QUEUED,
            generation=txn.generation,
            dispatch_instance_id=None,
            run_status=None,
            termination=None,
            run_response=None,
            run_error=None,
            completed_at=None,
        )

    async def enqueue(self, job: MailboxJob) -> MailboxJob:
        if await self._mailbox_of(job.job_id) is not None:
            raise AlreadyExists(job.job_id)
        stored = await self._apply(
            job.mailbox_id, job.job_id, lambda txn: txn.put(self._queued(txn, job))
        )
        await self._work_available(job.mailbox_id)
        return stored

    async def enqueue_claimed(
        self,
        job: MailboxJob,
        consumer: str,
        lease_ms: int,
        now: int,
        *,
        start: str | None = None,
        if_idle: bool = False,
    ) -> MailboxJob | None:
        if await self._mailbox_of(job.job_id) is not None:
            raise AlreadyExists(job.job_id)
        apply = self._enqueue_claimed_change(job, consumer, lease_ms, now, start, if_idle, new_id())
        return await self._apply(job.mailbox_id, job.job_id, apply)

    @classmethod
    def _enqueue_claimed_change(
        cls,
        job: MailboxJob,
        consumer: str,
        lease_ms: int,
        now: int,
        start: str | None,
        if_idle: bool,
        token: str,
    ) -> Callable[[MailboxTxn], MailboxJob | None]:
        """The transaction change of :meth:`enqueue_claimed` (``None``: not claimed)."""

        def apply(txn: MailboxTxn) -> MailboxJob | None:
            queued = cls._queued(txn, job)
            if txn.live(_CLAIMED) or (if_idle and txn.live(_QUEUED)):
                return None
            return cls._claim_one(txn, queued, token, consumer, lease_ms, now, start)

        return apply

    async def claim(
        self,
        mailbox_id: str,
        consumer: str,
        lease_ms: int,
        now: int,
        limit: int = 1,
        *,
        start: str | None = None,
    ) -> MailboxJobList:
        if not await self._may_have_queued(mailbox_id):
            return []  # nothing queued: nothing to claim, nothing to supersede

        def apply(txn: MailboxTxn) -> MailboxJobList:
            if txn.busy:
                return []
            for job in txn.live(_QUEUED):
                if self._is_stale(txn, job):
                    self._supersede(txn, job, now, "queued dispatch superseded before claim")
            if txn.live(_CLAIMED):
                return []
            ready = [j for j in txn.live(_QUEUED) if j.available_at <= now][: max(limit, 0)]
            if not ready:
                return []
            token = new_id()
            return [self._claim_one(txn, j, token, consumer, lease_ms, now, start) for j in ready]

        return await self._apply(mailbox_id, None, apply, claiming=True)

    async def claim_job(
        self, job_id: str, consumer: str, lease_ms: int, now: int, *, start: str | None = None
    ) -> MailboxJob | None:
        def claim(txn: MailboxTxn, job: MailboxJob) -> MailboxJob | None:
            if self._is_stale(txn, job):
                self._supersede(txn, job, now, "queued dispatch superseded before claim")
                return None
            if txn.live(_CLAIMED):
                return None
            return self._claim_one(txn, job, new_id(), consumer, lease_ms, now, start)

        return await self._with_job(job_id, _QUEUED, claim)

    async def ack(
        self, job_id: str, claim_token: str, now: int, *, result: MailboxRunResult | None = None
    ) -> MailboxJob:
        return await self._update_claimed(job_id, claim_token, now, "ack", accepting(result, now))

    async def _fail(
        self, job_id: str, token: str, now: int, error_text: str, retry_at: int | None
    ) -> MailboxJob:
        def fail(job: MailboxJob) -> MailboxJob:
            attempts = job.attempt_count + 1
            if retry_at is None or attempts >= job.max_attempts:
                return end_attempt(
                    job,
                    status=MailboxJobStatus.DEAD_LETTER,
                    attempt_count=attempts if retry_at is not None else job.attempt_count,
                    last_error=error_text,
                    completed_at=now,
                    updated_at=now,
                )
            return end_attempt(
                job,
                status=_QUEUED,
                attempt_count=attempts,
                last_error=error_text,
                available_at=retry_at,
                updated_at=now,
            )

        what = "nack" if retry_at is not None else "dead letter"
        job = await self._update_claimed(job_id, token, now, what, fail)
        if job.status is _QUEUED:
            await self._work_available(job.mailbox_id)
        return job

    async def nack(
        self, job_id: str, claim_token: str, retry_at: int, error: str, now: int
    ) -> MailboxJob:
        return await self._fail(job_id, claim_token, now, error, retry_at)

    async def dead_letter(self, job_id: str, claim_token: str, error: str, now: int) -> MailboxJob:
        return await self._fail(job_id, claim_token, now, error, None)

    async def cancel(self, job_id: str, now: int) -> MailboxJob | None:
        return await self._with_job(
            job_id,
            _QUEUED,
            lambda txn, job: txn.put(
                clear_claim(
                    job, status=MailboxJobStatus.CANCELLED, completed_at=now, updated_at=now
                )
            ),
        )

    async def extend_lease(
        self, job_id: str, claim_token: str, extension_ms: int, now: int
    ) -> bool:
        def renew(txn: MailboxTxn, job: MailboxJob) -> MailboxJob | None:
            if job.claim_token != claim_token:
                return None
            if self._is_stale(txn, job):
                self._supersede(txn, job, now, "claimed dispatch superseded before lease renewal")
                return None
            return txn.put(
                msgspec.structs.replace(job, lease_until=now + extension_ms, updated_at=now)
            )

        return await self._with_job(job_id, _CLAIMED, renew) is not None

    async def interrupt(self, mailbox_id: str, now: int) -> MailboxInterrupt:

        def apply(txn: MailboxTxn) -> MailboxInterrupt:
            old = txn.generation
            txn.generation = old + 1
            superseded = [
                self._supersede(txn, job, now, "queued dispatch superseded by interrupt")
                for job in txn.live(_QUEUED)
                if job.generation <= old
            ]
            active = txn.live(_CLAIMED)
            return MailboxInterrupt(
                new_generation=txn.generation,
                active_job=active[0] if active else None,
                superseded_count=len(superseded),
                superseded_jobs=superseded,
            )

        return await self._apply(mailbox_id, None, apply)

    async def supersede_claimed(
        self, job_id: str, claim_token: str, now: int, reason: str
    ) -> MailboxJob | None:
        def supersede(txn: MailboxTxn, job: MailboxJob) -> MailboxJob:
            if job.claim_token != claim_token:
                raise VersionConflict(0, 1)
            return self._supersede(txn, job, now, reason)

        return await self._with_job(job_id, _CLAIMED, supersede)

    async def record_job_start(
        self, job_id: str, claim_token: str, instance_id: str, now: int
    ) -> MailboxJob:
        return await self._update_claimed(
            job_id,
            claim_token,
            now,
            "execution start",
            lambda job: started(job, instance_id, now),
        )

    async def record_run_result(
        self, job_id: str, claim_token: str, result: MailboxRunResult, now: int
    ) -> MailboxJob:
        return await self._update_claimed(
            job_id,
            claim_token,
            now,
            "result recording",
            lambda job: with_result(job, result, now),
        )

    async def reclaim_expired_leases(self, now: int, limit: int) -> MailboxJobList:
        return await self._reclaim(now, limit, None)

    async def reclaim_claims_of(self, consumer: str, now: int, limit: int) -> MailboxJobList:
        return await self._reclaim(now, limit, consumer)

    async def _reclaim(self, now: int, limit: int, consumer: str | None) -> MailboxJobList:
        """Expired claims, or (``consumer``) every claim that consumer holds."""
        horizon = now if consumer is None else _FOREVER
        reclaimed: list[MailboxJob] = []

        def reclaim(job_id: str, txn: MailboxTxn) -> MailboxJob | None:
            job = txn.jobs.get(job_id)
            if (
                job is None
                or job.status is not _CLAIMED
                or job.lease_until is None
                or job.lease_until >= horizon
                or (consumer is not None and job.claimed_by != consumer)
            ):
                return None
            if self._is_stale(txn, job):
                self._supersede(txn, job, now, "claimed dispatch superseded: lease expired")
                return None
            attempts = job.attempt_count + 1
            if attempts >= job.max_attempts:
                changed = end_attempt(
                    job,
                    status=MailboxJobStatus.DEAD_LETTER,
                    attempt_count=attempts,
                    last_error="lease expired",
                    completed_at=now,
                    updated_at=now,
                )
            else:
                changed = end_attempt(job, status=_QUEUED, attempt_count=attempts, updated_at=now)
            return txn.put(changed)

        for job_id, mailbox_id in await self._expired_candidates(horizon, limit):
            job = await self._apply(mailbox_id, job_id, functools.partial(reclaim, job_id))
            if job is not None:
                reclaimed.append(job)
                if job.status is _QUEUED:
                    await self._work_available(mailbox_id)
        return reclaimed


class TransactionApply:
    """``MailboxEngine._apply`` for a backend that offers its mailbox transaction as an async
    context manager (memory, file, PostgreSQL); SQLite runs a whole change in one worker-thread
    call instead and overrides ``_apply`` itself. List this mixin before ``MailboxEngine``."""

    @abstractmethod
    def _transaction(
        self, mailbox_id: str, job_id: str | None = None
    ) -> AbstractAsyncContextManager[MailboxTxn]:
        """Lock the mailbox, load its generation, non-terminal jobs and job ``job_id`` (if it
        belongs to the mailbox); on normal exit persist ``txn.generation`` and changed jobs."""

    def _claim_transaction(self, mailbox_id: str) -> AbstractAsyncContextManager[MailboxTxn]:
        """The transaction ``claim`` uses; backends may return a non-blocking variant that
        yields :meth:`MailboxTxn.busy_marker` when the mailbox is locked."""
        return self._transaction(mailbox_id)

    async def _apply(
        self,
        mailbox_id: str,
        job_id: str | None,
        change: Callable[[MailboxTxn], T],
        *,
        claiming: bool = False,
    ) -> T:
        """``change(txn)`` in :meth:`_transaction` (:meth:`_claim_transaction` when
        ``claiming``), committed unless it raises."""
        transaction = (
            self._claim_transaction(mailbox_id)
            if claiming
            else self._transaction(mailbox_id, job_id)
        )
        async with transaction as txn:
            return change(txn)
