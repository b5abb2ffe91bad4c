"""The mailbox service under faults: retries with backoff, dead letters, GC, steering, and
decisions that reach a run held live by another server process (two apps, one SQLite file)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from awaken_contract.contract.journal import JournalEntry, JournalRecord
from awaken_contract.contract.mailbox import MailboxInterrupt, MailboxJob, MailboxRunResult
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import RunRecord
from awaken_contract.contract.tool import ToolCallContext, ToolResult
from awaken_contract.errors import StorageIoError
from awaken_server.bootstrap import default_system_config
from awaken_server.demo import DemoPollTool
from awaken_stores import InMemoryStore, SqliteStore
from awaken_stores.memory import InMemoryMailboxStore


class FlakyStore(InMemoryStore):
    """An in-memory store whose first ``failures`` checkpoints fail (a transient outage)."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    async def checkpoint_step(
        self,
        thread_id: str,
        messages: list[Message],
        run: RunRecord,
        records: Sequence[JournalRecord] = (),
        *,
        expected_last_seq: int | None = None,
    ) -> list[JournalEntry]:
        if self.failures > 0:
            self.failures -= 1
            raise StorageIoError("database is restarting")
        return await super().checkpoint_step(
            thread_id, messages, run, records, expected_last_seq=expected_last_seq
        )


