"""Who commits a run's journaled checkpoints, and the store seam a mailbox job's claim and
completion ride on (ADR 0028).

The runtime hands every checkpoint of a run to the request's :class:`CheckpointWriter` when it
has one (else to ``store.checkpoint_step``). The server's writer makes the attempt's first
checkpoint claim the foreground job it was submitted with, and the final checkpoint complete
(ack) the job — each in the checkpoint's own transaction when the store is a
:class:`JobCheckpointStore` over the server's mailbox: one durable commit instead of two.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import msgspec

from awaken_contract.contract.journal import JournaledThreadRunStore, JournalEntry, JournalRecord
from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.mailbox import (
    MailboxJob,
    MailboxJobStatus,
    MailboxRunResult,
    MailboxStore,
)
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import RunRecord

__all__ = ["CheckpointWriter", "JobAck", "JobCheckpointStore", "JobClaim", "StepCheckpoint"]


class StepCheckpoint(msgspec.Struct):
    """One checkpoint of a run: the arguments of ``checkpoint_step`` and which one it is (a
    msgspec struct: built in C, three per run)."""

    thread_id: str
    messages: list[Message]
    run: RunRecord
    records: list[JournalRecord]
    expected_last_seq: int | None = None
    first: bool = False
    """The attempt's first checkpoint (the one that journals its ``run_start``)."""
    termination: TerminationReason | None = None
    """Set on the run's final checkpoint."""
    response: str = ""
    """The run's final answer (final checkpoint)."""

    async def commit(self, store: JournaledThreadRunStore) -> list[JournalEntry]:
        """``store.checkpoint_step`` of this checkpoint (nothing else rides it)."""
        return await store.checkpoint_step(
            self.thread_id,
            self.messages,
            self.run,
            self.records,
            expected_last_seq=self.expected_last_seq,
        )


class CheckpointWriter(ABC):
    """Commits a run's checkpoints (given per run on ``RunRequest.checkpoint_writer``)."""

    @abstractmethod
    async def write(
        self, store: JournaledThreadRunStore, checkpoint: StepCheckpoint
    ) -> list[JournalEntry]:
        """Commit ``checkpoint`` (as ``store.checkpoint_step`` does, plus the writer's own
        writes); the committed journal entries. Raises ``StorageError`` (nothing written)."""


@dataclass(slots=True, frozen=True)
class JobClaim:
    """``enqueue_claimed`` arguments: a new job, claimed (and started: execution instance
    ``start``) by ``consumer`` under ``claim_token``."""

    job: MailboxJob
    consumer: str
    lease_ms: int
    now: int
    start: str
    claim_token: str
    if_idle: bool = False

    def claimed_job(self) -> MailboxJob:
        """The job as a successful claim stores it (but for the mailbox generation): what a
        worker executes before the claim has committed."""
        return msgspec.structs.replace(
            self.job,
            status=MailboxJobStatus.CLAIMED,
            claim_token=self.claim_token,
            claimed_by=self.consumer,
            lease_until=self.now + self.lease_ms,
            updated_at=self.now,
            dispatch_instance_id=self.start,
            run_status=RunStatus.RUNNING,
        )


@dataclass(slots=True, frozen=True)
class JobAck:
    """``ack`` arguments: complete the claimed job, recording the run's result."""

    job_id: str
    claim_token: str
    now: int
    result: MailboxRunResult | None = None


class JobCheckpointStore(ABC):
    """A journaled store whose checkpoint can claim or ack a job of :attr:`job_mailbox` in the
    same transaction (all of it durable, or none of it)."""

    @property
    @abstractmethod
    def job_mailbox(self) -> MailboxStore:
        """The mailbox whose jobs ride this store's checkpoints."""

    @abstractmethod
    async def checkpoint_claiming(
        self, checkpoint: StepCheckpoint, claim: JobClaim
    ) -> tuple[list[JournalEntry], MailboxJob] | None:
        """Atomically ``enqueue_claimed(claim…)`` and ``checkpoint_step(checkpoint…)``: the
        entries and the claimed job, or ``None`` — nothing written — when the mailbox has a
        claimed job (or, ``if_idle``, a queued one). Raises like both (nothing written)."""

    @abstractmethod
    async def checkpoint_acking(
        self, checkpoint: StepCheckpoint, ack: JobAck
    ) -> tuple[list[JournalEntry], bool]:
        """Atomically ``checkpoint_step(checkpoint…)`` and ``ack(ack…)``: the entries and
        whether the ack applied. A claim that is no longer held (superseded, lease lost) is
        left alone — ``False`` — and the checkpoint commits anyway, as a separate ack would."""
