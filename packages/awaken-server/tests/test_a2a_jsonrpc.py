"""The A2A JSON-RPC binding over a real socket: the JSON-RPC envelope, method names, tenants
in params, A2A error codes, push configs, the extended card and SSE streams. The demo model
is scripted (``approve …`` suspends, anything else counts words and answers)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from awaken_contract.registry_spec import AgentSpec
from awaken_server.app import AppState, ServerConfig, create_app
from awaken_server.bootstrap import build_runtime, default_system_config
from awaken_server.demo import DEMO_MODEL_ID
from awaken_server.mailbox import MailboxConfig
from awaken_server.protocols.a2a import a2a_routes
from awaken_stores import InMemoryStore

TOKEN = "ext-secret"


@pytest.fixture
async def client(serve: Any) -> AsyncIterator[httpx.AsyncClient]:
    setup = default_system_config({})
    store = InMemoryStore()
    other = AgentSpec("other").with_model(DEMO_MODEL_ID)
    system = setup.system.model_copy(update={"agents": [*setup.system.agents, other]})
    runtime = build_runtime(system, store=store, executors=setup.executors, tools=setup.tools)
    config = ServerConfig(
        default_agent_id="assistant",
        a2a_extended_card_bearer_token=TOKEN,
        max_concurrent_requests=0,
        mailbox=MailboxConfig(poll_interval=0.2, sweep_interval=0.3),
    )
    state = AppState.build(runtime, store, config=config)
    url = await serve(create_app(state, extra_routes=a2a_routes()))
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        yield http


async def _rpc(
    client: httpx.AsyncClient, method: str, params: Any = None, **headers: str
) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": "r-1", "method": method}
    if params is not None:
        body["params"] = params
    response = await client.post("/v1/a2a", json=body, headers=headers)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    assert data["jsonrpc"] == "2.0" and data["id"] == "r-1"
    return data


def _message(text: str, **extra: Any) -> dict[str, Any]:
    return {"messageId": f"m-{text}", "role": "ROLE_USER", "parts": [{"text": text}], **extra}


async def test_envelope_errors(client: httpx.AsyncClient) -> None:
    async def raw(content: bytes) -> dict[str, Any]:
        headers = {"content-type": "application/json"}
        response = await client.post("/v1/a2a", content=content, headers=headers)
        assert response.status_code == 200
        return response.json()  # type: ignore[no-any-return]

    assert (await raw(b"{nope"))["error"]["code"] == -32700
    assert (await raw(b"[]"))["error"]["code"] == -32600
    wrong = await raw(b'{"jsonrpc": "1.0", "id": 7, "method": "GetTask"}')
    assert wrong["id"] == 7 and wrong["error"]["code"] == -32600
    boolean_id = await raw(b'{"jsonrpc": "2.0", "id": true, "method": "GetTask"}')
    assert boolean_id["id"] is None and boolean_id["error"]["code"] == -32600
    unknown = await _rpc(client, "message/send", {})
    assert unknown["error"]["code"] == -32601
    bad_params = await _rpc(client, "GetTask", [1, 2])
    assert bad_params["error"]["code"] == -32602
    version = await _rpc(client, "GetTask", {"id": "x"}, **{"A2A-Version": "0.3"})
    assert version["error"]["code"] == -32009
    reason = version["error"]["data"][0]
    assert reason["reason"] == "VERSION_NOT_SUPPORTED"
    assert reason["metadata"]["requestedVersion"] == "0.3"


async def test_send_get_list_and_task_errors(client: httpx.AsyncClient) -> None:
    sent = await _rpc(client, "SendMessage", {"message": _message("one two three")})
    task = sent["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    got = await _rpc(client, "GetTask", {"id": task["id"], "historyLength": 1})
    assert got["result"]["id"] == task["id"] and len(got["result"]["history"]) == 1
    listed = await _rpc(client, "ListTasks", {"contextId": task["contextId"]})
    assert [t["id"] for t in listed["result"]["tasks"]] == [task["id"]]
    assert listed["result"]["totalSize"] == 1 and listed["result"]["nextPageToken"] == ""
    by_status = await _rpc(client, "ListTasks", {"status": "TASK_STATE_WORKING"})
    assert task["id"] not in [t["id"] for t in by_status["result"].get("tasks", [])]
    missing = await _rpc(client, "GetTask", {"id": "nope"})
    assert missing["error"]["code"] == -32001
    assert missing["error"]["data"][0]["metadata"] == {"taskId": "nope"}
    done = await _rpc(client, "CancelTask", {"id": task["id"]})
    assert done["error"]["code"] == -32002
    terminal = await client.post(
        "/v1/a2a",
        json={"jsonrpc": "2.0", "id": 3, "method": "SubscribeToTask", "params": task},
    )
    assert terminal.json()["error"]["code"] == -32004
    invalid = await _rpc(client, "SendMessage", {"message": {**_message("x"), "role": "agent"}})
    assert invalid["error"]["code"] == -32602
    assert "message.role" in invalid["error"]["message"]
    modes = {"message": _message("y"), "configuration": {"acceptedOutputModes": ["image/png"]}}
    assert (await _rpc(client, "SendMessage", modes))["error"]["code"] == -32005


async def test_tenant_comes_from_params(client: httpx.AsyncClient) -> None:
    sent = await _rpc(client, "SendMessage", {"message": _message("hello"), "tenant": "other"})
    task = sent["result"]["task"]
    assert (await _rpc(client, "GetTask", {"id": task["id"], "tenant": "other"}))["result"]
    hidden = await _rpc(client, "GetTask", {"id": task["id"], "tenant": "assistant"})
    assert hidden["error"]["code"] == -32001
    unknown = await _rpc(client, "GetTask", {"id": task["id"], "tenant": "ghost"})
    assert unknown["error"]["code"] == -32602


async def test_streaming_send_and_approval(client: httpx.AsyncClient) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "SendStreamingMessage",
        "params": {"message": _message("approve the deploy")},
    }
    async with client.stream("POST", "/v1/a2a", json=body) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        frames = [
            json.loads(line[len("data: ") :])
            async for line in response.aiter_lines()
            if line.startswith("data: ")
        ]
    assert all(f["jsonrpc"] == "2.0" and f["id"] == 9 for f in frames)
    task = frames[0]["result"]["task"]
    results = [f["result"] for f in frames]
    states = [(r.get("statusUpdate") or r.get("task") or {}).get("status", {}) for r in results]
    assert [s["state"] for s in states if s][-1] == "TASK_STATE_AUTH_REQUIRED"
    answer = _message(
        "ok", taskId=task["id"], contextId=task["contextId"], parts=[{"data": {"approved": True}}]
    )
    done = await _rpc(client, "SendMessage", {"message": answer})
    assert done["result"]["task"]["id"] == task["id"]
    assert done["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_push_configs_and_extended_card(client: httpx.AsyncClient) -> None:
    sent = await _rpc(client, "SendMessage", {"message": _message("push me")})
    task_id = sent["result"]["task"]["id"]
    config = {"taskId": task_id, "id": "c1", "url": "https://hooks.example.com/a2a"}
    created = await _rpc(client, "CreateTaskPushNotificationConfig", config)
    assert created["result"]["id"] == "c1" and created["result"]["taskId"] == task_id
    got = await _rpc(client, "GetTaskPushNotificationConfig", {"taskId": task_id, "id": "c1"})
    assert got["result"]["url"] == "https://hooks.example.com/a2a"
    listed = await _rpc(client, "ListTaskPushNotificationConfigs", {"taskId": task_id})
    assert [c["id"] for c in listed["result"]["configs"]] == ["c1"]
    deleted = await _rpc(
        client, "DeleteTaskPushNotificationConfig", {"taskId": task_id, "id": "c1"}
    )
    assert deleted["result"] is None
    gone = await _rpc(client, "GetTaskPushNotificationConfig", {"taskId": task_id, "id": "c1"})
    assert gone["error"]["code"] == -32001
    denied = await _rpc(client, "GetExtendedAgentCard", {})
    assert denied["error"]["code"] == -32602
    assert denied["error"]["data"][0]["reason"] == "UNAUTHENTICATED"
    card = await _rpc(
        client, "GetExtendedAgentCard", {"tenant": "other"}, Authorization=f"Bearer {TOKEN}"
    )
    assert card["result"]["name"] == "other"
    assert {i["tenant"] for i in card["result"]["supportedInterfaces"]} == {"other"}
