"""The checkpoints of a mailbox job's run: its claim rides the first, its ack the final (ADR 0028).

A foreground submission on an idle thread does not commit its job on its own: the run starts at
once and its first checkpoint (thread, input messages, the ``running`` record, ``run_start``)
enqueues and claims the job in the same transaction. When the mailbox had other work for the
thread meanwhile, nothing is written and the attempt is abandoned (:class:`JobNotClaimed`), as
an ``enqueue_claimed`` that found the thread busy would have been. The final checkpoint of a run
whose outcome acks the job (everything but a transient storage failure) completes the job in
its transaction; the dispatcher then does not ack it again.

Both ride only on a :class:`JobCheckpointStore` over the server's own mailbox; elsewhere the
claim and the ack are their own commits, as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from awaken_contract.contract.checkpoint_writer import (
    CheckpointWriter,
    JobAck,
    JobCheckpointStore,
    JobClaim,
    StepCheckpoint,
)
from awaken_contract.contract.journal import JournaledThreadRunStore, JournalEntry
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_contract.contract.mailbox import MailboxJob, MailboxRunResult, MailboxStore
from awaken_contract.errors import StorageError
from awaken_contract.ids import now_ms

__all__ = ["JobCheckpointWriter", "JobNotClaimed", "rides_checkpoints"]

#: The result a run's final checkpoint acks its job with (``None``: not an ack).
FinalResult = Callable[[TerminationReason, str], MailboxRunResult | None]


class JobNotClaimed(BaseException):
    """The attempt's job could not be claimed: abandon the run without writing anything more
    (a ``BaseException`` so that no error path of the loop journals or checkpoints it)."""


def rides_checkpoints(run_store: object, mailbox: MailboxStore) -> bool:
    """True when jobs of ``mailbox`` can ride ``run_store``'s checkpoints atomically."""
    return isinstance(run_store, JobCheckpointStore) and run_store.job_mailbox is mailbox


class JobCheckpointWriter(CheckpointWriter):
    """Writes one job's run checkpoints (see the module docstring)."""

    def __init__(
        self,
        mailbox: MailboxStore,
        job_id: str,
        claim_token: str,
        *,
        claim: JobClaim | None = None,
    ) -> None:
        self.mailbox = mailbox
        self.job_id = job_id
        self.claim_token = claim_token
        self._claim = claim
        self.final_result: FinalResult | None = None
        """Set by the runner: the ack a final checkpoint carries."""
        self.claimed: asyncio.Future[MailboxJob | None] = asyncio.get_running_loop().create_future()
        """The committed claim (``None``: not claimed); resolved at once without a deferred
        claim."""
        self.acked = False
        """The final checkpoint completed the job."""
        if claim is None:
            self.claimed.set_result(None)

    @classmethod
    def deferred(cls, mailbox: MailboxStore, claim: JobClaim) -> JobCheckpointWriter:
        """A writer whose first checkpoint enqueues and claims ``claim``."""
        return cls(mailbox, claim.job.job_id, claim.claim_token, claim=claim)

    @property
    def not_claimed(self) -> bool:
        """The deferred claim was tried and failed (the thread was busy, or the store)."""
        done = self._tried and self.claimed.done()
        return done and (self.claimed.exception() is not None or self.claimed.result() is None)

    _tried = False

    def _settle(self, job: MailboxJob | None) -> None:
        self._claim = None
        self._tried = True
        if not self.claimed.done():
            self.claimed.set_result(job)

    def abandon(self) -> None:
        """The job's run ended: a claim no checkpoint resolved is resolved as not claimed
        (``claimed`` → ``None``; whoever waits for the claim stops waiting)."""
        if not self.claimed.done():
            self.claimed.set_result(None)

    async def ensure_claimed(self) -> bool:
        """Claim the job on its own if no checkpoint carried the claim (the run ended or
        failed before its first checkpoint); False when it cannot be claimed."""
        claim = self._claim
        if claim is None:
            return not self.not_claimed
        try:
            job = await self.mailbox.enqueue_claimed(
                claim.job,
                claim.consumer,
                claim.lease_ms,
                claim.now,
                start=claim.start,
                if_idle=claim.if_idle,
            )
        except BaseException as exc:
            self._claim = None
            self._tried = True
            if not self.claimed.done():
                self.claimed.set_exception(exc)
                self.claimed.exception()  # (retrieved: the caller re-raises it)
            raise
        if job is not None and job.claim_token is not None:
            self.claim_token = job.claim_token  # (the store chose the token)
        self._settle(job)
        return job is not None

    async def settle_token(self) -> str | None:
        """The claim token to settle the job with (claiming it first when no checkpoint
        did); ``None`` when it could not be claimed — there is nothing to settle."""
        return self.claim_token if await self.ensure_claimed() else None

    async def write(
        self, store: JournaledThreadRunStore, checkpoint: StepCheckpoint
    ) -> list[JournalEntry]:
        if self.not_claimed:
            raise JobNotClaimed()
        claim = self._claim
        rides = self._rides(store)
        if claim is not None and rides:
            assert isinstance(store, JobCheckpointStore)
            try:
                outcome = await store.checkpoint_claiming(checkpoint, claim)
            except StorageError:
                # Nothing was written: claim the job on its own (as before) and fail this
                # checkpoint — the run ends with a storage error and is retried.
                if not await self.ensure_claimed():
                    raise JobNotClaimed() from None
                raise
            if outcome is None:
                self._settle(None)
                raise JobNotClaimed()
            entries, job = outcome
            self._settle(job)
            return entries
        if claim is not None and not await self.ensure_claimed():
            raise JobNotClaimed()
        ack = self._ack_of(checkpoint)
        if ack is not None and rides:
            assert isinstance(store, JobCheckpointStore)
            entries, self.acked = await store.checkpoint_acking(checkpoint, ack)
            return entries
        return await checkpoint.commit(store)

    _rides_for: tuple[object, bool] | None = None

    def _rides(self, store: JournaledThreadRunStore) -> bool:
        """``rides_checkpoints(store, self.mailbox)`` (worked out once: a run checkpoints
        into one store)."""
        known = self._rides_for
        if known is None or known[0] is not store:
            known = self._rides_for = (store, rides_checkpoints(store, self.mailbox))
        return known[1]

    def _ack_of(self, checkpoint: StepCheckpoint) -> JobAck | None:
        if checkpoint.termination is None or self.final_result is None:
            return None
        result = self.final_result(checkpoint.termination, checkpoint.response)
        if result is None:
            return None
        return JobAck(self.job_id, self.claim_token, now_ms(), result)
