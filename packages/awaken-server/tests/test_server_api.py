"""Black-box tests of the native HTTP API on a real uvicorn server (httpx over loopback)."""

from __future__ import annotations

from typing import Any

USER = [{"role": "user", "content": "weather in Paris?"}]


async def start_run(live: Any, sse: Any, **body: Any) -> list[Any]:
    payload = {"agentId": "assistant", "messages": USER, **body}
    async with live.client.stream("POST", "/v1/runs", json=payload) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        return await sse.collect(response)


# ---------------------------------------------------------------- health / metrics


async def test_health_live_and_metrics(live: Any) -> None:
    health = await live.client.get("/health")
    assert health.status_code == 200
    assert health.json() == {"status": "healthy", "components": {"store": "ok", "runtime": "ok"}}
    alive = await live.client.get("/health/live")
    assert alive.status_code == 200 and alive.content == b""
    metrics = await live.client.get("/metrics")
    assert metrics.status_code == 200
    assert metrics.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert 'awaken_http_requests_total{method="GET",route="/health",status="200"}' in metrics.text


async def test_health_reports_a_broken_store_as_503(make_server: Any) -> None:
    from awaken_stores import InMemoryStore

    class BrokenStore(InMemoryStore):
        async def list_threads(self, offset: int, limit: int) -> list[str]:
            raise OSError("disk on fire")

    live = await make_server(BrokenStore())
    response = await live.client.get("/health")
    assert response.status_code == 503
    assert response.json()["components"]["store"] == "error"


async def test_unknown_path_is_404_and_wrong_method_405(live: Any) -> None:
    assert (await live.client.get("/nope")).status_code == 404
    assert (await live.client.delete("/v1/runs")).status_code == 405


# ---------------------------------------------------------------- runs


