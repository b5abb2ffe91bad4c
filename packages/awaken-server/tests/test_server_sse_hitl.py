"""SSE framing, heartbeats, Last-Event-ID replay and human-in-the-loop over HTTP."""

from __future__ import annotations

from typing import Any

from awaken_stores import SqliteStore


def _run(prompt: str) -> dict[str, Any]:
    return {"agentId": "assistant", "messages": [{"role": "user", "content": prompt}]}


async def test_heartbeat_comments_while_a_tool_sleeps(
    make_server: Any, server_config: Any, sse: Any
) -> None:
    live = await make_server(config=server_config(heartbeat_interval_secs=0.1))
    async with live.client.stream("POST", "/v1/runs", json=_run("wait 1")) as response:
        raw = [line async for line in response.aiter_lines()]
    assert ": heartbeat" in raw
    assert raw[0].startswith("id: 1")  # no heartbeat before the first event (journal seq 1)
    events = [line for line in raw if line.startswith("data: ")]
    assert '"event_type":"run_finish"' in events[-1]


async def test_reconnect_with_last_event_id_replays_then_follows(
    live: Any, sse: Any, until: Any
) -> None:
    seen: list[Any] = []
    async with live.client.stream("POST", "/v1/runs", json=_run("wait 1")) as response:
        async for frame in sse.iter(response):
            if frame.data is not None:
                seen.append(frame)
            if frame.data and frame.data["event_type"] == "tool_call_ready":
                break  # the client goes away mid-run
    run_id = seen[0].data["run_id"]
    last = seen[-1].id
    headers = {"Last-Event-ID": str(last)}
    async with live.client.stream("GET", f"/v1/runs/{run_id}/events", headers=headers) as r:
        assert r.status_code == 200
        rest = [f for f in await sse.collect(r) if f.data is not None]
    ids = [f.id for f in seen] + [f.id for f in rest]
    assert ids[0] == 1 and ids == sorted(set(ids))  # journal seqs: increasing, no duplicate
    assert rest[-1].data["event_type"] == "run_finish"

    # A full replay after the run ended, from the start.
    async with live.client.stream("GET", f"/v1/runs/{run_id}/events") as r:
        replay = [f for f in await sse.collect(r) if f.data is not None]
    assert [f.id for f in replay] == ids
    run = (await live.client.get(f"/v1/runs/{run_id}")).json()
    assert run["status"] == "done"  # the disconnect did not cancel the run


async def test_client_disconnect_does_not_cancel_the_run(live: Any, sse: Any, until: Any) -> None:
    async with live.client.stream("POST", "/v1/runs", json=_run("wait 0.5")) as response:
        async for frame in sse.iter(response):
            run_id = frame.data["run_id"]
            break

    async def done() -> bool:
        return (await live.client.get(f"/v1/runs/{run_id}")).json()["status"] == "done"

    await until(done)
    run = (await live.client.get(f"/v1/runs/{run_id}")).json()
    assert run["termination_reason"] == {"type": "natural_end"}


async def test_cancel_a_running_run(live: Any, sse: Any) -> None:
    async with live.client.stream("POST", "/v1/runs", json=_run("wait 30")) as response:
        frames = []
        async for frame in sse.iter(response):
            if frame.data is None:
                continue
            frames.append(frame.data)
            if frame.data["event_type"] == "tool_call_ready":
                cancel = await live.client.post(f"/v1/runs/{frames[0]['run_id']}/cancel")
                assert cancel.status_code == 202
                assert cancel.json()["status"] == "cancel_requested"
    assert frames[-1]["event_type"] == "run_finish"
    assert frames[-1]["termination"] == {"type": "cancelled"}


async def test_new_foreground_input_interrupts_the_active_run(live: Any, sse: Any) -> None:
    async with live.client.stream("POST", "/v1/runs", json=_run("wait 30")) as first:
        events = sse.iter(first)
        thread_id = ""
        async for frame in events:
            if frame.data and frame.data["event_type"] == "run_start":
                thread_id = frame.data["thread_id"]
            if frame.data and frame.data["event_type"] == "tool_call_ready":
                break
        payload = {**_run("weather in Oslo"), "threadId": thread_id}
        async with live.client.stream("POST", "/v1/runs", json=payload) as second:
            frames = [f.data for f in await sse.collect(second) if f.data]
        assert frames[-1]["termination"] == {"type": "natural_end"}
        rest = [f.data async for f in events if f.data]
    assert rest[-1]["termination"] == {"type": "cancelled"}
    history = (await live.client.get(f"/v1/threads/{thread_id}/messages")).json()["messages"]
    # The interrupted call left no unpaired tool call behind.
    calls = [c["id"] for m in history for c in m.get("tool_calls") or []]
    results = [m["tool_call_id"] for m in history if m["role"] == "tool"]
    assert set(calls) <= set(results)


