"""Conformance tests every ``MailboxStore`` must pass (override the ``store`` fixture)."""

from __future__ import annotations

import asyncio

import pytest

from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.mailbox import (
    MailboxJob,
    MailboxJobStatus,
    MailboxRunResult,
    MailboxStore,
)
from awaken_contract.errors import AlreadyExists, StorageNotFound, VersionConflict
from awaken_contract.testing.builders import make_job

__all__ = ["MailboxStoreContract"]

Q = MailboxJobStatus.QUEUED
C = MailboxJobStatus.CLAIMED
LEASE = 30_000


async def _claim_one(store: MailboxStore, job: MailboxJob, now: int = 2_000) -> MailboxJob:
    claimed = await store.claim(job.mailbox_id, "worker-1", LEASE, now)
    assert [c.job_id for c in claimed] == [job.job_id]
    return claimed[0]


def _token(job: MailboxJob) -> str:
    assert job.claim_token is not None
    return job.claim_token


class MailboxStoreContract:
    """The mailbox state machine: enqueue, claim, ack/nack, cancel, interrupt, leases."""

    pytestmark = pytest.mark.asyncio

    async def test_enqueue_and_list(self, store: MailboxStore) -> None:
        job = make_job(text="héllo 世界")
        stored = await store.enqueue(job)
        assert stored.status is Q and stored.generation == 0
        listed = await store.list("t-1")
        assert listed == [stored]
        loaded = await store.load(job.job_id)
        assert loaded == stored
        assert loaded is not None and loaded.messages[0].text() == "héllo 世界"
        assert await store.load("nope") is None
        assert await store.list("other") == []

    async def test_enqueue_duplicate_id_rejected(self, store: MailboxStore) -> None:
        job = await store.enqueue(make_job())
        with pytest.raises(AlreadyExists):
            await store.enqueue(job)

    async def test_claim_returns_queued_job(self, store: MailboxStore) -> None:
        job = await store.enqueue(make_job())
        claimed = await _claim_one(store, job)
        assert claimed.status is C and claimed.claimed_by == "worker-1"
        assert claimed.claim_token and claimed.lease_until == 2_000 + LEASE
        assert claimed.updated_at == 2_000
        assert await store.load(job.job_id) == claimed

    async def test_claim_respects_available_at(self, store: MailboxStore) -> None:
        job = make_job(now=1_000)
        job.available_at = 5_000
        await store.enqueue(job)
        assert await store.claim("t-1", "w", LEASE, 4_999) == []
        assert len(await store.claim("t-1", "w", LEASE, 5_000)) == 1

    async def test_claim_respects_priority_before_created_at(self, store: MailboxStore) -> None:
        low = await store.enqueue(make_job(now=1_000, priority=200))
        high = await store.enqueue(make_job(now=1_500, priority=10))
        first = await _claim_one(store, high, now=2_000)
        await store.ack(first.job_id, _token(first), 2_100)
        second = await _claim_one(store, low, now=2_200)
        assert second.job_id == low.job_id

    async def test_fifo_ordering_within_same_priority(self, store: MailboxStore) -> None:
        jobs = [await store.enqueue(make_job(now=1_000 + i)) for i in range(3)]
        order = []
        for step in range(3):
            claimed = await store.claim("t-1", "w", LEASE, 5_000 + step)
            order.append(claimed[0].job_id)
            await store.ack(claimed[0].job_id, _token(claimed[0]), 5_000 + step)
        assert order == [j.job_id for j in jobs]

    async def test_claim_limit_preserves_thread_exclusivity(self, store: MailboxStore) -> None:
        for i in range(3):
            await store.enqueue(make_job(now=1_000 + i))
        await store.enqueue(make_job("t-2", now=1_000))
        claimed = await store.claim("t-1", "w", LEASE, 2_000, limit=2)
        assert len(claimed) == 2 and len({c.claim_token for c in claimed}) == 1
        assert await store.claim("t-1", "w", LEASE, 2_000, limit=5) == []
        assert len(await store.claim("t-2", "w", LEASE, 2_000)) == 1

    async def test_list_orders_by_priority_then_created_at(self, store: MailboxStore) -> None:
        a = await store.enqueue(make_job(now=3_000, priority=128))
        b = await store.enqueue(make_job(now=1_000, priority=128))
        c = await store.enqueue(make_job(now=2_000, priority=5))
        assert [j.job_id for j in await store.list("t-1")] == [c.job_id, b.job_id, a.job_id]
        assert [j.job_id for j in await store.list("t-1", limit=1, offset=1)] == [b.job_id]
        claimed = await _claim_one(store, c)
        assert [j.job_id for j in await store.list("t-1", statuses=[C])] == [claimed.job_id]
        assert len(await store.list("t-1", statuses=[Q])) == 2

    async def test_ack_transitions_to_accepted(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        acked = await store.ack(job.job_id, _token(job), 3_000)
        assert acked.status is MailboxJobStatus.ACCEPTED
        assert (acked.claim_token, acked.claimed_by, acked.lease_until) == (None, None, None)
        assert acked.completed_at == 3_000
        assert await store.load(job.job_id) == acked

    async def test_ack_rejects_wrong_claim_token(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        with pytest.raises(VersionConflict):
            await store.ack(job.job_id, "wrong-token", 3_000)
        assert await store.load(job.job_id) == job
        with pytest.raises(StorageNotFound):
            await store.ack("nope", "x", 3_000)

    async def test_stale_claim_token_rejected_after_reclaim(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        await store.reclaim_expired_leases(2_000 + LEASE + 1, 10)
        again = await _claim_one(store, job, now=2_000 + LEASE + 2)
        assert again.claim_token != job.claim_token
        with pytest.raises(VersionConflict):
            await store.ack(job.job_id, _token(job), 40_000)
        with pytest.raises(VersionConflict):
            await store.nack(job.job_id, _token(job), 40_000, "x", 40_000)
        assert not await store.extend_lease(job.job_id, _token(job), 1_000, 40_000)
        acked = await store.ack(again.job_id, _token(again), 40_000)
        assert acked.status is MailboxJobStatus.ACCEPTED
        with pytest.raises(VersionConflict):
            await store.ack(again.job_id, _token(again), 40_001)

    async def test_nack_returns_to_queued(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        nacked = await store.nack(job.job_id, _token(job), 9_000, "transient", 3_000)
        assert nacked.status is Q and nacked.attempt_count == 1
        assert nacked.available_at == 9_000 and nacked.last_error == "transient"
        assert nacked.claim_token is None and nacked.lease_until is None
        assert await store.claim("t-1", "w", LEASE, 8_999) == []
        assert len(await store.claim("t-1", "w", LEASE, 9_000)) == 1

    async def test_nack_dead_letters_after_max_attempts(self, store: MailboxStore) -> None:
        job = await store.enqueue(make_job(max_attempts=2))
        first = await _claim_one(store, job)
        await store.nack(job.job_id, _token(first), 2_000, "e1", 2_000)
        second = await _claim_one(store, job, now=2_500)
        dead = await store.nack(job.job_id, _token(second), 2_600, "e2", 2_600)
        assert dead.status is MailboxJobStatus.DEAD_LETTER and dead.attempt_count == 2
        assert dead.last_error == "e2" and dead.completed_at == 2_600

    async def test_dead_letter(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        with pytest.raises(VersionConflict):
            await store.dead_letter(job.job_id, "bad", "x", 3_000)
        dead = await store.dead_letter(job.job_id, _token(job), "agent not found", 3_000)
        assert dead.status is MailboxJobStatus.DEAD_LETTER
        assert dead.last_error == "agent not found" and dead.claim_token is None

    async def test_cancel_queued_job(self, store: MailboxStore) -> None:
        job = await store.enqueue(make_job())
        cancelled = await store.cancel(job.job_id, 3_000)
        assert cancelled is not None and cancelled.status is MailboxJobStatus.CANCELLED
        assert cancelled.completed_at == 3_000
        assert await store.cancel(job.job_id, 3_001) is None
        assert await store.cancel("nope", 3_001) is None
        assert await store.claim("t-1", "w", LEASE, 4_000) == []

    async def test_cancel_claimed_job_returns_none(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        assert await store.cancel(job.job_id, 3_000) is None
        loaded = await store.load(job.job_id)
        assert loaded is not None and loaded.status is C

    async def test_extend_lease(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        assert not await store.extend_lease(job.job_id, "wrong", 60_000, 15_000)
        unchanged = await store.load(job.job_id)
        assert unchanged is not None and unchanged.lease_until == 2_000 + LEASE
        assert await store.extend_lease(job.job_id, _token(job), 60_000, 15_000)
        loaded = await store.load(job.job_id)
        assert loaded is not None and loaded.lease_until == 75_000
        assert not await store.extend_lease("nope", "x", 1, 1)

    async def test_interrupt_supersedes_queued(self, store: MailboxStore) -> None:
        first = await store.enqueue(make_job(now=1_000))
        second = await store.enqueue(make_job(now=1_100))
        other = await store.enqueue(make_job("t-2"))
        result = await store.interrupt("t-1", 5_000)
        assert result.superseded_count == 2 and result.new_generation >= 1
        assert result.active_job is None
        assert {j.job_id for j in result.superseded_jobs} == {first.job_id, second.job_id}
        for job_id in (first.job_id, second.job_id):
            loaded = await store.load(job_id)
            assert loaded is not None and loaded.status is MailboxJobStatus.SUPERSEDED
            assert loaded.completed_at == 5_000 and loaded.last_error
        untouched = await store.load(other.job_id)
        assert untouched is not None and untouched.status is Q
        assert await store.claim("t-1", "w", LEASE, 6_000) == []
        fresh = await store.enqueue(make_job(now=6_000))
        assert fresh.generation == result.new_generation
        assert [c.job_id for c in await store.claim("t-1", "w", LEASE, 6_000)] == [fresh.job_id]

    async def test_interrupt_returns_active_claimed(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        await store.enqueue(make_job(now=1_500))
        result = await store.interrupt("t-1", 5_000)
        assert result.active_job is not None and result.active_job.job_id == job.job_id
        assert result.active_job.status is C and result.superseded_count == 1

    async def test_current_generation_tracks_interrupt(self, store: MailboxStore) -> None:
        assert await store.current_generation("t-1") == 0
        await store.interrupt("t-1", 1_000)
        assert await store.current_generation("t-1") == 1
        await store.interrupt("t-1", 1_001)
        assert await store.current_generation("t-1") == 2
        assert await store.current_generation("t-2") == 0

    async def test_supersede_claimed(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        with pytest.raises(VersionConflict):
            await store.supersede_claimed(job.job_id, "wrong", 3_000, "x")
        done = await store.supersede_claimed(job.job_id, _token(job), 3_000, "new input")
        assert done is not None and done.status is MailboxJobStatus.SUPERSEDED
        assert done.completed_at == 3_000 and done.last_error == "new input"
        assert await store.supersede_claimed(job.job_id, _token(job), 3_001, "again") is None
        assert await store.supersede_claimed("nope", "x", 3_001, "x") is None

    async def test_stale_claim_after_interrupt(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        await store.interrupt("t-1", 3_000)
        assert not await store.extend_lease(job.job_id, _token(job), 1_000, 3_100)
        loaded = await store.load(job.job_id)
        assert loaded is not None and loaded.status is MailboxJobStatus.SUPERSEDED

    async def test_record_start_rejects_stale_claim_after_interrupt(
        self, store: MailboxStore
    ) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        await store.interrupt("t-1", 3_000)
        with pytest.raises(VersionConflict):
            await store.record_job_start(job.job_id, _token(job), "inst-1", 3_100)
        loaded = await store.load(job.job_id)
        assert loaded is not None and loaded.status is MailboxJobStatus.SUPERSEDED
        with pytest.raises(VersionConflict):
            await store.ack(job.job_id, _token(job), 3_200)

    async def test_ack_of_stale_claim_supersedes(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        await store.interrupt("t-1", 3_000)
        with pytest.raises(VersionConflict):
            await store.ack(job.job_id, _token(job), 3_100)
        loaded = await store.load(job.job_id)
        assert loaded is not None and loaded.status is MailboxJobStatus.SUPERSEDED

    async def test_reclaim_expired_stale_claim_supersedes(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        await store.interrupt("t-1", 3_000)
        assert await store.reclaim_expired_leases(2_000 + LEASE + 1, 10) == []
        loaded = await store.load(job.job_id)
        assert loaded is not None and loaded.status is MailboxJobStatus.SUPERSEDED

    async def test_dedupe_key_rejects_duplicate(self, store: MailboxStore) -> None:
        first = await store.enqueue(make_job(dedupe_key="k"))
        with pytest.raises(AlreadyExists, match="dedupe_key=k"):
            await store.enqueue(make_job(dedupe_key="k"))
        await store.enqueue(make_job("t-2", dedupe_key="k"))
        await store.cancel(first.job_id, 2_000)
        again = await store.enqueue(make_job(dedupe_key="k"))
        assert again.status is Q

    async def test_reclaim_expired_leases_requeues(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        assert await store.reclaim_expired_leases(2_000 + LEASE, 10) == []
        reclaimed = await store.reclaim_expired_leases(2_000 + LEASE + 1, 10)
        assert [r.job_id for r in reclaimed] == [job.job_id]
        assert reclaimed[0].status is Q and reclaimed[0].attempt_count == 1
        assert reclaimed[0].claim_token is None
        assert len(await store.claim("t-1", "w2", LEASE, 40_000)) == 1

    async def test_reclaim_expired_leases_dead_letters_at_max(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job(max_attempts=1)))
        reclaimed = await store.reclaim_expired_leases(2_000 + LEASE + 1, 10)
        assert [r.status for r in reclaimed] == [MailboxJobStatus.DEAD_LETTER]
        loaded = await store.load(job.job_id)
        assert loaded is not None and loaded.status is MailboxJobStatus.DEAD_LETTER

    async def test_a_requeued_attempt_leaves_no_projection(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job(max_attempts=3)))
        await store.record_job_start(job.job_id, _token(job), "inst-1", 2_100)
        nacked = await store.nack(job.job_id, _token(job), 2_500, "transient", 2_200)
        assert nacked.status is Q
        assert nacked.run_status is None and nacked.dispatch_instance_id is None
        again = await _claim_one(store, nacked, now=2_500)
        await store.record_job_start(job.job_id, _token(again), "inst-2", 2_600)
        reclaimed = await store.reclaim_expired_leases(2_500 + LEASE + 1, 10)
        assert [r.status for r in reclaimed] == [Q]
        loaded = await store.load(job.job_id)
        assert loaded is not None and loaded.status is Q
        assert loaded.run_status is None and loaded.dispatch_instance_id is None

    async def test_a_dead_lettered_attempt_is_not_running(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job(max_attempts=1)))
        await store.record_job_start(job.job_id, _token(job), "inst-1", 2_100)
        reclaimed = await store.reclaim_expired_leases(2_000 + LEASE + 1, 10)
        assert [r.status for r in reclaimed] == [MailboxJobStatus.DEAD_LETTER]
        loaded = await store.load(job.job_id)
        assert loaded is not None and loaded.run_status is None
        assert loaded.dispatch_instance_id is None
        other = await _claim_one(store, await store.enqueue(make_job("t-2")))
        await store.record_job_start(other.job_id, _token(other), "inst-1", 2_100)
        dead = await store.dead_letter(other.job_id, _token(other), "agent not found", 2_200)
        assert dead.run_status is None and dead.dispatch_instance_id is None

    async def test_reclaim_respects_limit(self, store: MailboxStore) -> None:
        for i in range(3):
            await _claim_one(store, await store.enqueue(make_job(f"t-{i}")))
        assert len(await store.reclaim_expired_leases(10**9, 2)) == 2
        assert len(await store.reclaim_expired_leases(10**9, 2)) == 1

    async def test_purge_terminal_removes_old(self, store: MailboxStore) -> None:
        old = await store.enqueue(make_job())
        await store.cancel(old.job_id, 2_000)
        recent = await store.enqueue(make_job())
        await store.cancel(recent.job_id, 9_000)
        live = await store.enqueue(make_job())
        assert await store.purge_terminal(5_000) == 1
        assert await store.load(old.job_id) is None
        assert await store.load(recent.job_id) is not None
        assert await store.load(live.job_id) is not None

    async def test_queued_mailbox_ids(self, store: MailboxStore) -> None:
        await store.enqueue(make_job("t-b"))
        await store.enqueue(make_job("t-a"))
        await store.enqueue(make_job("t-a"))
        done = await store.enqueue(make_job("t-c"))
        await store.cancel(done.job_id, 2_000)
        assert await store.queued_mailbox_ids() == ["t-a", "t-b"]

    async def test_count_by_status_tracks_lifecycle(self, store: MailboxStore) -> None:
        job = await store.enqueue(make_job())
        await store.enqueue(make_job("t-2"))
        assert await store.count_by_status(Q) == 2
        claimed = await _claim_one(store, job)
        assert await store.count_by_status(Q) == 1 and await store.count_by_status(C) == 1
        await store.ack(job.job_id, _token(claimed), 3_000)
        assert await store.count_by_status(C) == 0
        assert await store.count_by_status(MailboxJobStatus.ACCEPTED) == 1

    async def test_list_terminal(self, store: MailboxStore) -> None:
        ids = []
        for i in range(3):
            job = await store.enqueue(make_job(f"t-{i}"))
            await store.cancel(job.job_id, 5_000 - i)
            ids.append(job.job_id)
        await store.enqueue(make_job("t-9"))
        listed = await store.list_terminal(10, 0)
        assert [j.job_id for j in listed] == list(reversed(ids))
        assert [j.job_id for j in await store.list_terminal(1, 1)] == [ids[1]]

    async def test_claim_job_by_id_ignores_available_at(self, store: MailboxStore) -> None:
        job = make_job()
        job.available_at = 10**12
        stored = await store.enqueue(job)
        other = await store.enqueue(make_job(now=500))
        claimed = await store.claim_job(stored.job_id, "inline", LEASE, 2_000)
        assert claimed is not None and claimed.status is C
        assert await store.claim_job(other.job_id, "inline", LEASE, 2_000) is None
        assert await store.claim_job(stored.job_id, "inline", LEASE, 2_000) is None
        assert await store.claim_job("nope", "inline", LEASE, 2_000) is None

    async def test_claim_job_stale_is_superseded(self, store: MailboxStore) -> None:
        job = await store.enqueue(make_job())
        await store.interrupt("t-1", 1_500)
        assert await store.claim_job(job.job_id, "w", LEASE, 2_000) is None
        loaded = await store.load(job.job_id)
        assert loaded is not None and loaded.status is MailboxJobStatus.SUPERSEDED

    async def test_record_job_start_and_result(self, store: MailboxStore) -> None:
        job = await _claim_one(store, await store.enqueue(make_job()))
        with pytest.raises(StorageNotFound):
            await store.record_job_start("nope", "x", "inst", 3_000)
        with pytest.raises(VersionConflict):
            await store.record_job_start(job.job_id, "bad", "inst", 3_000)
        started = await store.record_job_start(job.job_id, _token(job), "inst-1", 3_000)
        assert started.dispatch_instance_id == "inst-1"
        assert started.run_status is RunStatus.RUNNING and started.status is C
        result = MailboxRunResult(
            run_id="r-1",
            dispatch_instance_id="inst-1",
            status=RunStatus.DONE,
            termination=TerminationReason.natural_end(),
            response="done!",
        )
        recorded = await store.record_run_result(job.job_id, _token(job), result, 3_500)
        assert recorded.status is C and recorded.run_status is RunStatus.DONE
        assert recorded.termination == TerminationReason.natural_end()
        assert recorded.run_response == "done!" and recorded.completed_at == 3_500
        assert await store.load(job.job_id) == recorded

    async def test_record_projection_rejects_unclaimed(self, store: MailboxStore) -> None:
        job = await store.enqueue(make_job())
        result = MailboxRunResult(run_id="r", dispatch_instance_id="i", status=RunStatus.DONE)
        with pytest.raises(VersionConflict):
            await store.record_run_result(job.job_id, "x", result, 3_000)
        with pytest.raises(StorageNotFound):
            await store.record_run_result("nope", "x", result, 3_000)

    async def test_twenty_concurrent_claimers_one_winner(self, store: MailboxStore) -> None:
        job = await store.enqueue(make_job())
        results = await asyncio.gather(
            *(store.claim("t-1", f"worker-{i}", LEASE, 2_000) for i in range(20))
        )
        winners = [r for r in results if r]
        assert len(winners) == 1 and winners[0][0].job_id == job.job_id
        loaded = await store.load(job.job_id)
        assert loaded is not None and loaded.claimed_by == winners[0][0].claimed_by

    async def test_twenty_concurrent_claim_job_one_winner(self, store: MailboxStore) -> None:
        job = await store.enqueue(make_job())
        results = await asyncio.gather(
            *(store.claim_job(job.job_id, f"worker-{i}", LEASE, 2_000) for i in range(20))
        )
        assert sum(1 for r in results if r is not None) == 1

    async def test_concurrent_enqueues(self, store: MailboxStore) -> None:
        await asyncio.gather(*(store.enqueue(make_job(now=1_000 + i)) for i in range(20)))
        assert len(await store.list("t-1")) == 20
        assert await store.count_by_status(Q) == 20
