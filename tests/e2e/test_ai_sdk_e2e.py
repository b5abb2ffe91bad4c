"""AI SDK v6 end to end: the official ``ai`` client against a live server, plus HTTP checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx


def test_ai_sdk_client_rebuilds_the_assistant_message(
    live_server: Any, run_node: Callable[..., dict[str, Any]]
) -> None:
    report = run_node("ai-sdk.mjs", live_server.base_url, "ai-sdk-e2e-thread")
    assert report["errors"] == []
    assert report["status"] == 200
    assert report["headers"]["content-type"].startswith("text/event-stream")
    assert report["headers"]["x-vercel-ai-ui-message-stream"] == "v1"
    assert report["headers"]["cache-control"] == "no-cache"
    types = report["chunkTypes"]
    assert types[0] == "start" and types[-1] == "finish"
    message = report["message"]
    assert message["role"] == "assistant"
    parts = message["parts"]
    tools = [p for p in parts if p["type"] == "tool-get_weather"]
    assert len(tools) == 1
    assert tools[0]["state"] == "output-available"
    assert tools[0]["input"] == {"city": "Tokyo"}
    assert tools[0]["output"] == {"forecast": "sunny in Tokyo"}
    texts = [p["text"] for p in parts if p["type"] == "text"]
    assert texts[-1] == 'Done: {"forecast":"sunny in Tokyo"}'
    assert all(p["state"] == "done" for p in parts if p["type"] == "text")
    assert report["resumeAfterFinish"] is True


def test_history_and_control_routes(live_server: Any) -> None:
    base = live_server.base_url
    with httpx.Client(base_url=base, timeout=30) as client:
        body = {"threadId": "ai-sdk-http", "messages": [{"role": "user", "content": "hi"}]}
        with client.stream("POST", "/v1/ai-sdk/chat", json=body) as response:
            assert response.status_code == 200
            frames = [line for line in response.iter_lines() if line.startswith("id: ")]
        assert frames[0] == "id: 1"  # SSE ids are journal seqs: run_start is seq 1
        history = client.get("/v1/ai-sdk/threads/ai-sdk-http/messages").json()
        roles = [m["role"] for m in history["messages"]]
        assert roles == ["user", "assistant", "assistant"]
        assert history["messages"][1]["parts"][1]["state"] == "output-available"
        assert history["has_more"] is False and history["next_cursor"] is None
        first = client.get("/v1/ai-sdk/threads/ai-sdk-http/messages?limit=1").json()
        assert first["total"] == 3 and first["has_more"] and first["next_cursor"] == "1"
        bad = client.get("/v1/ai-sdk/threads/ai-sdk-http/messages?cursor=x")
        assert bad.status_code == 400
        assert bad.json() == {"error": "cursor must be an unsigned integer offset"}
        # resending the same user message (same id) is not new input
        again = client.post("/v1/ai-sdk/chat", json={"threadId": "ai-sdk-http", "messages": []})
        assert again.status_code == 400
        assert again.json() == {"error": "no new messages or interaction responses"}
        assert client.get("/v1/ai-sdk/chat/ai-sdk-http/stream").status_code == 204
        assert client.get("/v1/ai-sdk/threads/nobody/stream").status_code == 204
        missing = client.post("/v1/ai-sdk/threads/nobody/cancel")
        assert missing.status_code == 404
        assert missing.json() == {"error": "thread not found: nobody"}
        assert client.post("/v1/ai-sdk/threads/nobody/interrupt").status_code == 404
        malformed = client.post(
            "/v1/ai-sdk/chat", content=b"{", headers={"content-type": "application/json"}
        )
        assert malformed.status_code == 400


def test_tool_approval_round_trip(
    live_server: Any, run_node: Callable[..., dict[str, Any]]
) -> None:
    report = run_node("ai-sdk-hitl.mjs", live_server.base_url, "ai-sdk-hitl", "true")
    assert report["errors"] == []
    [asked] = [p for p in report["first"]["parts"] if p["type"] == "tool-deploy"]
    assert asked["state"] == "approval-requested"
    assert asked["approval"]["id"] == f"perm_{asked['toolCallId']}"
    [done] = [p for p in report["second"]["parts"] if p["type"] == "tool-deploy"]
    assert done["state"] == "output-available" and done["output"] == {"deployed": True}
    texts = [p["text"] for p in report["second"]["parts"] if p["type"] == "text"]
    assert texts[-1] == 'Done: {"deployed":true}'
    assert report["secondTypes"][-1] == "finish"


def test_tool_denial_round_trip(live_server: Any, run_node: Callable[..., dict[str, Any]]) -> None:
    report = run_node("ai-sdk-hitl.mjs", live_server.base_url, "ai-sdk-deny", "false")
    assert report["errors"] == []
    [denied] = [p for p in report["second"]["parts"] if p["type"] == "tool-deploy"]
    assert denied["state"] == "output-denied"


def test_agent_preview_runs_a_draft_without_persisting(live_server: Any, sse_data: Any) -> None:
    with httpx.Client(base_url=live_server.base_url, timeout=30) as client:
        body = {
            "agent": {"id": "", "model_id": "m", "system_prompt": "Be brief"},
            "threadId": "preview-thread",
            "messages": [
                {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Weather?"}]},
                {"id": "a1", "role": "assistant", "parts": [{"type": "text", "text": "Where?"}]},
                {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "Tokyo"}]},
            ],
        }
        response = client.post("/v1/ai-sdk/agent-previews/runs", json=body)
        assert response.status_code == 200
        assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
        parts = sse_data(response)
        assert parts[-1] == {"type": "finish", "finishReason": "stop"}
        outputs = [p for p in parts if p["type"] == "tool-output-available"]
        assert outputs[0]["output"] == {"forecast": "sunny in Tokyo"}
        assert client.get("/v1/ai-sdk/threads/preview-thread/messages").json()["total"] == 0

        blank_model = client.post(
            "/v1/ai-sdk/agent-previews/runs",
            json={"agent": {"id": "d", "model_id": " "}, "messages": body["messages"]},
        )
        assert blank_model.status_code == 400
        assert blank_model.json() == {"error": "preview agent model_id cannot be empty"}
        unknown = client.post(
            "/v1/ai-sdk/agent-previews/runs",
            json={"agent": {"id": "d", "model_id": "nope"}, "messages": body["messages"]},
        )
        assert unknown.status_code == 400
        assert unknown.json()["error"].startswith("invalid preview agent 'd': ")
        empty = client.post(
            "/v1/ai-sdk/agent-previews/runs", json={"agent": {"id": "d", "model_id": "m"}}
        )
        assert empty.status_code == 400
        assert empty.json() == {"error": "no preview messages or interaction responses"}


def test_stream_resume_replays_after_last_event_id(live_server: Any, sse_data: Any) -> None:
    with httpx.Client(base_url=live_server.base_url, timeout=30) as client:
        body = {
            "threadId": "ai-sdk-resume",
            "messages": [
                {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "deploy"}]}
            ],
        }
        first = client.post("/v1/ai-sdk/threads/ai-sdk-resume/runs", json=body)
        ids = [int(line[4:]) for line in first.text.splitlines() if line.startswith("id: ")]
        assert ids == sorted(set(ids)) and ids[0] == 1  # journal seqs, increasing
        assert sse_data(first)[-1] == {"type": "finish", "finishReason": "tool-calls"}
        # the parked run waits live for its decision: its buffer can be resumed
        resumed = client.get(
            "/v1/ai-sdk/threads/ai-sdk-resume/stream", headers={"Last-Event-ID": str(ids[2])}
        )
        assert resumed.status_code == 200
        assert resumed.headers["x-vercel-ai-ui-message-stream"] == "v1"
        again = [int(line[4:]) for line in resumed.text.splitlines() if line.startswith("id: ")]
        assert again == ids[3:]
        # the same bytes as the live stream after the frame carrying that id
        assert resumed.text == first.text.split(f"id: {ids[2]}\n", 1)[1].split("\n\n", 1)[1]
        # thread-scoped cancel ends the parked run
        cancelled = client.post("/v1/ai-sdk/threads/ai-sdk-resume/cancel")
        assert cancelled.status_code == 202
        assert cancelled.json() == {"status": "cancel_requested", "thread_id": "ai-sdk-resume"}
