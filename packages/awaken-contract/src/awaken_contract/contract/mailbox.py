"""The mailbox: a durable per-thread queue of run activations (jobs) with leases and retries.

State machine (book, "HITL and mailbox")::

    Queued --claim--> Claimed --ack--> Accepted
      |                  |-- nack (attempts < max) --> Queued (available_at = retry_at)
      |                  |-- nack (attempts >= max) / dead_letter --> DeadLetter
      |                  '-- lease expired (sweep) --> Queued, or DeadLetter at max attempts
      |-- cancel --> Cancelled
      '-- interrupt (generation bump) / stale generation --> Superseded

All mailbox times are unix **milliseconds**. ``mailbox_id`` is the thread id.
"""

from __future__ import annotations

import asyncio
import enum
from abc import ABC, abstractmethod
from typing import Any

import msgspec

from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import RunRequestOrigin
from awaken_contract.ids import new_id, now_ms

__all__ = [
    "DEFAULT_MAX_ATTEMPTS",
    "DEFAULT_PRIORITY",
    "MailboxInterrupt",
    "MailboxJob",
    "MailboxJobList",
    "MailboxJobOrigin",
    "MailboxJobStatus",
    "MailboxRunResult",
    "MailboxStore",
    "retry_delay_ms",
]

DEFAULT_PRIORITY = 128
"""Priority the server uses for every job (0 = highest, 255 = lowest)."""

DEFAULT_MAX_ATTEMPTS = 5
"""Failed attempts after which a job is dead-lettered."""

MailboxJobOrigin = RunRequestOrigin
"""Where a job came from: ``User`` (HTTP/SDK), ``A2A`` or ``Internal``."""


class MailboxJobStatus(enum.StrEnum):
    """Status of a mailbox job (wire strings are PascalCase)."""

    QUEUED = "Queued"
    CLAIMED = "Claimed"
    ACCEPTED = "Accepted"
    CANCELLED = "Cancelled"
    SUPERSEDED = "Superseded"
    DEAD_LETTER = "DeadLetter"

    @property
    def is_terminal(self) -> bool:
        """Accepted, Cancelled, Superseded and DeadLetter are final."""
        return self not in (MailboxJobStatus.QUEUED, MailboxJobStatus.CLAIMED)


def _none() -> None:
    return None


def _zero() -> int:
    return 0


def _user() -> RunRequestOrigin:
    return RunRequestOrigin.USER


def _priority() -> int:
    return DEFAULT_PRIORITY


def _max_attempts() -> int:
    return DEFAULT_MAX_ATTEMPTS


def _queued() -> MailboxJobStatus:
    return MailboxJobStatus.QUEUED


class MailboxJob(msgspec.Struct, omit_defaults=True, kw_only=True):
    """One durable run activation waiting in (or taken from) a thread's mailbox.

    The book's fields, plus ``run_id`` (the durable run this job activates) and the runtime trace
    the worker records (``dispatch_instance_id`` … ``completed_at``).
    """

    job_id: str
    mailbox_id: str
    agent_id: str = ""
    messages: list[Message] = msgspec.field(default_factory=list)
    origin: RunRequestOrigin = msgspec.field(default_factory=_user)
    sender_id: str | None = msgspec.field(default_factory=_none)
    parent_run_id: str | None = msgspec.field(default_factory=_none)
    request_extras: Any | None = None
    priority: int = msgspec.field(default_factory=_priority)
    dedupe_key: str | None = msgspec.field(default_factory=_none)
    generation: int = msgspec.field(default_factory=_zero)
    status: MailboxJobStatus = msgspec.field(default_factory=_queued)
    available_at: int = msgspec.field(default_factory=_zero)
    attempt_count: int = msgspec.field(default_factory=_zero)
    max_attempts: int = msgspec.field(default_factory=_max_attempts)
    last_error: str | None = msgspec.field(default_factory=_none)
    claim_token: str | None = msgspec.field(default_factory=_none)
    claimed_by: str | None = msgspec.field(default_factory=_none)
    lease_until: int | None = msgspec.field(default_factory=_none)
    run_id: str | None = None
    dispatch_instance_id: str | None = None
    run_status: RunStatus | None = None
    termination: TerminationReason | None = None
    run_response: str | None = None
    run_error: str | None = None
    completed_at: int | None = None
    created_at: int = msgspec.field(default_factory=_zero)
    updated_at: int = msgspec.field(default_factory=_zero)

    @classmethod
    def new(
        cls,
        mailbox_id: str,
        *,
        messages: list[Message] | None = None,
        agent_id: str = "",
        run_id: str | None = None,
        priority: int = DEFAULT_PRIORITY,
        dedupe_key: str | None = None,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        available_at: int | None = None,
        origin: RunRequestOrigin = RunRequestOrigin.USER,
        request_extras: Any | None = None,
        now: int | None = None,
    ) -> MailboxJob:
        """A fresh Queued job (UUID v7 id, timestamps = ``now``, available immediately)."""
        ts = now_ms() if now is None else now
        return cls(
            job_id=new_id(),
            mailbox_id=mailbox_id,
            agent_id=agent_id,
            messages=list(messages or []),
            origin=origin,
            request_extras=request_extras,
            priority=priority,
            dedupe_key=dedupe_key,
            available_at=ts if available_at is None else available_at,
            max_attempts=max_attempts,
            run_id=run_id,
            created_at=ts,
            updated_at=ts,
        )

    @property
    def is_terminal(self) -> bool:
        """True once the job reached a final status."""
        return self.status.is_terminal


