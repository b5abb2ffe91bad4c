"""``JobCheckpointStore`` for a store whose mailbox lives in the same process as its checkpoints
(the memory store): the checkpoint runs inside the mailbox transaction (ADR 0028).

The mailbox transaction holds the mailbox's lock; the checkpoint runs under it and the mailbox
changes are saved only when it succeeded (a raise inside the transaction saves nothing), so no
reader sees the claim without the checkpoint or the checkpoint's ack without the checkpoint.
Across processes this is not atomic — backends with separate durable commits (files,
PostgreSQL) do not use it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable

from awaken_contract.contract.checkpoint_writer import (
    JobAck,
    JobCheckpointStore,
    JobClaim,
    StepCheckpoint,
)
from awaken_contract.contract.journal import JournaledThreadRunStore, JournalEntry
from awaken_contract.contract.mailbox import MailboxJob, MailboxRunResult
from awaken_contract.errors import AlreadyExists, StorageError

from awaken_stores._mailbox_txn import MailboxTxn, accepting
from awaken_stores.mailbox_engine import MailboxEngine, TransactionApply

__all__ = ["LocalJobCheckpoints", "ack_change", "enqueue_claimed_change", "refuse_known_job"]


def ack_change(
    job_id: str, claim_token: str, now: int, result: MailboxRunResult | None
) -> Callable[[MailboxTxn], MailboxJob | StorageError]:
    """The transaction change of ``ack``, for a backend that runs it inside a checkpoint."""
    return MailboxEngine._claimed_change(job_id, claim_token, now, "ack", accepting(result, now))


def enqueue_claimed_change(claim: JobClaim) -> Callable[[MailboxTxn], MailboxJob | None]:
    """The transaction change of ``enqueue_claimed`` under the claim's own token, for a
    backend that runs it inside a checkpoint."""
    return MailboxEngine._enqueue_claimed_change(
        claim.job,
        claim.consumer,
        claim.lease_ms,
        claim.now,
        claim.start,
        claim.if_idle,
        claim.claim_token,
    )


async def refuse_known_job(mailbox: MailboxEngine, claim: JobClaim) -> None:
    """``AlreadyExists`` when the claim's job is stored already (``enqueue_claimed``'s check)."""
    if await mailbox._mailbox_of(claim.job.job_id) is not None:
        raise AlreadyExists(claim.job.job_id)


class LocalJobCheckpoints(JournaledThreadRunStore, JobCheckpointStore):
    """The checkpoint inside the mailbox transaction of :meth:`_local_mailbox`."""

    @abstractmethod
    def _local_mailbox(self) -> TransactionApply:
        """The mailbox (a :class:`TransactionApply` engine) whose jobs ride the checkpoints."""

    async def checkpoint_claiming(
        self, checkpoint: StepCheckpoint, claim: JobClaim
    ) -> tuple[list[JournalEntry], MailboxJob] | None:
        mailbox = self._local_mailbox()
        job = claim.job
        assert isinstance(mailbox, MailboxEngine)
        await refuse_known_job(mailbox, claim)
        async with mailbox._transaction(job.mailbox_id, job.job_id) as txn:
            claimed = enqueue_claimed_change(claim)(txn)
            if claimed is None:
                return None  # (nothing changed: nothing is saved)
            entries = await checkpoint.commit(self)  # a raise saves no mailbox change
        return entries, claimed

    async def checkpoint_acking(
        self, checkpoint: StepCheckpoint, ack: JobAck
    ) -> tuple[list[JournalEntry], bool]:
        mailbox = self._local_mailbox()
        assert isinstance(mailbox, MailboxEngine)
        mailbox_id = await mailbox._mailbox_of(ack.job_id)
        if mailbox_id is None:
            return await checkpoint.commit(self), False
        async with mailbox._transaction(mailbox_id, ack.job_id) as txn:
            entries = await checkpoint.commit(self)
            outcome = ack_change(ack.job_id, ack.claim_token, ack.now, ack.result)(txn)
        return entries, not isinstance(outcome, StorageError)
