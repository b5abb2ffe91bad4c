"""Read-side mailbox queries answered from an in-process view of every job (and the terminal
status values the SQL stores query by).

The memory and file backends hold all jobs as a ``job_id → job`` mapping (a dict, or the
decoded state file); this mixin answers the ``MailboxStore`` queries over that mapping.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable

from awaken_contract.contract.mailbox import MailboxJob, MailboxJobList, MailboxJobStatus

from awaken_stores._paging import page

__all__ = ["TERMINAL_STATUSES", "LocalMailboxQueries"]

TERMINAL_STATUSES = tuple(s.value for s in MailboxJobStatus if s.is_terminal)
"""The wire values of the terminal job statuses (the SQL stores filter on them)."""


class LocalMailboxQueries:
    """Mixin (before ``MailboxEngine``) implementing the queries from :meth:`_all_jobs`."""

    @abstractmethod
    async def _all_jobs(self) -> dict[str, MailboxJob]:
        """Every stored job by id."""

    async def _mailbox_jobs(self, mailbox_id: str) -> Iterable[MailboxJob]:
        """The jobs of one mailbox (backends with an index override this)."""
        return [j for j in (await self._all_jobs()).values() if j.mailbox_id == mailbox_id]

    async def _mailbox_of(self, job_id: str) -> str | None:
        job = (await self._all_jobs()).get(job_id)
        return None if job is None else job.mailbox_id

    async def _expired_candidates(self, now: int, limit: int) -> list[tuple[str, str]]:
        expired = [
            j
            for j in (await self._all_jobs()).values()
            if j.status is MailboxJobStatus.CLAIMED
            and j.lease_until is not None
            and j.lease_until < now
        ]
        expired.sort(key=lambda j: (j.lease_until or 0, j.job_id))
        return [(j.job_id, j.mailbox_id) for j in expired[: max(limit, 0)]]

    async def queued_mailbox_ids(self) -> list[str]:
        jobs = (await self._all_jobs()).values()
        return sorted({j.mailbox_id for j in jobs if j.status is MailboxJobStatus.QUEUED})

    async def load(self, job_id: str) -> MailboxJob | None:
        return (await self._all_jobs()).get(job_id)

    async def list_terminal(self, limit: int, offset: int) -> MailboxJobList:
        jobs = sorted(
            (j for j in (await self._all_jobs()).values() if j.is_terminal),
            key=lambda j: (j.updated_at, j.created_at, j.job_id),
        )
        return page(jobs, offset, limit)

    async def count_by_status(self, status: MailboxJobStatus) -> int:
        return sum(1 for j in (await self._all_jobs()).values() if j.status is status)

    async def list(
        self,
        mailbox_id: str,
        statuses: list[MailboxJobStatus] | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> MailboxJobList:
        jobs = [
            j
            for j in await self._mailbox_jobs(mailbox_id)
            if statuses is None or j.status in statuses
        ]
        jobs.sort(key=lambda j: (j.priority, j.created_at, j.job_id))
        return page(jobs, offset, limit)