class SlowSettlingMailbox(InMemoryMailboxStore):
    """Acks wait for ``release``; ``interrupt`` fails while ``interrupt_fails`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.acking = asyncio.Event()
        self.release = asyncio.Event()
        self.interrupted = asyncio.Event()
        self.interrupt_fails = False

    async def ack(
        self, job_id: str, claim_token: str, now: int, *, result: MailboxRunResult | None = None
    ) -> MailboxJob:
        self.acking.set()
        await self.release.wait()
        return await super().ack(job_id, claim_token, now, result=result)

    async def interrupt(self, mailbox_id: str, now: int) -> MailboxInterrupt:
        self.interrupted.set()
        if self.interrupt_fails:
            raise StorageIoError("interrupt unavailable")
        return await super().interrupt(mailbox_id, now)


class SeparateAcksStore(InMemoryStore):
    """A store whose checkpoints carry no job of the server's mailbox: claims and acks are
    their own writes (as on the file and PostgreSQL stores, ADR 0028)."""

    @property
    def job_mailbox(self) -> InMemoryMailboxStore:
        return self._other

    _other = InMemoryMailboxStore()


class EndlessPoll(DemoPollTool):
    """``demo_poll`` (idempotent: re-run after an interruption) that never ends by itself."""

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        await asyncio.Event().wait()
        return await super().execute(args, ctx)


async def _submit(live: Any, tid: str, text: str) -> None:
    body = {"messages": [{"role": "user", "content": text}]}
    r = await live.client.post(f"/v1/threads/{tid}/messages", json=body)
    assert r.status_code == 202


async def _jobs(live: Any, tid: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = (await live.client.get(f"/v1/threads/{tid}/mailbox")).json()[
        "items"
    ]
    return items


async def test_a_storage_outage_is_retried_then_the_job_succeeds(
    make_server: Any, server_config: Any, until: Any
) -> None:
    store = FlakyStore(failures=2)
    live = await make_server(store, server_config())
    tid = (await live.client.post("/v1/threads", json={})).json()["id"]
    await _submit(live, tid, "weather in Bern")

    async def accepted() -> bool:
        return [j["status"] for j in await _jobs(live, tid)] == ["Accepted"]

    await until(accepted)
    job = (await _jobs(live, tid))[0]
    assert job["attempt_count"] == 1 and "database is restarting" in job["last_error"]
    runs = (await live.client.get(f"/v1/threads/{tid}/runs")).json()["items"]
    assert [r["termination_reason"] for r in runs] == [{"type": "natural_end"}]


async def test_a_job_that_keeps_failing_is_dead_lettered(
    make_server: Any, server_config: Any, until: Any
) -> None:
    cfg = server_config()
    cfg.mailbox.default_max_attempts = 2
    live = await make_server(FlakyStore(failures=10_000), cfg)
    r = await live.client.post("/v1/threads/dl/mailbox", json={"payload": "weather in Riga"})
    assert r.status_code == 201

    async def dead() -> bool:
        return [j["status"] for j in await _jobs(live, "dl")] == ["DeadLetter"]

    await until(dead)
    job = (await _jobs(live, "dl"))[0]
    assert job["attempt_count"] == 2 and "database is restarting" in job["last_error"]


async def test_gc_purges_finished_jobs(live: Any, until: Any) -> None:
    r = await live.client.post("/v1/threads/gc/mailbox", json={"payload": "weather in Lyon"})
    assert r.status_code == 201

    async def accepted() -> bool:
        return [j["status"] for j in await _jobs(live, "gc")] == ["Accepted"]

    await until(accepted)
    mailbox = live.state.mailbox
    mailbox.config.gc_ttl = 0
    assert await mailbox.gc() >= 1
    assert await _jobs(live, "gc") == []


async def test_steer_hands_messages_to_the_running_run(live: Any, sse: Any, until: Any) -> None:
    c = live.client
    body = {"agentId": "assistant", "messages": [{"role": "user", "content": "wait 1"}]}
    async with c.stream("POST", "/v1/runs", json=body) as response:
        events = sse.iter(response)
        start: dict[str, Any] = {}
        async for frame in events:
            if frame.data and frame.data["event_type"] == "run_start":
                start = frame.data
            if frame.data and frame.data["event_type"] == "tool_call_ready":
                break
        tid, run_id = start["thread_id"], start["run_id"]
        steer = {"mode": "steer", "messages": [{"role": "user", "content": "weather in Nice"}]}
        r = await c.post(f"/v1/runs/{run_id}/inputs", json=steer)
        assert r.status_code == 202
        assert r.json() == {"status": "inputs_accepted", "run_id": run_id}
        rest = [f.data async for f in events if f.data]
    assert rest[-1]["termination"] == {"type": "natural_end"}
    assert len(await _jobs(live, tid)) == 1
    history = (await c.get(f"/v1/threads/{tid}/messages")).json()["messages"]
    assert any("Nice" in str(m["content"]) for m in history)


async def test_decision_reaches_a_run_held_by_another_process(
    make_server: Any, server_config: Any, sse: Any, tmp_path: Any, until: Any
) -> None:
    db = tmp_path / "shared.db"
    holder = await make_server(SqliteStore(db), server_config())
    other = await make_server(SqliteStore(db), server_config())
    body = {"agentId": "assistant", "messages": [{"role": "user", "content": "approve it"}]}
    async with holder.client.stream("POST", "/v1/runs", json=body) as r:
        frames = [f.data for f in await sse.collect(r) if f.data]
    run_id = frames[-1]["run_id"]
    call_id = next(f["id"] for f in frames if f["event_type"] == "tool_call_done")

    decision = {"toolCallId": call_id, "action": "resume", "payload": {"approved": True}}
    r = await other.client.post(f"/v1/runs/{run_id}/decision", json=decision)
    assert r.status_code == 202

    async def done() -> bool:
        return (await other.client.get(f"/v1/runs/{run_id}")).json()["status"] == "done"

    await until(done)
    run = (await other.client.get(f"/v1/runs/{run_id}")).json()
    assert run["termination_reason"] == {"type": "natural_end"}

    # The holder took the queued decision job back and resumed its live run; the job is acked
    # just after the run record is written, so wait for it rather than racing it.
    async def settled() -> bool:
        jobs = await _jobs(other, run["thread_id"])
        return sorted(j["status"] for j in jobs) == ["Accepted", "Cancelled"]

    await until(settled, message="the decision job accepted and the held job cancelled")


async def test_foreground_run_on_a_thread_held_elsewhere_is_409(
    make_server: Any, server_config: Any
) -> None:
    from awaken_contract.contract.mailbox import MailboxJob
    from awaken_contract.ids import now_ms

    cfg = server_config()
    cfg.mailbox.cancel_wait = 0.2
    live = await make_server(config=cfg)
    store = live.state.mailbox.store
    # Another (unreachable) process holds the thread with a long lease.
    await store.enqueue(MailboxJob.new("held", messages=[Message.user("hi")]))
    claimed = await store.claim("held", "ghost-consumer", 60_000, now_ms(), 1)
    assert len(claimed) == 1
    body = {
        "agentId": "assistant",
        "threadId": "held",
        "messages": [{"role": "user", "content": "hi"}],
    }
    r = await live.client.post("/v1/runs", json=body)
    assert r.status_code == 409
    assert r.json() == {"error": "thread has an active run; cannot claim inline"}


async def test_shutdown_releases_unfinished_jobs_for_another_process(
    make_server: Any, server_config: Any, tmp_path: Any, until: Any
) -> None:
    db = tmp_path / "release.db"
    # The first process cannot finish the job however slowly the machine runs: its wait tool
    # ends only when the shutdown cancels the run. The second one runs the real tool.
    setup = default_system_config({})
    stalled = dataclasses.replace(setup, tools={**setup.tools, "demo_poll": EndlessPoll()})
    first = await make_server(SqliteStore(db), server_config(shutdown={"timeout_secs": 0}), stalled)
    tid = (await first.client.post("/v1/threads", json={})).json()["id"]
    await _submit(first, tid, "poll 2")

    async def claimed() -> bool:
        return [j["status"] for j in await _jobs(first, tid)] == ["Claimed"]

    await until(claimed)
    await first.stop()  # no drain time: the run is cancelled and its job released
    second = await make_server(SqliteStore(db), server_config())
    jobs = await _jobs(second, tid)
    assert jobs[0]["attempt_count"] == 1 and jobs[0]["last_error"] == "server shut down mid-run"

    async def accepted() -> bool:
        return [j["status"] for j in await _jobs(second, tid)] == ["Accepted"]

    await until(accepted)
    runs = (await second.client.get(f"/v1/threads/{tid}/runs")).json()["items"]
    assert [r["termination_reason"] for r in runs] == [{"type": "natural_end"}]


async def test_cancel_reaches_a_run_executing_in_another_process(
    make_server: Any, server_config: Any, tmp_path: Any, until: Any
) -> None:
    db = tmp_path / "cancel.db"
    holder = await make_server(SqliteStore(db), server_config())
    other = await make_server(SqliteStore(db), server_config())
    tid = (await holder.client.post("/v1/threads", json={})).json()["id"]
    await _submit(holder, tid, "wait 30")

    async def claimed() -> bool:
        return [j["status"] for j in await _jobs(other, tid)] == ["Claimed"]

    await until(claimed)
    run_id = (await _jobs(other, tid))[0]["run_id"]
    r = await other.client.post(f"/v1/runs/{run_id}/cancel")
    assert r.status_code == 202

    async def stopped() -> bool:
        run = (await other.client.get(f"/v1/runs/{run_id}")).json()
        return run["status"] == "done"

    await until(stopped)
    run = (await other.client.get(f"/v1/runs/{run_id}")).json()
    assert run["termination_reason"] == {"type": "cancelled"}
    assert [j["status"] for j in await _jobs(other, tid)] == ["Superseded"]


async def test_foreground_run_waits_for_the_previous_job_to_settle(
    make_server: Any, sse: Any
) -> None:
    # The previous run has finished (its runtime handle is released) but its worker is still
    # acking the job when the next message arrives, and the store's interrupt is down: the
    # submit waits for the worker instead of answering 409.
    store = SeparateAcksStore()
    mailbox = SlowSettlingMailbox()
    store.mailbox = mailbox
    live = await make_server(store)
    body: dict[str, Any] = {"agentId": "assistant", "messages": [{"role": "user", "content": "hi"}]}
    async with live.client.stream("POST", "/v1/runs", json=body) as r:
        first = [f.data for f in await sse.collect(r) if f.data]
    assert first[-1]["termination"] == {"type": "natural_end"}
    await mailbox.acking.wait()
    mailbox.interrupt_fails = True
    mailbox.interrupted.clear()

    async def follow_up() -> tuple[int, list[Any]]:
        again = {**body, "threadId": first[-1]["thread_id"]}
        async with live.client.stream("POST", "/v1/runs", json=again) as response:
            return response.status_code, [f.data for f in await sse.collect(response) if f.data]

    pending = asyncio.create_task(follow_up())
    await mailbox.interrupted.wait()
    mailbox.release.set()
    status, frames = await pending
    assert status == 200
    assert frames[-1]["termination"] == {"type": "natural_end"}


class GatedPoll(DemoPollTool):
    """``demo_poll`` that waits for ``release`` (set ``started`` when called)."""

    def __init__(self) -> None:
        super().__init__()
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.started.set()
        await self.release.wait()
        return await super().execute(args, ctx)


async def test_a_job_queued_behind_a_run_starts_when_the_run_ends(
    make_server: Any, server_config: Any, sse: Any, until: Any
) -> None:
    # The maintenance poll is an hour away: only the dispatch after the run can start the job
    # queued behind it (on the memory store, whose claim of a mailbox with nothing queued
    # answers without a transaction).
    gate = GatedPoll()
    setup = default_system_config({})
    gated = dataclasses.replace(setup, tools={**setup.tools, "demo_poll": gate})
    cfg = server_config()
    cfg.mailbox.poll_interval = timedelta(hours=1)
    live = await make_server(InMemoryStore(), cfg, gated)
    tid = (await live.client.post("/v1/threads", json={})).json()["id"]
    body = {
        "agentId": "assistant",
        "threadId": tid,
        "messages": [{"role": "user", "content": "poll 0"}],
    }

    async def first_run() -> list[Any]:
        async with live.client.stream("POST", "/v1/runs", json=body) as response:
            return [f.data for f in await sse.collect(response) if f.data]

    running = asyncio.create_task(first_run())
    await gate.started.wait()
    queued = {"messages": [{"role": "user", "content": "weather in Oslo"}]}
    r = await live.client.post(f"/v1/threads/{tid}/messages", json=queued)
    assert r.status_code == 202 and r.json()["status"] == "queued"
    gate.release.set()
    frames = await running
    assert frames[-1]["termination"] == {"type": "natural_end"}

    async def both_accepted() -> bool:
        return [j["status"] for j in await _jobs(live, tid)] == ["Accepted", "Accepted"]

    await until(both_accepted)
    history = (await live.client.get(f"/v1/threads/{tid}/messages")).json()["messages"]
    assert any("Oslo" in str(m["content"]) for m in history)


async def test_a_run_longer_than_its_lease_keeps_it(
    make_server: Any, server_config: Any, sse: Any
) -> None:
    # The lease covers 0.3 s and the sweep reclaims expired leases every 0.05 s: a 1 s run
    # finishes as its first attempt only because its lease is renewed meanwhile.
    cfg = server_config()
    cfg.mailbox.lease_ms = 300
    cfg.mailbox.lease_renewal_interval = timedelta(seconds=0.05)
    cfg.mailbox.sweep_interval = timedelta(seconds=0.05)
    live = await make_server(InMemoryStore(), cfg)
    body = {"agentId": "assistant", "messages": [{"role": "user", "content": "wait 1"}]}
    async with live.client.stream("POST", "/v1/runs", json=body) as response:
        frames = [f.data for f in await sse.collect(response) if f.data]
    assert frames[-1]["termination"] == {"type": "natural_end"}
    (job,) = await _jobs(live, frames[-1]["thread_id"])
    assert job["status"] == "Accepted" and job["attempt_count"] == 0