class MailboxInterrupt(msgspec.Struct):
    """Result of ``interrupt``: new generation, the still-claimed job, what was superseded."""

    new_generation: int
    active_job: MailboxJob | None
    superseded_count: int
    superseded_jobs: list[MailboxJob] = msgspec.field(default_factory=list)


class MailboxRunResult(msgspec.Struct, omit_defaults=True, gc=False):
    """What a worker records on a claimed job once its run returned."""

    run_id: str
    dispatch_instance_id: str
    status: RunStatus
    termination: TerminationReason | None = None
    response: str | None = None
    error: str | None = None


MailboxJobList = list[MailboxJob]
"""A list of jobs (alias usable inside classes that define a ``list`` method)."""


def retry_delay_ms(attempt_count: int, base_ms: int = 250, max_ms: int = 30_000) -> int:
    """Backoff before retrying a job that failed ``attempt_count`` times so far."""
    factor = 2 ** min(max(attempt_count - 1, 0), 6)
    return int(min(base_ms * factor, max_ms))


class MailboxStore(ABC):
    """Durable job queue keyed by mailbox (thread) id.

    Guarantees: enqueue is durable before returning; claims are atomic (one winner); ack, nack,
    dead_letter and start/result recording verify the claim token; interrupt bumps the generation
    and supersedes queued jobs atomically. Stale jobs (generation older than the mailbox's) are
    superseded whenever an operation touches them.

    A worker's life of a job takes few transactions: ``claim``/``claim_job`` with ``start``
    also record the execution start, ``enqueue_claimed`` enqueues and claims in one go and
    ``ack`` with ``result`` records the run's result as it settles the job. The defaults
    compose the single-step operations; the backends of ``awaken-stores`` do each in one
    transaction.
    """

    @abstractmethod
    async def enqueue(self, job: MailboxJob) -> MailboxJob:
        """Store ``job`` as Queued at the mailbox's current generation and return the stored copy.

        A non-terminal job of the same mailbox with the same ``dedupe_key`` (or an existing
        ``job_id``) raises ``AlreadyExists``."""

    @abstractmethod
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
        """Claim up to ``limit`` available Queued jobs (priority, then FIFO); ``[]`` when the
        mailbox already has a Claimed job. ``start``: also record that execution instance
        ``start`` begins (as :meth:`record_job_start`)."""

    @abstractmethod
    async def claim_job(
        self, job_id: str, consumer: str, lease_ms: int, now: int, *, start: str | None = None
    ) -> MailboxJob | None:
        """Claim one specific Queued job, ignoring ``available_at``; ``None`` when impossible.
        ``start`` as for :meth:`claim`."""

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
        """Enqueue ``job`` and claim it at once (an inline run); ``None`` — and nothing
        left queued — when the mailbox already has a Claimed job (``if_idle``: any
        non-terminal job). Raises as :meth:`enqueue`.

        The default enqueues, claims and cancels a job it could not claim."""
        if if_idle and await self.list(job.mailbox_id, [MailboxJobStatus.QUEUED], 1):
            return None
        stored = await self.enqueue(job)
        claimed = await self.claim_job(stored.job_id, consumer, lease_ms, now, start=start)
        if claimed is None:
            await self.cancel(stored.job_id, now)
        return claimed

    @abstractmethod
    async def ack(
        self, job_id: str, claim_token: str, now: int, *, result: MailboxRunResult | None = None
    ) -> MailboxJob:
        """Claimed → Accepted, recording ``result`` (as :meth:`record_run_result`) when given.
        Wrong token or stale generation raises ``VersionConflict``."""

    @abstractmethod
    async def nack(
        self, job_id: str, claim_token: str, retry_at: int, error: str, now: int
    ) -> MailboxJob:
        """Count a failed attempt: back to Queued at ``retry_at``, or DeadLetter at max attempts."""

    @abstractmethod
    async def dead_letter(self, job_id: str, claim_token: str, error: str, now: int) -> MailboxJob:
        """Claimed → DeadLetter (permanent failure)."""

    @abstractmethod
    async def cancel(self, job_id: str, now: int) -> MailboxJob | None:
        """Queued → Cancelled; ``None`` for any other status or an unknown job."""

    @abstractmethod
    async def extend_lease(
        self, job_id: str, claim_token: str, extension_ms: int, now: int
    ) -> bool:
        """Set ``lease_until = now + extension_ms``; ``False`` when the claim is lost or stale."""

    @abstractmethod
    async def interrupt(self, mailbox_id: str, now: int) -> MailboxInterrupt:
        """Bump the generation, supersede queued jobs, report the active (Claimed) job."""

    @abstractmethod
    async def current_generation(self, mailbox_id: str) -> int:
        """The mailbox's generation (0 when unknown)."""

    @abstractmethod
    async def supersede_claimed(
        self, job_id: str, claim_token: str, now: int, reason: str
    ) -> MailboxJob | None:
        """Claimed → Superseded with ``reason``; ``None`` if missing or not Claimed."""

    @abstractmethod
    async def record_job_start(
        self, job_id: str, claim_token: str, instance_id: str, now: int
    ) -> MailboxJob:
        """Record that execution of the claimed job started (``run_status = running``)."""

    @abstractmethod
    async def record_run_result(
        self, job_id: str, claim_token: str, result: MailboxRunResult, now: int
    ) -> MailboxJob:
        """Record the run's result on the claimed job (status stays Claimed)."""

    @abstractmethod
    async def reclaim_expired_leases(self, now: int, limit: int) -> MailboxJobList:
        """Requeue (or dead-letter) Claimed jobs whose lease expired; stale ones are superseded
        and not returned."""

    async def reclaim_claims_of(self, consumer: str, now: int, limit: int) -> MailboxJobList:
        """Requeue (or dead-letter) Claimed jobs held by ``consumer`` whatever their lease:
        called by a restarted instance for the orphans of its previous life. The default
        reclaims nothing (the leases then expire as usual)."""
        return []

    @abstractmethod
    async def purge_terminal(self, older_than: int) -> int:
        """Delete terminal jobs with ``updated_at < older_than``; return how many."""

    @abstractmethod
    async def queued_mailbox_ids(self) -> list[str]:
        """Sorted ids of mailboxes holding at least one Queued job."""

    @abstractmethod
    async def load(self, job_id: str) -> MailboxJob | None:
        """The job, or ``None``."""

    @abstractmethod
    async def list(
        self,
        mailbox_id: str,
        statuses: list[MailboxJobStatus] | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> MailboxJobList:
        """Jobs of a mailbox ordered by (priority, created_at), optionally filtered by status."""

    @abstractmethod
    async def list_terminal(self, limit: int, offset: int) -> MailboxJobList:
        """Terminal jobs ordered by (updated_at, created_at, job_id)."""

    @abstractmethod
    async def count_by_status(self, status: MailboxJobStatus) -> int:
        """How many jobs (across mailboxes) have ``status``."""

    async def wait_for_work(self, wait_seconds: float) -> None:
        """Wait until new work may be claimable or ``wait_seconds`` pass.

        Backends with push notification (in-memory events, PostgreSQL LISTEN/NOTIFY) return early;
        the default simply sleeps, so callers always poll after it returns."""
        await asyncio.sleep(wait_seconds)