async def test_hitl_run_waits_then_resumes_after_a_decision(live: Any, sse: Any) -> None:
    async with live.client.stream("POST", "/v1/runs", json=_run("approve the deploy")) as r:
        first = [f for f in await sse.collect(r) if f.data is not None]
    finish = first[-1].data
    assert finish["event_type"] == "run_finish" and finish["termination"] == {"type": "suspended"}
    run_id, thread_id = finish["run_id"], finish["thread_id"]
    done = next(f.data for f in first if f.data["event_type"] == "tool_call_done")
    assert done["outcome"] == "suspended"
    call_id = done["id"]

    run = (await live.client.get(f"/v1/runs/{run_id}")).json()
    assert run["status"] == "waiting" and run["waiting"]["tickets"][0]["tool_call_id"] == call_id
    active = (await live.client.get(f"/v1/threads/{thread_id}/runs/active")).json()
    assert active["active_run"]["run_id"] == run_id

    decision = {"toolCallId": call_id, "action": "resume", "payload": {"approved": True}}
    r = await live.client.post(f"/v1/runs/{run_id}/decision", json=decision)
    assert r.status_code == 202
    assert r.json() == {
        "status": "decision_submitted",
        "run_id": run_id,
        "tool_call_id": call_id,
    }
    headers = {"Last-Event-ID": str(first[-1].id)}
    async with live.client.stream("GET", f"/v1/runs/{run_id}/events", headers=headers) as r:
        resumed = [f for f in await sse.collect(r) if f.data is not None]
    kinds = [f.data["event_type"] for f in resumed]
    assert kinds[0] == "run_start" and kinds[-1] == "run_finish"
    # same run, ids keep counting (not contiguous: the decision's journal record has a seq)
    assert resumed[0].id > first[-1].id
    assert resumed[-1].data["termination"] == {"type": "natural_end"}
    run = (await live.client.get(f"/v1/runs/{run_id}")).json()
    assert run["status"] == "done"
    history = (await live.client.get(f"/v1/threads/{thread_id}/messages")).json()["messages"]
    assert "approved" in history[-1]["content"][0]["text"]


async def test_hitl_decision_after_restart_resumes_from_the_checkpoint(
    make_server: Any, server_config: Any, sse: Any, tmp_path: Any, until: Any
) -> None:
    db = tmp_path / "hitl.db"
    first = await make_server(SqliteStore(db), server_config())
    async with first.client.stream("POST", "/v1/runs", json=_run("approve the deploy")) as r:
        frames = [f.data for f in await sse.collect(r) if f.data is not None]
    run_id = frames[-1]["run_id"]
    call_id = next(f["id"] for f in frames if f["event_type"] == "tool_call_done")
    await first.stop()  # graceful shutdown while the run waits for a human

    second = await make_server(SqliteStore(db), server_config())
    run = (await second.client.get(f"/v1/runs/{run_id}")).json()
    assert run["status"] == "waiting"
    decision = {"toolCallId": call_id, "action": "resume", "payload": {"approved": True}}
    r = await second.client.post(f"/v1/runs/{run_id}/decision", json=decision)
    assert r.status_code == 202

    async def done() -> bool:
        return (await second.client.get(f"/v1/runs/{run_id}")).json()["status"] == "done"

    await until(done)
    run = (await second.client.get(f"/v1/runs/{run_id}")).json()
    assert run["termination_reason"] == {"type": "natural_end"}
    # Unknown call id on a finished run → 404.
    r = await second.client.post(f"/v1/runs/{run_id}/decision", json=decision)
    assert r.status_code == 404


async def test_interrupt_supersedes_queued_work(live: Any, sse: Any, until: Any) -> None:
    c = live.client
    tid = (await c.post("/v1/threads", json={})).json()["id"]
    first = await c.post(
        f"/v1/threads/{tid}/messages", json={"messages": [{"role": "user", "content": "wait 30"}]}
    )
    assert first.json()["status"] == "running"
    second = await c.post(
        f"/v1/threads/{tid}/messages",
        json={"messages": [{"role": "user", "content": "weather in Rome"}]},
    )
    assert second.json()["status"] == "queued"
    r = await c.post(f"/v1/threads/{tid}/interrupt")
    assert r.status_code == 202
    assert r.json() == {
        "status": "interrupt_requested",
        "thread_id": tid,
        "superseded_dispatches": 1,
    }

    async def settled() -> bool:
        jobs = (await c.get(f"/v1/threads/{tid}/mailbox")).json()["items"]
        return all(j["status"] in ("Accepted", "Superseded") for j in jobs)

    await until(settled)
    runs = (await c.get(f"/v1/threads/{tid}/runs")).json()["items"]
    assert {r["status"] for r in runs} == {"done"}
    assert all(r["termination_reason"] == {"type": "cancelled"} for r in runs)