async def test_run_streams_sse_with_journal_seq_ids(live: Any, sse: Any) -> None:
    frames = await start_run(live, sse)
    data = [f for f in frames if f.data is not None]
    ids = [f.id for f in data]
    # SSE ids are run-journal seqs: from 1, increasing (journal records that are not events,
    # such as inference and tool records, take seqs of their own).
    assert ids[0] == 1 and ids == sorted(set(ids))
    kinds = [f.data["event_type"] for f in data]
    assert kinds[0] == "run_start" and kinds[-1] == "run_finish"
    assert "tool_call_done" in kinds and kinds.count("step_start") == 2
    assert data[-1].data["termination"] == {"type": "natural_end"}
    run_id = data[0].data["run_id"]
    thread_id = data[0].data["thread_id"]

    run = (await live.client.get(f"/v1/runs/{run_id}")).json()
    assert run["status"] == "done" and run["thread_id"] == thread_id
    assert run["termination_reason"] == {"type": "natural_end"}

    history = (await live.client.get(f"/v1/threads/{thread_id}/messages")).json()
    roles = [m["role"] for m in history["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert history["total"] == 4 and history["has_more"] is False

    runs = (await live.client.get("/v1/runs", params={"status": "done"})).json()
    assert [r["run_id"] for r in runs["items"]] == [run_id]
    assert (await live.client.get("/v1/runs", params={"status": "running"})).json()["total"] == 0
    latest = (await live.client.get(f"/v1/threads/{thread_id}/runs/latest")).json()
    assert latest["run_id"] == run_id
    active = (await live.client.get(f"/v1/threads/{thread_id}/runs/active")).json()
    assert active == {"active_run": None}
    jobs = (await live.client.get(f"/v1/threads/{thread_id}/mailbox")).json()["items"]
    assert [j["status"] for j in jobs] == ["Accepted"]

    live.state.hubs.purge(older_than_secs=-1)  # replay buffer expired: the journal answers
    replay = await live.client.get(f"/v1/runs/{run_id}/events")
    assert replay.status_code == 200
    data = [line for line in replay.text.splitlines() if line.startswith("data: ")]
    assert '"event_type":"run_start"' in data[0] and '"event_type":"run_finish"' in data[-1]


async def test_run_continues_an_existing_thread(live: Any, sse: Any) -> None:
    first = await start_run(live, sse)
    thread_id = first[0].data["thread_id"]
    second = await start_run(live, sse, threadId=thread_id)
    assert second[0].data["thread_id"] == thread_id
    assert second[0].data["run_id"] != first[0].data["run_id"]
    history = (await live.client.get(f"/v1/threads/{thread_id}/messages")).json()
    assert history["total"] == 8


async def test_run_request_errors(live: Any) -> None:
    c = live.client
    bad_json = await c.post(
        "/v1/runs", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert bad_json.status_code == 400 and "error" in bad_json.json()
    no_type = await c.post("/v1/runs", content=b"{}", headers={"content-type": "text/plain"})
    assert no_type.status_code == 415
    missing_agent = await c.post("/v1/runs", json={"messages": USER})
    assert missing_agent.status_code == 400
    assert missing_agent.json() == {"error": "agent_id cannot be empty"}
    blank_agent = await c.post("/v1/runs", json={"agentId": "  ", "messages": USER})
    assert blank_agent.status_code == 400
    no_messages = await c.post("/v1/runs", json={"agentId": "assistant"})
    assert no_messages.json() == {"error": "at least one message is required"}
    only_tool_role = await c.post(
        "/v1/runs", json={"agentId": "assistant", "messages": [{"role": "tool", "content": "x"}]}
    )
    assert only_tool_role.status_code == 400
    missing_role = await c.post(
        "/v1/runs", json={"agentId": "assistant", "messages": [{"content": "x"}]}
    )
    assert missing_role.status_code == 400
    wrong_type = await c.post("/v1/runs", json={"agentId": "assistant", "messages": "hi"})
    assert wrong_type.status_code == 422
    not_object = await c.post("/v1/runs", json=[1, 2])
    assert not_object.status_code == 422


async def test_run_with_unknown_agent_answers_404_before_anything_runs(live: Any) -> None:
    payload = {"agentId": "ghost", "messages": USER}
    response = await live.client.post("/v1/runs", json=payload)
    assert response.status_code == 404
    assert response.json() == {"error": "agent not found: ghost"}
    assert (await live.client.get("/v1/runs")).json()["items"] == []
    assert (await live.client.get("/v1/threads")).json()["items"] == []


async def test_run_routes_404_and_400(live: Any) -> None:
    c = live.client
    for path in ("/v1/runs/nope", "/v1/runs/nope/events"):
        r = await c.get(path)
        assert r.status_code == 404 and r.json() == {"error": "run not found: nope"}
    r = await c.post("/v1/runs/nope/cancel")
    assert r.status_code == 404 and r.json() == {"error": "run not found: nope"}
    r = await c.post("/v1/runs/nope/inputs", json={"messages": USER})
    assert r.status_code == 404
    r = await c.post("/v1/runs/nope/decision", json={"toolCallId": "c1", "action": "resume"})
    assert r.status_code == 404
    r = await c.post("/v1/runs/nope/decision", json={"toolCallId": "c1", "action": "maybe"})
    assert r.status_code == 400
    assert r.json() == {"error": "invalid action: maybe, expected 'resume' or 'cancel'"}
    r = await c.post("/v1/runs/nope/decision", json={"action": "resume"})
    assert r.status_code == 400
    r = await c.get("/v1/runs", params={"status": "sleeping"})
    assert r.status_code == 400 and r.json() == {"error": "invalid status filter: sleeping"}
    r = await c.get("/v1/runs", params={"limit": "many"})
    assert r.status_code == 400


# ---------------------------------------------------------------- threads


async def test_thread_crud(live: Any) -> None:
    c = live.client
    created = await c.post("/v1/threads", json={"title": "Trip planning"})
    assert created.status_code == 201
    thread = created.json()
    tid = thread["id"]
    assert thread["metadata"]["title"] == "Trip planning"
    assert isinstance(thread["metadata"]["created_at"], int)

    assert (await c.get(f"/v1/threads/{tid}")).json()["id"] == tid
    assert tid in (await c.get("/v1/threads")).json()["items"]

    patched = await c.patch(f"/v1/threads/{tid}", json={"title": "Trip", "custom": {"a": 1}})
    assert patched.status_code == 200
    patched2 = await c.patch(f"/v1/threads/{tid}/metadata", json={"custom": {"b": 2}})
    meta = patched2.json()["metadata"]
    assert meta["title"] == "Trip" and meta["custom"] == {"a": 1, "b": 2}

    summaries = (await c.get("/v1/threads/summaries")).json()["items"]
    assert {"id": tid, "title": "Trip", "updated_at": meta["updated_at"], "agent_id": None} in (
        summaries
    )

    assert (await c.post("/v1/threads", json={})).status_code == 201
    assert (await c.delete(f"/v1/threads/{tid}")).status_code == 204
    missing = await c.get(f"/v1/threads/{tid}")
    assert missing.status_code == 404
    assert missing.json() == {"error": f"thread not found: {tid}"}
    assert (await c.delete(f"/v1/threads/{tid}")).status_code == 404
    assert (await c.patch(f"/v1/threads/{tid}", json={})).status_code == 404


async def test_thread_route_errors(live: Any) -> None:
    c = live.client
    assert (await c.get("/v1/threads/nope/messages")).status_code == 404
    assert (await c.post("/v1/threads/nope/messages", json={"messages": USER})).status_code == 404
    r = await c.post("/v1/threads/nope/cancel")
    assert r.status_code == 404 and r.json() == {"error": "thread not found: nope"}
    r = await c.post("/v1/threads/nope/interrupt")
    assert r.status_code == 404
    r = await c.post("/v1/threads/nope/decision", json={"toolCallId": "c1", "action": "resume"})
    assert r.status_code == 404 and r.json() == {"error": "thread not found: nope"}
    r = await c.get("/v1/threads/nope/runs/latest")
    assert r.json() == {"error": "run not found: no runs for thread nope"}
    assert (await c.get("/v1/threads/nope/runs/active")).json() == {"active_run": None}
    assert (await c.get("/v1/threads/nope/runs", params={"status": "x"})).status_code == 400
    r = await c.post("/v1/threads", content=b"[", headers={"content-type": "application/json"})
    assert r.status_code == 400
    tid = (await c.post("/v1/threads", json={})).json()["id"]
    r = await c.get(f"/v1/threads/{tid}/messages", params={"cursor": "abc"})
    assert r.status_code == 400
    assert r.json() == {"error": "cursor must be an unsigned integer offset"}
    r = await c.post(f"/v1/threads/{tid}/messages", json={"messages": USER, "mode": "sideways"})
    assert r.status_code == 400
    r = await c.post(f"/v1/threads/{tid}/messages", json={"messages": []})
    assert r.status_code == 400
    r = await c.post(
        f"/v1/threads/{tid}/messages", json={"messages": USER, "mode": "resume_open_run"}
    )
    assert r.status_code == 404
    r = await c.post(f"/v1/threads/{tid}/mailbox", json={})
    assert r.status_code == 400


async def test_background_messages_run_and_paging(live: Any, until: Any) -> None:
    c = live.client
    tid = (await c.post("/v1/threads", json={})).json()["id"]
    r = await c.post(f"/v1/threads/{tid}/messages", json={"messages": USER})
    assert r.status_code == 202
    assert r.json()["status"] in ("running", "queued") and r.json()["thread_id"] == tid

    async def done() -> bool:
        runs = (await c.get(f"/v1/threads/{tid}/runs", params={"status": "done"})).json()
        return runs["total"] == 1

    await until(done)
    page = (await c.get(f"/v1/threads/{tid}/messages", params={"limit": 3})).json()
    assert len(page["messages"]) == 3 and page["has_more"] and page["next_cursor"] == "3"
    rest = (await c.get(f"/v1/threads/{tid}/messages", params={"cursor": "3"})).json()
    assert len(rest["messages"]) == 1 and rest["next_cursor"] is None
    summaries = (await c.get("/v1/threads/summaries")).json()["items"]
    assert next(s for s in summaries if s["id"] == tid)["agent_id"] == "assistant"


async def test_mailbox_push_creates_a_job_and_a_run(live: Any, until: Any) -> None:
    c = live.client
    r = await c.post("/v1/threads/t-mail/mailbox", json={"payload": {"text": "weather in Rome"}})
    assert r.status_code == 201
    body = r.json()
    assert body["thread_id"] == "t-mail"

    async def accepted() -> bool:
        jobs = (await c.get("/v1/threads/t-mail/mailbox")).json()["items"]
        return [j["status"] for j in jobs] == ["Accepted"]

    await until(accepted)
    job = (await c.get("/v1/threads/t-mail/mailbox")).json()["items"][0]
    assert job["job_id"] == body["dispatch_id"] and job["run_id"] == body["run_id"]
    run = (await c.get(f"/v1/runs/{body['run_id']}")).json()
    assert run["status"] == "done" and run["agent_id"] == "assistant"


# ---------------------------------------------------------------- protection


async def test_api_keys_protect_v1_routes(make_server: Any, server_config: Any) -> None:
    live = await make_server(config=server_config(api_keys=["k1", "k2"]))
    c = live.client
    assert (await c.get("/health")).status_code == 200
    assert (await c.get("/metrics")).status_code == 200
    missing = await c.get("/v1/threads")
    assert missing.status_code == 401 and "error" in missing.json()
    wrong = await c.get("/v1/threads", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    basic = await c.get("/v1/threads", headers={"Authorization": "Basic k1"})
    assert basic.status_code == 401
    ok = await c.get("/v1/threads", headers={"Authorization": "Bearer k2"})
    assert ok.status_code == 200


async def test_health_and_metrics_can_require_keys(make_server: Any, server_config: Any) -> None:
    cfg = server_config(api_keys=["k"], auth_health=True, auth_metrics=True)
    live = await make_server(config=cfg)
    assert (await live.client.get("/health")).status_code == 401
    assert (await live.client.get("/metrics")).status_code == 401
    auth = {"Authorization": "bearer k"}
    assert (await live.client.get("/health", headers=auth)).status_code == 200


async def test_concurrency_limit_answers_503(make_server: Any, server_config: Any) -> None:
    config = server_config(max_concurrent_requests=1, max_concurrent_streams=1)
    live = await make_server(config=config)
    payload = {"agentId": "assistant", "messages": [{"role": "user", "content": "wait 2"}]}
    async with live.client.stream("POST", "/v1/runs", json=payload) as response:
        assert response.status_code == 200
        busy = await live.client.post("/v1/runs", json=payload)
        assert busy.status_code == 503
        assert busy.headers["retry-after"] == "1"
        # the open stream holds no request slot: health and short requests are served
        assert (await live.client.get("/health")).status_code == 200
        assert (await live.client.get("/v1/threads")).status_code == 200
        async for _ in response.aiter_lines():
            pass
    assert (await live.client.get("/health")).status_code == 200


async def test_body_size_limit_answers_413(make_server: Any, server_config: Any) -> None:
    live = await make_server(config=server_config(max_body_bytes=1000))
    big = {"agentId": "assistant", "messages": [{"role": "user", "content": "x" * 5000}]}
    r = await live.client.post("/v1/runs", json=big)
    assert r.status_code == 413 and "error" in r.json()


async def test_cors_preflight(make_server: Any, server_config: Any) -> None:
    live = await make_server(config=server_config(cors_allowed_origins=["http://ui.test"]))
    r = await live.client.options(
        "/v1/runs",
        headers={"Origin": "http://ui.test", "Access-Control-Request-Method": "POST"},
    )
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == "http://ui.test"


async def test_metrics_count_runs_inferences_tools_and_mailbox(live: Any, sse: Any) -> None:
    await start_run(live, sse)
    text = (await live.client.get("/metrics")).text
    assert 'awaken_runs_total{outcome="natural_end"} 1.0' in text
    assert "awaken_runs_started_total 1.0" in text
    inferences = (
        'awaken_inference_requests_total{agent="assistant",model="demo-scripted",outcome="ok"}'
    )
    assert f"{inferences} 2.0" in text
    assert 'awaken_tool_calls_total{agent="assistant",outcome="success",tool="' in text
    assert "awaken_inference_duration_seconds_count" in text
    assert 'awaken_mailbox_operations_total{operation="ack",result="ok"} 1.0' in text
    assert "awaken_active_runs 0.0" in text
    assert "awaken_mailbox_queue_depth" in text
    assert 'route="/v1/runs",status="200"' in text
