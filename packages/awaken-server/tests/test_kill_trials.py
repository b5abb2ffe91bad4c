"""Kill trials: ``awaken serve`` (a real subprocess) is SIGKILLed at a chosen point of a run.

The server is restarted on the same data dir (so it takes its identity back and reclaims its
claim at once), and the run must finish under its original run id. The run journal (read
straight from the store) proves what executed: one ``tool_started`` record per execution, one
``tool_finished`` per result. Kill points: during an inference, during a tool (idempotent or
not), between steps and while the run waits for a human; foreground runs (the client holds the
``POST /v1/runs`` stream) and background runs (``POST /v1/threads/:id/messages``, a mailbox
job); SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from awaken_contract.contract.journal import kind_of
from awaken_contract.testing.postgres import fresh_database
from awaken_runtime.testing import wait_until
from awaken_server.bootstrap import open_store
from awaken_server.testing import ServeProcess, assert_served_runs_replay, read_journal


async def _poll(check: Any, limit_secs: float = 60.0) -> None:
    await wait_until(check, limit_secs, interval=0.1)


class Trial:
    """One kill trial: what to ask, where to kill, how a parked run is decided."""

    def __init__(
        self,
        prompt: str,
        kill_at: str,
        *,
        foreground: bool,
        tool: str,
        decide: str | None = None,
    ) -> None:
        self.prompt = prompt
        self.kill_at = kill_at  # "inference" | "tool" | "between_steps" | "waiting" | "finished"
        self.foreground = foreground
        self.tool = tool
        self.decide = decide  # None: the run must finish by itself; else resume / cancel


async def _journal(store_url: str, run_id: str) -> list[Any]:
    return [entry.record for entry in await read_journal(store_url, run_id)]


async def _run_status(store_url: str, run_id: str) -> str | None:
    store = open_store(store_url)
    try:
        run = await store.load_run(run_id)
        return None if run is None else str(run.status)
    finally:
        await store.close()


def _tool_counts(records: list[Any], kind: str) -> Counter[str]:
    """Records of ``kind`` per call id; for ``tool_finished`` only results (a suspension —
    "waiting for a human" — is recorded too, but it is not a finished execution)."""
    return Counter(
        r.call_id
        for r in records
        if kind_of(r) == kind and not (kind == "tool_finished" and r.result.status == "pending")
    )


async def _submit(c: httpx.AsyncClient, tid: str, trial: Trial) -> tuple[str, asyncio.Task[None]]:
    """Start the run; returns its id and the task reading a foreground stream (if any)."""
    message = {"role": "user", "content": trial.prompt}
    if not trial.foreground:
        r = await c.post(f"/v1/threads/{tid}/messages", json={"messages": [message]})
        assert r.status_code == 202, r.text

        async def started() -> bool:
            return (await c.get(f"/v1/threads/{tid}/runs")).json()["total"] == 1

        await _poll(started)
        run_id = (await c.get(f"/v1/threads/{tid}/runs")).json()["items"][0]["run_id"]
        return run_id, asyncio.create_task(asyncio.sleep(0))
    first: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def read() -> None:
        body = {"agentId": "assistant", "threadId": tid, "messages": [message]}
        with contextlib.suppress(httpx.HTTPError):
            async with c.stream("POST", "/v1/runs", json=body) as r:
                async for line in r.aiter_lines():
                    if line.startswith("data: ") and not first.done():
                        first.set_result(json.loads(line[6:])["run_id"])
        if not first.done():
            first.set_exception(AssertionError("foreground stream ended without an event"))

    task = asyncio.create_task(read())
    return await asyncio.wait_for(first, 60), task


async def _kill_point(server: ServeProcess, store_url: str, run_id: str, trial: Trial) -> None:
    async def reached() -> bool:
        if trial.kill_at == "inference":  # the demo model "thinks" 3 s after the attempt starts
            return bool(server.job_starts()) and await _run_status(store_url, run_id) == "running"
        if trial.kill_at == "waiting":  # parked for a human (durably: status waiting)
            return await _run_status(store_url, run_id) == "waiting"
        if trial.kill_at == "finished":  # durably done (the final checkpoint committed)
            return await _run_status(store_url, run_id) == "done"
        records = await _journal(store_url, run_id)
        kind = "tool_started" if trial.kill_at == "tool" else "tool_finished"
        return any(kind_of(r) == kind for r in records)

    await _poll(reached)


async def _run_until_killed(tmp_path: Path, store_url: str, trial: Trial) -> tuple[str, str]:
    """Start the trial's run on a first server and SIGKILL it at the kill point: the thread
    and run ids."""
    first = ServeProcess(tmp_path, store_url, "first")
    reader: asyncio.Task[None] | None = None
    try:
        await first.ready()
        async with httpx.AsyncClient(base_url=first.url, timeout=30) as c:
            tid = (await c.post("/v1/threads", json={"title": "crash"})).json()["id"]
            run_id, reader = await _submit(c, tid, trial)
            await _kill_point(first, store_url, run_id, trial)
            if trial.kill_at != "finished":
                # Mid-run (the first inference included) the thread and its active run answer.
                assert (await c.get(f"/v1/threads/{tid}")).status_code == 200
                active = (await c.get(f"/v1/threads/{tid}/runs/active")).json()["active_run"]
                assert active is not None and active["run_id"] == run_id
    finally:
        first.kill()  # SIGKILL at the kill point: no shutdown, the claim is left behind
        if reader is not None:
            await reader
    return tid, run_id


async def _crash_trial(tmp_path: Path, store_url: str, trial: Trial) -> dict[str, Any]:
    tid, run_id = await _run_until_killed(tmp_path, store_url, trial)
    before = await _journal(store_url, run_id)

    second = ServeProcess(tmp_path, store_url, "second")
    try:
        await second.ready()
        async with httpx.AsyncClient(base_url=second.url, timeout=30) as c:

            async def settled() -> bool:
                run = (await c.get(f"/v1/runs/{run_id}")).json()
                return run["status"] == "done" or (
                    run["status"] == "waiting" and trial.decide is not None
                )

            await _poll(settled)
            run = (await c.get(f"/v1/runs/{run_id}")).json()
            parked = run["status"] == "waiting"
            if trial.decide is not None:
                assert parked, run
                ticket = run["waiting"]["tickets"][0]
                assert ticket["tool_name"] == trial.tool
                records = await _journal(store_url, run_id)
                assert _tool_counts(records, "tool_started")[ticket["tool_call_id"]] == 1
                decision: dict[str, Any] = {
                    "toolCallId": ticket["tool_call_id"],
                    "action": trial.decide,
                }
                if trial.kill_at == "waiting":
                    # Still waiting for the human it asked before the kill; nothing ran since.
                    assert run["waiting"]["reason"] != "interrupted_tool_call", run
                    assert records == before
                    decision["payload"] = {"approved": True}
                else:
                    # A non-idempotent call was cut off: never re-run silently, a human decides.
                    assert run["waiting"]["reason"] == "interrupted_tool_call"
                r = await c.post(f"/v1/runs/{run_id}/decision", json=decision)
                assert r.status_code == 202, r.text

                async def done() -> bool:
                    return (await c.get(f"/v1/runs/{run_id}")).json()["status"] == "done"

                await _poll(done)
            run = (await c.get(f"/v1/runs/{run_id}")).json()
            runs = (await c.get(f"/v1/threads/{tid}/runs")).json()["items"]
            history = (await c.get(f"/v1/threads/{tid}/messages")).json()["messages"]
    finally:
        second.stop()
    after = await _journal(store_url, run_id)
    # The run finished under its original id; it is the thread's only run.
    assert [r["run_id"] for r in runs] == [run_id]
    assert run["termination_reason"] == {"type": "natural_end"}, run
    # History: the prompt, one tool call, its result, the answer — nothing duplicated.
    assert [m["role"] for m in history] == ["user", "assistant", "tool", "assistant"], history
    assert len({m["id"] for m in history}) == 4
    call_id = history[1]["tool_calls"][0]["id"]
    assert history[2]["tool_call_id"] == call_id
    # No finished tool ran twice; executions are accounted for by the journal.
    finished = _tool_counts(after, "tool_finished")
    started = _tool_counts(after, "tool_started")
    # (a call cancelled by the human never ran to a result)
    assert finished == Counter({} if trial.decide == "cancel" else {call_id: 1}), after
    assert set(started) == {call_id}
    if trial.kill_at == "between_steps":
        assert started[call_id] == 1  # finished before the kill: reused, not re-run
    if trial.kill_at == "tool":
        reran = trial.decide == "resume" or trial.decide is None  # idempotent: re-run itself
        assert started[call_id] == (2 if reran else 1)
        interrupted = [r for r in before if kind_of(r) == "tool_started"]
        assert [r.call_id for r in interrupted] == [call_id]  # the same call id again
    if trial.kill_at == "waiting":
        # Asked once before the kill, run once more with the approval: one result only.
        assert started[call_id] == 2, after
        assert "approved" in json.dumps(history[2])
    if trial.decide == "cancel":
        assert (
            "interrupted" in json.dumps(history[2]).lower()
            or "cancel" in json.dumps(history[2]).lower()
        )
    # The store holds this run only: it replays identical, both attempts (see durability.md).
    assert await assert_served_runs_replay(store_url, tmp_path / "awaken.yaml") == 1
    return {"run_id": run_id, "started": started[call_id], "parked": parked}


TRIALS = {
    "inference-bg": Trial(
        "think 3 weather in Paris", "inference", foreground=False, tool="get_weather"
    ),
    # (the job's claim committed with the run-start checkpoint, ADR 0028)
    "inference-fg": Trial(
        "think 3 weather in Paris", "inference", foreground=True, tool="get_weather"
    ),
    "tool-idempotent-fg": Trial("poll 3", "tool", foreground=True, tool="demo_poll"),
    "tool-resume-bg": Trial("wait 3", "tool", foreground=False, tool="demo_wait", decide="resume"),
    "tool-cancel-fg": Trial("wait 3", "tool", foreground=True, tool="demo_wait", decide="cancel"),
    "between-steps-bg": Trial(
        "think 2 wait 0.1", "between_steps", foreground=False, tool="demo_wait"
    ),
    # (the tool's tool_finished committed with the step checkpoint, ADR 0028)
    "between-steps-fg": Trial(
        "think 2 wait 0.1", "between_steps", foreground=True, tool="demo_wait"
    ),
    "waiting-fg": Trial(
        "approve the deploy", "waiting", foreground=True, tool="demo_approval", decide="resume"
    ),
    "waiting-bg": Trial(
        "approve the deploy", "waiting", foreground=False, tool="demo_approval", decide="resume"
    ),
}


@pytest.mark.parametrize("name", sorted(TRIALS))
async def test_sqlite_kill_trial(tmp_path: Path, name: str) -> None:
    await _crash_trial(tmp_path, f"sqlite:///{tmp_path / 'crash.db'}", TRIALS[name])


@pytest.mark.postgres
@pytest.mark.parametrize(
    "name", ["between-steps-bg", "tool-cancel-fg", "tool-idempotent-fg", "waiting-bg", "waiting-fg"]
)
async def test_postgres_kill_trial(tmp_path: Path, postgres_dsn: str, name: str) -> None:
    dsn = await fresh_database(postgres_dsn, f"awaken_kill_{name.replace('-', '_')}")
    await _crash_trial(tmp_path, dsn, TRIALS[name])


async def _job_of(store_url: str, run_id: str) -> Any:
    store = open_store(store_url)
    try:
        for job in await store.mailbox.list_terminal(100, 0) + await _live_jobs(store):
            if job.run_id == run_id:
                return job
        return None
    finally:
        await store.close()


async def _live_jobs(store: Any) -> list[Any]:
    jobs: list[Any] = []
    for thread_id in await store.list_threads(0, 100):
        jobs += await store.mailbox.list(thread_id)
    return jobs


@pytest.mark.parametrize("foreground", [True, False], ids=["fg", "bg"])
async def test_sqlite_kill_after_the_final_checkpoint(tmp_path: Path, foreground: bool) -> None:
    """SIGKILL the moment the run is durably done: its job completed in the same commit (the
    final checkpoint carries the ack), and the restarted server runs nothing again."""
    store_url = f"sqlite:///{tmp_path / 'crash.db'}"
    trial = Trial("weather in Paris", "finished", foreground=foreground, tool="get_weather")
    tid, run_id = await _run_until_killed(tmp_path, store_url, trial)
    job = await _job_of(store_url, run_id)
    assert job is not None and str(job.status) == "Accepted", job
    before = await _journal(store_url, run_id)
    second = ServeProcess(tmp_path, store_url, "second")
    try:
        await second.ready()
        async with httpx.AsyncClient(base_url=second.url, timeout=30) as c:
            runs = (await c.get(f"/v1/threads/{tid}/runs")).json()["items"]
    finally:
        second.stop()
    assert [r["run_id"] for r in runs] == [run_id]
    assert await _journal(store_url, run_id) == before  # nothing ran again
    assert not second.job_starts()
    assert await assert_served_runs_replay(store_url, tmp_path / "awaken.yaml") == 1