async def test_interrupt_then_queue_replaces_a_waiting_run(live: Any, sse: Any, until: Any) -> None:
    c = live.client
    async with c.stream("POST", "/v1/runs", json=_run("approve the deploy")) as r:
        frames = [f.data for f in await sse.collect(r) if f.data is not None]
    waiting_id, tid = frames[-1]["run_id"], frames[-1]["thread_id"]
    assert (await c.get(f"/v1/runs/{waiting_id}")).json()["status"] == "waiting"
    body = {
        "mode": "interrupt_then_queue",
        "messages": [{"role": "user", "content": "weather in Oslo"}],
    }
    r = await c.post(f"/v1/threads/{tid}/messages", json=body)
    assert r.status_code == 202

    async def settled() -> bool:
        jobs = (await c.get(f"/v1/threads/{tid}/mailbox")).json()["items"]
        return sorted(j["status"] for j in jobs) == ["Accepted", "Superseded"]

    await until(settled)
    old_run = (await c.get(f"/v1/runs/{waiting_id}")).json()
    assert old_run["status"] == "done" and old_run["termination_reason"] == {"type": "cancelled"}
    history = (await c.get(f"/v1/threads/{tid}/messages")).json()["messages"]
    assert "sunny in Oslo" in history[-1]["content"][0]["text"]
    calls = [c_["id"] for m in history for c_ in m.get("tool_calls") or []]
    results = [m["tool_call_id"] for m in history if m["role"] == "tool"]
    assert set(calls) <= set(results)  # the abandoned approval left no unpaired call


async def test_queue_input_on_a_waiting_run_continues_it_after_a_decision(
    live: Any, sse: Any, until: Any
) -> None:
    c = live.client
    async with c.stream("POST", "/v1/runs", json=_run("approve the deploy")) as r:
        frames = [f.data for f in await sse.collect(r) if f.data is not None]
    run_id, tid = frames[-1]["run_id"], frames[-1]["thread_id"]
    call_id = next(f["id"] for f in frames if f["event_type"] == "tool_call_done")
    more = {"messages": [{"role": "user", "content": "weather in Oslo"}]}
    r = await c.post(f"/v1/runs/{run_id}/inputs", json=more)
    assert r.status_code == 202 and r.json() == {"status": "inputs_accepted", "run_id": run_id}
    jobs = (await c.get(f"/v1/threads/{tid}/mailbox")).json()["items"]
    assert sorted(j["status"] for j in jobs) == ["Claimed", "Queued"]  # behind the live run
    decision = {"toolCallId": call_id, "action": "resume", "payload": {"approved": True}}
    assert (await c.post(f"/v1/runs/{run_id}/decision", json=decision)).status_code == 202

    async def settled() -> bool:
        jobs = (await c.get(f"/v1/threads/{tid}/mailbox")).json()["items"]
        return all(j["status"] == "Accepted" for j in jobs)

    await until(settled)
    history = (await c.get(f"/v1/threads/{tid}/messages")).json()["messages"]
    texts = " ".join(b.get("text", "") for m in history for b in m["content"])
    assert "approved" in texts and "sunny in Oslo" in texts


PERMISSION_CONFIG = """
providers:
  - {id: demo, adapter: demo}
models:
  - {id: demo, provider: demo, model: demo-scripted}
agents:
  - id: guarded
    model: demo
    plugin_ids: [permission]
    sections:
      permission:
        default_behavior: ask
        rules:
          - {tool: word_count, behavior: allow}
"""


async def test_permission_plugin_from_a_config_file_asks_over_http(
    make_server: Any, server_config: Any, sse: Any, tmp_path: Any
) -> None:
    from awaken_server.bootstrap import setup_from_file

    path = tmp_path / "awaken.yaml"
    path.write_text(PERMISSION_CONFIG)
    live = await make_server(setup=setup_from_file(path))
    c = live.client
    allowed = {"agentId": "guarded", "messages": [{"role": "user", "content": "count me"}]}
    async with c.stream("POST", "/v1/runs", json=allowed) as r:
        frames = [f.data for f in await sse.collect(r) if f.data]
    assert frames[-1]["termination"] == {"type": "natural_end"}

    asked = {"agentId": "guarded", "messages": [{"role": "user", "content": "weather in Rome"}]}
    async with c.stream("POST", "/v1/runs", json=asked) as r:
        first = [f for f in await sse.collect(r) if f.data]
    assert first[-1].data["termination"] == {"type": "suspended"}
    run_id = first[-1].data["run_id"]
    run = (await c.get(f"/v1/runs/{run_id}")).json()
    assert run["waiting"]["reason"] == "tool_permission"
    ticket = run["waiting"]["tickets"][0]
    assert ticket["ticket_id"] == f"perm_{ticket['tool_call_id']}"

    decision = {
        "toolCallId": ticket["ticket_id"],
        "action": "resume",
        "payload": {"approved": True},
    }
    assert (await c.post(f"/v1/runs/{run_id}/decision", json=decision)).status_code == 202
    headers = {"Last-Event-ID": str(first[-1].id)}
    async with c.stream("GET", f"/v1/runs/{run_id}/events", headers=headers) as r:
        resumed = [f.data for f in await sse.collect(r) if f.data]
    assert resumed[-1]["termination"] == {"type": "natural_end"}
    history = (await c.get(f"/v1/threads/{run['thread_id']}/messages")).json()["messages"]
    assert "sunny in Rome" in history[-1]["content"][0]["text"]
