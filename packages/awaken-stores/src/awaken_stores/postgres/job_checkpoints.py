"""``JobCheckpointStore`` on PostgreSQL: the checkpoint and the job's claim or ack in one
transaction (ADR 0028), so a run costs the commits of its checkpoints alone.

The mailbox transaction (the mailbox's generation row locked ``FOR UPDATE``, its live jobs
loaded) and the checkpoint's statement run on the same connection; the transaction commits
only when both succeeded, so no reader — in this process or any other — sees a claim without
its run-start checkpoint or a final checkpoint without its ack.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable

import asyncpg
from awaken_contract.contract.checkpoint_writer import (
    JobAck,
    JobCheckpointStore,
    JobClaim,
    StepCheckpoint,
)
from awaken_contract.contract.journal import JournaledThreadRunStore, JournalEntry
from awaken_contract.contract.mailbox import MailboxJob
from awaken_contract.errors import StorageError

from awaken_stores._job_checkpoints import ack_change, enqueue_claimed_change, refuse_known_job
from awaken_stores.postgres.mailbox import PostgresMailboxStore

__all__ = ["PgJobCheckpoints"]


class PgJobCheckpoints(JournaledThreadRunStore, JobCheckpointStore):
    """Checkpoints riding the transactions of :attr:`mailbox` (a ``PostgresStore`` part)."""

    mailbox: PostgresMailboxStore

    @abstractmethod
    async def _checkpoint_on(
        self, conn: asyncpg.Connection, step: StepCheckpoint
    ) -> tuple[list[JournalEntry], Callable[[], None]]:
        """Write ``step`` on ``conn``; its entries and what to do once that commits."""

    @property
    def job_mailbox(self) -> PostgresMailboxStore:
        return self.mailbox

    async def checkpoint_claiming(
        self, checkpoint: StepCheckpoint, claim: JobClaim
    ) -> tuple[list[JournalEntry], MailboxJob] | None:
        job = claim.job
        await refuse_known_job(self.mailbox, claim)
        async with self.mailbox._locked(job.mailbox_id, job.job_id) as (conn, txn):
            claimed = enqueue_claimed_change(claim)(txn)
            if claimed is None:
                return None  # (nothing changed: the transaction writes nothing)
            entries, settle = await self._checkpoint_on(conn, checkpoint)  # a raise: rollback
        settle()
        return entries, claimed

    async def checkpoint_acking(
        self, checkpoint: StepCheckpoint, ack: JobAck
    ) -> tuple[list[JournalEntry], bool]:
        mailbox_id = await self.mailbox._mailbox_of(ack.job_id)
        if mailbox_id is None:  # an unknown job: nothing to ack
            return await checkpoint.commit(self), False
        async with self.mailbox._locked(mailbox_id, ack.job_id) as (conn, txn):
            entries, settle = await self._checkpoint_on(conn, checkpoint)
            outcome = ack_change(ack.job_id, ack.claim_token, ack.now, ack.result)(txn)
        settle()
        return entries, not isinstance(outcome, StorageError)
