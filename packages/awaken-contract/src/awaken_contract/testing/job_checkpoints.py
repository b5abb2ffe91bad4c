"""Conformance tests every ``JobCheckpointStore`` must pass (override the ``store`` fixture).

A mailbox job's claim rides a run's first checkpoint and its ack the final one (ADR 0028):
each pair is one transaction — all of it durable or none of it.
"""

from __future__ import annotations

import pytest

from awaken_contract.contract.checkpoint_writer import (
    JobAck,
    JobCheckpointStore,
    JobClaim,
    StepCheckpoint,
)
from awaken_contract.contract.journal import JournaledThreadRunStore
from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.mailbox import MailboxJob, MailboxJobStatus, MailboxRunResult
from awaken_contract.contract.message import Message
from awaken_contract.errors import VersionConflict
from awaken_contract.testing.builders import make_job, make_run
from awaken_contract.testing.journal import sample_records

__all__ = ["JobCheckpointStoreContract"]

LEASE = 30_000


def _claim(thread_id: str = "t-1", *, if_idle: bool = True) -> JobClaim:
    return JobClaim(
        make_job(thread_id), "worker-1", LEASE, 2_000, start="inst-1", claim_token="tok-1",
        if_idle=if_idle,
    )  # fmt: skip


def _step(run_id: str = "r-1", **fields: object) -> StepCheckpoint:
    run = make_run(run_id, status=RunStatus.RUNNING)
    return StepCheckpoint("t-1", [Message.user("hi")], run, sample_records(), **fields)  # type: ignore[arg-type]


async def _claimed_then_final(store: JobCheckpointStore) -> tuple[MailboxJob, StepCheckpoint]:
    """A job claimed by a run's first checkpoint, and that run's final checkpoint."""
    outcome = await store.checkpoint_claiming(_step(first=True), _claim())
    assert outcome is not None
    entries, job = outcome
    final = _step(expected_last_seq=len(entries), termination=TerminationReason.natural_end())
    final.run = make_run("r-1", status=RunStatus.DONE)
    return job, final


class JobCheckpointStoreContract:
    """``checkpoint_claiming`` and ``checkpoint_acking``: one transaction each."""

    pytestmark = pytest.mark.asyncio

    async def test_claiming_checkpoint_writes_both(self, store: JobCheckpointStore) -> None:
        claim = _claim()
        outcome = await store.checkpoint_claiming(_step(first=True), claim)
        assert outcome is not None
        entries, job = outcome
        assert [e.seq for e in entries] == list(range(1, len(sample_records()) + 1))
        assert job.status is MailboxJobStatus.CLAIMED and job.claim_token == "tok-1"
        assert job.dispatch_instance_id == "inst-1" and job.run_status is RunStatus.RUNNING
        assert await store.job_mailbox.load(claim.job.job_id) == job
        runs = self._runs(store)
        loaded = await runs.load_run("r-1")
        assert loaded is not None and loaded.status is RunStatus.RUNNING
        assert await runs.last_seq("r-1") == len(entries)

    async def test_busy_thread_writes_nothing(self, store: JobCheckpointStore) -> None:
        busy = await store.job_mailbox.enqueue(make_job())  # queued work on the thread
        claim = _claim()
        assert await store.checkpoint_claiming(_step(first=True), claim) is None
        runs = self._runs(store)
        assert await runs.load_run("r-1") is None
        assert await runs.load_thread("t-1") is None
        assert await runs.last_seq("r-1") == 0
        assert await store.job_mailbox.load(claim.job.job_id) is None
        assert [j.job_id for j in await store.job_mailbox.list("t-1")] == [busy.job_id]

    async def test_failed_checkpoint_claims_nothing(self, store: JobCheckpointStore) -> None:
        claim = _claim()
        with pytest.raises(VersionConflict):
            await store.checkpoint_claiming(_step(first=True, expected_last_seq=5), claim)
        assert await store.job_mailbox.load(claim.job.job_id) is None
        assert await self._runs(store).load_run("r-1") is None

    async def test_acking_checkpoint_completes_the_job(self, store: JobCheckpointStore) -> None:
        job, final = await _claimed_then_final(store)
        result = MailboxRunResult(
            run_id="r-1", dispatch_instance_id="inst-1", status=RunStatus.DONE, response="ok"
        )
        more, acked = await store.checkpoint_acking(
            final, JobAck(job.job_id, "tok-1", 3_000, result)
        )
        assert acked and len(more) == len(sample_records())
        settled = await store.job_mailbox.load(job.job_id)
        assert settled is not None and settled.status is MailboxJobStatus.ACCEPTED
        assert settled.run_response == "ok" and settled.completed_at == 3_000
        loaded = await self._runs(store).load_run("r-1")
        assert loaded is not None and loaded.status is RunStatus.DONE

    async def test_lost_claim_keeps_the_checkpoint(self, store: JobCheckpointStore) -> None:
        job, final = await _claimed_then_final(store)
        more, acked = await store.checkpoint_acking(final, JobAck(job.job_id, "stale", 3_000))
        assert not acked and more  # a separate ack would have raised VersionConflict
        still = await store.job_mailbox.load(job.job_id)
        assert still is not None and still.status is MailboxJobStatus.CLAIMED
        loaded = await self._runs(store).load_run("r-1")
        assert loaded is not None and loaded.status is RunStatus.DONE

    async def test_failed_final_checkpoint_acks_nothing(self, store: JobCheckpointStore) -> None:
        outcome = await store.checkpoint_claiming(_step(first=True), _claim())
        assert outcome is not None
        _, job = outcome
        final = _step(expected_last_seq=0, termination=TerminationReason.natural_end())
        with pytest.raises(VersionConflict):
            await store.checkpoint_acking(final, JobAck(job.job_id, "tok-1", 3_000))
        still = await store.job_mailbox.load(job.job_id)
        assert still is not None and still.status is MailboxJobStatus.CLAIMED

    @staticmethod
    def _runs(store: JobCheckpointStore) -> JournaledThreadRunStore:
        assert isinstance(store, JournaledThreadRunStore)
        return store
