"""A mailbox transaction's view (:class:`MailboxTxn`) and the job transitions the engine
applies inside it (claim cleared, attempt ended, execution started, result recorded)."""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.mailbox import (
    MailboxJob,
    MailboxJobList,
    MailboxJobStatus,
    MailboxRunResult,
)

__all__ = ["MailboxTxn", "clear_claim", "end_attempt", "started", "with_result"]

_QUEUED = MailboxJobStatus.QUEUED


class MailboxTxn:
    """One mailbox's generation and live jobs, loaded under the backend's lock."""

    def __init__(self, mailbox_id: str, generation: int, jobs: list[MailboxJob]) -> None:
        self.mailbox_id = mailbox_id
        self.generation = generation
        self.initial_generation = generation
        self.jobs: dict[str, MailboxJob] = {j.job_id: j for j in jobs}
        self._original: dict[str, MailboxJob] = dict(self.jobs)
        self.busy = False

    @classmethod
    def busy_marker(cls, mailbox_id: str) -> MailboxTxn:
        """A transaction that could not lock the mailbox (another one holds it); claims return
        nothing and no write happens."""
        txn = cls(mailbox_id, 0, [])
        txn.busy = True
        return txn

    def put(self, job: MailboxJob) -> MailboxJob:
        """Replace (or add) a job; it will be written back."""
        self.jobs[job.job_id] = job
        return job

    def changed_jobs(self) -> MailboxJobList:
        """Jobs added or replaced during the transaction."""
        return [j for jid, j in self.jobs.items() if self._original.get(jid) is not j]

    def inserted_ids(self) -> set[str]:
        """Ids of jobs that did not exist before the transaction."""
        return {jid for jid in self.jobs if jid not in self._original}

    def live(self, status: MailboxJobStatus) -> MailboxJobList:
        """Jobs with ``status`` ordered by (priority, created_at, job_id)."""
        found = [j for j in self.jobs.values() if j.status is status]
        return sorted(found, key=lambda j: (j.priority, j.created_at, j.job_id))


def clear_claim(job: MailboxJob, **changes: object) -> MailboxJob:
    return msgspec.structs.replace(
        job, claim_token=None, claimed_by=None, lease_until=None, **changes
    )


def end_attempt(job: MailboxJob, **changes: object) -> MailboxJob:
    """``_clear_claim`` for an attempt that failed or was lost (nack, dead letter, expired
    lease): the attempt's projection goes too — no instance runs it any more, and a "running"
    run status would be a lie. A result the attempt recorded stays on a dead letter."""
    run_status = None if job.run_status is RunStatus.RUNNING else job.run_status
    if changes.get("status") is _QUEUED:
        changes = {
            "run_status": None,
            "termination": None,
            "run_response": None,
            "run_error": None,
            **changes,
        }
    else:
        changes = {"run_status": run_status, **changes}
    return clear_claim(job, dispatch_instance_id=None, **changes)


def started(job: MailboxJob, instance_id: str, now: int) -> MailboxJob:
    """``job`` with execution ``instance_id`` recorded as started (``run_status = running``)."""
    return msgspec.structs.replace(
        job,
        dispatch_instance_id=instance_id,
        run_status=RunStatus.RUNNING,
        termination=None,
        run_response=None,
        run_error=None,
        completed_at=None,
        updated_at=now,
    )


def with_result(job: MailboxJob, result: MailboxRunResult, now: int) -> MailboxJob:
    """``job`` with a finished run's ``result`` recorded."""
    return msgspec.structs.replace(
        job,
        dispatch_instance_id=result.dispatch_instance_id,
        run_status=result.status,
        termination=result.termination,
        run_response=result.response,
        run_error=result.error,
        completed_at=now,
        updated_at=now,
    )


def accepting(result: MailboxRunResult | None, now: int) -> Callable[[MailboxJob], MailboxJob]:
    """The change of ``ack``: the job accepted (with the run's result when given)."""

    def accept(job: MailboxJob) -> MailboxJob:
        if result is not None:
            job = with_result(job, result, now)
        return clear_claim(job, status=MailboxJobStatus.ACCEPTED, completed_at=now, updated_at=now)

    return accept
