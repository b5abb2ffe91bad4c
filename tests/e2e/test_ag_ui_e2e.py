"""AG-UI end to end: ``@ag-ui/core`` schemas and the ``@ag-ui/client`` HttpAgent, live server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest


@pytest.fixture(scope="module")
def report(live_server: Any, run_node: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    return run_node("ag-ui.mjs", live_server.base_url, "ag-ui-e2e")


def test_every_event_validates_against_ag_ui_core(report: dict[str, Any]) -> None:
    assert report["invalid"] == []
    assert report["validated"] > 40  # raw run + three HttpAgent scenarios (five runs)
    raw = report["raw"]
    assert "error" not in raw, raw.get("error")
    assert raw["status"] == 200 and raw["contentType"].startswith("text/event-stream")
    assert raw["invalid"] == []
    types = raw["types"]
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
    for expected in ("TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"):
        assert expected in types
    assert "TEXT_MESSAGE_CONTENT" in types and "STATE_SNAPSHOT" in types


def test_http_agent_completes_a_tool_call_run(report: dict[str, Any]) -> None:
    agent = report["agent"]
    assert "error" not in agent, agent.get("error")
    assert agent["events"][0] == "RUN_STARTED" and agent["events"][-1] == "RUN_FINISHED"
    messages = agent["messages"]
    calls = [c for m in messages if m["role"] == "assistant" for c in m.get("toolCalls", [])]
    assert [c["function"]["name"] for c in calls] == ["get_weather"]
    results = [m for m in messages if m["role"] == "tool"]
    assert [r["toolCallId"] for r in results] == [calls[0]["id"]]
    assert results[0]["content"] == '{"forecast":"sunny in Tokyo"}'
    final = [m for m in messages if m["role"] == "assistant" and m.get("content")]
    assert final[-1]["content"] == 'Done: {"forecast":"sunny in Tokyo"}'


def test_http_agent_frontend_tool_interrupt_and_resume(report: dict[str, Any]) -> None:
    frontend = report["frontend"]
    assert "error" not in frontend, frontend.get("error")
    assert frontend["firstOutcome"] == "interrupt"
    [interrupt] = frontend["interrupts"]
    assert interrupt["reason"] == "tool:pick_color"
    assert frontend["pendingAfterFirst"] == [interrupt["id"]]
    assert frontend["secondOutcome"] == "success"
    assert "TOOL_CALL_RESULT" in frontend["second"]
    final = [m for m in frontend["messages"] if m["role"] == "assistant" and m.get("content")]
    assert final[-1]["content"] == 'Done: {"color":"blue"}'


def test_history_interrupt_and_errors(live_server: Any, report: dict[str, Any]) -> None:
    with httpx.Client(base_url=live_server.base_url, timeout=30) as client:
        history = client.get("/v1/ag-ui/threads/ag-ui-e2e-agent/messages").json()
        assert history["messages"][0]["role"] == "user"
        assert history["messages"][0]["content"] == [{"type": "text", "text": "Weather in Tokyo?"}]
        empty = client.post("/v1/ag-ui/run", json={"threadId": "x", "messages": []})
        assert empty.status_code == 400
        assert empty.json() == {"error": "at least one message is required"}
        assert client.post("/v1/ag-ui/threads/nobody/interrupt").status_code == 404
        bad_tools = client.post(
            "/v1/ag-ui/run", json={"messages": [{"role": "user", "content": "x"}], "tools": {}}
        )
        assert bad_tools.status_code == 400


def test_http_agent_permission_approval(report: dict[str, Any]) -> None:
    approval = report["approval"]
    assert "error" not in approval, approval.get("error")
    [interrupt] = approval["interrupts"]
    assert interrupt["reason"] == "tool:PermissionConfirm"
    assert interrupt["id"] == f"perm_{interrupt['toolCallId']}"
    assert approval["secondOutcome"] == "success"
    results = [e for e in approval["second"] if e["type"] == "TOOL_CALL_RESULT"]
    assert [r["toolCallId"] for r in results] == [interrupt["toolCallId"]]
    assert results[0]["content"] == '{"deployed":true}'


def test_thread_and_agent_scoped_routes(live_server: Any, sse_data: Any) -> None:
    message = {"id": "s1", "role": "user", "content": "Weather in Tokyo?"}
    with httpx.Client(base_url=live_server.base_url, timeout=30) as client:
        scoped = client.post(
            "/v1/ag-ui/threads/ag-ui-scoped/runs", json={"threadId": "other", "messages": [message]}
        )
        assert scoped.status_code == 200
        events = sse_data(scoped)
        assert events[0]["type"] == "RUN_STARTED" and events[0]["threadId"] == "ag-ui-scoped"
        assert events[-1]["type"] == "RUN_FINISHED"
        ghost = client.post("/v1/ag-ui/agents/ghost/runs", json={"messages": [message]})
        assert ghost.status_code == 404  # resolved before the stream opens
        assert ghost.json() == {"error": "agent not found: ghost"}


def test_interrupt_releases_a_parked_run(live_server: Any, sse_data: Any) -> None:
    message = {"id": "i1", "role": "user", "content": "please deploy"}
    with httpx.Client(base_url=live_server.base_url, timeout=30) as client:
        parked = client.post("/v1/ag-ui/threads/ag-ui-int/runs", json={"messages": [message]})
        outcome = sse_data(parked)[-1]["outcome"]
        assert outcome["type"] == "interrupt"
        response = client.post("/v1/ag-ui/threads/ag-ui-int/interrupt")
        assert response.status_code == 202
        assert response.json() == {
            "status": "interrupt_requested",
            "thread_id": "ag-ui-int",
            "superseded_dispatches": 0,
        }
