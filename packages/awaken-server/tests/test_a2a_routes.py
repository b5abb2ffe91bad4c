"""A2A routes (HTTP+JSON and JSON-RPC) against a live server running the offline demo agent
(real sockets, SQLite-free in-memory store, mailbox). The demo model is scripted: ``approve …``
suspends for a human, ``wait N`` runs a slow tool, anything else counts words and answers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from awaken_contract.registry_spec import AgentSpec
from awaken_runtime.testing import collect_sse, wait_until
from awaken_server.app import AppState, ServerConfig, create_app
from awaken_server.bootstrap import build_runtime, default_system_config
from awaken_server.demo import DEMO_MODEL_ID
from awaken_server.mailbox import MailboxConfig
from awaken_server.protocols.a2a import a2a_routes
from awaken_server.security import SecurityConfig
from awaken_stores import InMemoryStore
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

TOKEN = "ext-secret"


@dataclass
class Live:
    client: httpx.AsyncClient
    state: AppState
    url: str


async def _start(serve: Any, token: str | None) -> Live:
    setup = default_system_config({})
    store = InMemoryStore()
    other = AgentSpec("other").with_model(DEMO_MODEL_ID)
    system = setup.system.model_copy(update={"agents": [*setup.system.agents, other]})
    runtime = build_runtime(system, store=store, executors=setup.executors, tools=setup.tools)
    config = ServerConfig(
        default_agent_id="assistant",
        a2a_extended_card_bearer_token=token,
        max_concurrent_requests=0,
        mailbox=MailboxConfig(poll_interval=0.2, sweep_interval=0.3),
        security=SecurityConfig(
            a2a_push_allowed_hosts=["127.0.0.1"],  # the test's receiver
            public_url="https://agents.example.com",
        ),
    )
    state = AppState.build(runtime, store, config=config)
    url = await serve(create_app(state, extra_routes=a2a_routes()))
    return Live(httpx.AsyncClient(base_url=url, timeout=30), state, url)


@pytest.fixture
async def live(serve: Any) -> AsyncIterator[Live]:
    served = await _start(serve, TOKEN)
    yield served
    await served.client.aclose()


@pytest.fixture
async def plain(serve: Any) -> AsyncIterator[Live]:
    served = await _start(serve, None)
    yield served
    await served.client.aclose()


def _message(text: str | None = "hello", **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"messageId": extra.pop("messageId", "m-1"), "role": "ROLE_USER"}
    message["parts"] = extra.pop("parts", [{"text": text}])
    message.update(extra)
    return {"message": message}


def _reason(body: dict[str, Any]) -> str:
    details = body["error"].get("details", [])
    return str(details[0].get("reason")) if details else ""


async def _until_state(live: Live, task_id: str, states: set[str]) -> dict[str, Any]:
    async def reached() -> dict[str, Any] | None:
        task: dict[str, Any] = (await live.client.get(f"/v1/a2a/tasks/{task_id}")).json()
        return task if task["status"]["state"] in states else None

    found: dict[str, Any] = await wait_until(reached, message=f"{task_id} in {states}")
    return found


# ---------------------------------------------------------------------- cards
async def test_public_card_urls_come_from_the_configured_public_url(live: Live) -> None:
    headers = {"X-Forwarded-Proto": "http", "X-Forwarded-Host": "evil.example"}
    card = (await live.client.get("/.well-known/agent-card.json", headers=headers)).json()
    assert card["name"] == "assistant"
    assert card["description"] == "Awaken AI agent 'assistant'"
    assert card["supportedInterfaces"] == [
        {
            "url": "https://agents.example.com/v1/a2a",
            "protocolBinding": binding,
            "protocolVersion": "1.0",
        }
        for binding in ("JSONRPC", "HTTP+JSON")
    ]
    assert card["provider"] == {"organization": "Awaken", "url": "https://agents.example.com"}
    assert card["capabilities"] == {
        "streaming": True,
        "pushNotifications": True,
        "extendedAgentCard": True,
        "stateTransitionHistory": False,
    }
    assert card["security"] == [{"awakenExtendedCardBearer": []}]
    assert card["securityRequirements"] == [{"schemes": {"awakenExtendedCardBearer": {"list": []}}}]
    assert card["securitySchemes"] == {
        "awakenExtendedCardBearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}
    }
    assert card["skills"][0]["tags"] == ["awaken", "agent"]
    assert "url" not in card and "id" not in card


async def test_extended_card_needs_the_bearer_token(live: Live) -> None:
    path = "/v1/a2a/extendedAgentCard"
    missing = await live.client.get(path)
    assert missing.status_code == 401
    message = missing.json()["error"]["message"]
    assert message == "missing Authorization header for extendedAgentCard"
    basic = await live.client.get(path, headers={"Authorization": "Basic abc"})
    assert basic.status_code == 401
    wrong = await live.client.get(path, headers={"Authorization": "Bearer nope"})
    assert wrong.json()["error"]["message"] == "invalid bearer token for extendedAgentCard"
    ok = await live.client.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200 and ok.json()["name"] == "assistant"
    tenant = await live.client.get(
        "/v1/a2a/assistant/extendedAgentCard", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    jsonrpc, rest = tenant.json()["supportedInterfaces"]
    assert jsonrpc["tenant"] == "assistant" and jsonrpc["url"].endswith("/v1/a2a")
    assert rest["tenant"] == "assistant" and rest["url"].endswith("/v1/a2a/assistant")


async def test_extended_card_not_configured(plain: Live) -> None:
    card = (await plain.client.get("/.well-known/agent-card.json")).json()
    assert card["capabilities"]["extendedAgentCard"] is False and "securitySchemes" not in card
    response = await plain.client.get("/v1/a2a/extendedAgentCard")
    assert response.status_code == 501
    assert response.json()["error"]["status"] == "UNIMPLEMENTED"
    assert _reason(response.json()) == "UNSUPPORTED_OPERATION"


# ---------------------------------------------------------------------- request checks
async def test_version_content_type_and_path_errors(live: Live) -> None:
    client = live.client
    bad_version = await client.post(
        "/v1/a2a/message:send", json=_message(), headers={"A2A-Version": "0.3"}
    )
    assert bad_version.status_code == 400
    body = bad_version.json()
    assert _reason(body) == "VERSION_NOT_SUPPORTED"
    assert body["error"]["details"][0]["metadata"] == {
        "supportedVersion": "1.0",
        "requestedVersion": "0.3",
    }
    query = await client.get("/v1/a2a/tasks", params={"a2a-version": "2.0"})
    assert _reason(query.json()) == "VERSION_NOT_SUPPORTED"
    text = await client.post(
        "/v1/a2a/message:send", content=b"{}", headers={"Content-Type": "text/plain"}
    )
    violations = text.json()["error"]["details"][0]["fieldViolations"]
    assert text.status_code == 400 and violations[0]["field"] == "contentType"
    broken = await client.post(
        "/v1/a2a/message:send", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert broken.json()["error"]["details"][0]["fieldViolations"][0]["field"] == "body"
    unknown = await client.get("/v1/a2a/nowhere/at/all")
    assert unknown.status_code == 404
    assert unknown.json() == {
        "error": {
            "code": 404,
            "status": "NOT_FOUND",
            "message": "unsupported A2A path: /v1/a2a/nowhere/at/all",
        }
    }
    action = await client.post("/v1/a2a/tasks/t-1:explode")
    assert action.status_code == 404
    empty = await client.post("/v1/a2a/tasks/:cancel")
    assert empty.status_code == 400
    tenant = await client.post("/v1/a2a/ghost/message:send", json=_message())
    assert tenant.status_code == 404
    assert tenant.json()["error"]["message"] == "agent not found: ghost"


async def test_send_validation_collects_every_violation(live: Live) -> None:
    body = _message(
        role="ROLE_AGENT",
        messageId=" ",
        parts=[{"text": "a", "url": "http://x/y.png"}],
    )
    body["tenant"] = "other"
    response = await live.client.post("/v1/a2a/assistant/message:send", json=body)
    assert response.status_code == 400
    fields = [v["field"] for v in response.json()["error"]["details"][0]["fieldViolations"]]
    assert fields == ["tenant", "message.role", "message.messageId", "message.parts[0]"]
    no_parts = await live.client.post("/v1/a2a/message:send", json=_message(parts=[]))
    assert no_parts.json()["error"]["details"][0]["fieldViolations"][0]["field"] == (
        "message.parts"
    )
    modes = await live.client.post(
        "/v1/a2a/message:send",
        json={**_message(), "configuration": {"acceptedOutputModes": ["image/png"]}},
    )
    assert modes.status_code == 415 and _reason(modes.json()) == "CONTENT_TYPE_NOT_SUPPORTED"


# ---------------------------------------------------------------------- tasks
async def test_blocking_send_completes_with_history_and_artifact(live: Live) -> None:
    response = await live.client.post("/v1/a2a/message:send", json=_message("count these words"))
    assert response.status_code == 200
    task = response.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    answer = task["status"]["message"]
    assert answer["role"] == "ROLE_AGENT" and answer["taskId"] == task["id"]
    assert "The demo tool answered" in answer["parts"][0]["text"]
    assert task["artifacts"] == [
        {"artifactId": "response", "name": "response", "parts": answer["parts"]}
    ]
    assert task["history"][0] == {
        "messageId": "m-1",
        "role": "ROLE_USER",
        "parts": [{"text": "count these words"}],
        "taskId": task["id"],
        "contextId": task["contextId"],
    }
    short = (await live.client.get(f"/v1/a2a/tasks/{task['id']}?historyLength=1")).json()
    assert len(short["history"]) == 1 and short["history"][0]["role"] == "ROLE_AGENT"
    reuse = await live.client.post(
        "/v1/a2a/message:send", json=_message("again", messageId="m-2", taskId=task["id"])
    )
    assert reuse.status_code == 400
    assert reuse.json()["error"]["details"][0]["fieldViolations"][0]["field"] == "message.taskId"
    other_context = await live.client.post(
        "/v1/a2a/message:send",
        json=_message("x", messageId="m-3", taskId=task["id"], contextId="elsewhere"),
    )
    field = other_context.json()["error"]["details"][0]["fieldViolations"][0]["field"]
    assert field == "message.contextId"
    missing = await live.client.get("/v1/a2a/tasks/nope")
    assert missing.status_code == 404 and _reason(missing.json()) == "TASK_NOT_FOUND"


async def test_client_chosen_ids_and_tenant_scope(live: Live) -> None:
    body = _message("hi", taskId="task-77", contextId="thread-9")
    body["configuration"] = {"returnImmediately": True}
    response = await live.client.post("/v1/a2a/assistant/message:send", json=body)
    task = response.json()["task"]
    assert (task["id"], task["contextId"]) == ("task-77", "thread-9")
    assert task["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
    done = await _until_state(live, "task-77", {"TASK_STATE_COMPLETED"})
    assert done["contextId"] == "thread-9"
    scoped = await live.client.get("/v1/a2a/assistant/tasks/task-77")
    assert scoped.status_code == 200
    foreign = await live.client.get("/v1/a2a/other/tasks/task-77")
    assert foreign.status_code == 404 and _reason(foreign.json()) == "TASK_NOT_FOUND"
    listed = (await live.client.get("/v1/a2a/other/tasks")).json()
    assert "task-77" not in [t["id"] for t in listed.get("tasks", [])]
    assert (await live.client.post("/v1/a2a/other/tasks/task-77:cancel")).status_code == 404
    run = await live.state.store.load_run("task-77")
    assert run is not None and run.thread_id == "thread-9" and run.agent_id == "assistant"


async def test_interrupted_task_continues_with_the_same_task_id(live: Live) -> None:
    first = await live.client.post("/v1/a2a/message:send", json=_message("approve the deploy"))
    task = first.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_AUTH_REQUIRED"
    assert task["status"]["message"]["role"] == "ROLE_AGENT"
    answer = _message(messageId="m-2", taskId=task["id"], parts=[{"data": {"approved": True}}])
    second = await live.client.post("/v1/a2a/message:send", json=answer)
    assert second.status_code == 200
    done = second.json()["task"]
    assert done["id"] == task["id"] and done["status"]["state"] == "TASK_STATE_COMPLETED"
    assert "approved" in done["status"]["message"]["parts"][0]["text"]


async def test_cancel_running_and_terminal_tasks(live: Live) -> None:
    body = {**_message("wait 60"), "configuration": {"returnImmediately": True}}
    task = (await live.client.post("/v1/a2a/message:send", json=body)).json()["task"]
    await _until_state(live, task["id"], {"TASK_STATE_WORKING"})
    cancelled = await live.client.post(f"/v1/a2a/tasks/{task['id']}:cancel")
    assert cancelled.status_code == 200
    assert cancelled.json()["status"]["state"] == "TASK_STATE_CANCELED"
    again = await live.client.post(f"/v1/a2a/tasks/{task['id']}:cancel")
    assert again.status_code == 409 and _reason(again.json()) == "TASK_NOT_CANCELABLE"
    subscribe = await live.client.post(f"/v1/a2a/tasks/{task['id']}:subscribe")
    assert subscribe.status_code == 400 and _reason(subscribe.json()) == "UNSUPPORTED_OPERATION"


async def test_list_tasks_filters_and_pages(live: Live) -> None:
    for index in range(3):
        await live.client.post(
            "/v1/a2a/message:send",
            json=_message(f"hello {index}", messageId=f"m-{index}", contextId="ctx-list"),
        )
    listed = (await live.client.get("/v1/a2a/tasks", params={"contextId": "ctx-list"})).json()
    assert listed["totalSize"] == 3 and listed["pageSize"] == 50 and listed["nextPageToken"] == ""
    assert all("history" not in t and "artifacts" not in t for t in listed["tasks"])
    page = (
        await live.client.get("/v1/a2a/tasks", params={"contextId": "ctx-list", "pageSize": 2})
    ).json()
    assert len(page["tasks"]) == 2 and page["nextPageToken"] == "2"
    rest = (
        await live.client.get(
            "/v1/a2a/tasks", params={"contextId": "ctx-list", "pageSize": 2, "pageToken": "2"}
        )
    ).json()
    assert len(rest["tasks"]) == 1 and rest["nextPageToken"] == ""
    completed = await live.client.get(
        "/v1/a2a/tasks", params={"contextId": "ctx-list", "status": "completed"}
    )
    assert completed.json()["totalSize"] == 3
    failed = {"contextId": "ctx-list", "status": "failed"}
    none = await live.client.get("/v1/a2a/tasks", params=failed)
    assert none.json() == {"totalSize": 0, "pageSize": 50, "nextPageToken": ""}
    bad = await live.client.get("/v1/a2a/tasks", params={"status": "sleepy"})
    assert bad.status_code == 400
    token = await live.client.get("/v1/a2a/tasks", params={"pageToken": "abc"})
    assert token.status_code == 400


async def _sse_frames(response: httpx.Response) -> list[dict[str, Any]]:
    return [frame.data for frame in await collect_sse(response) if frame.data is not None]


async def test_message_stream_frames(live: Live) -> None:
    async with live.client.stream(
        "POST", "/v1/a2a/message:stream", json=_message("wait 1")
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        frames = await _sse_frames(response)
    assert list(frames[0]) == ["task"]
    task_id = frames[0]["task"]["id"]
    updates = [f["statusUpdate"] for f in frames if "statusUpdate" in f]
    assert updates[-1]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert all(u["taskId"] == task_id for u in updates)
    artifact = frames[-1]["artifactUpdate"]
    assert artifact["append"] is False and artifact["lastChunk"] is True
    assert artifact["artifact"]["artifactId"] == "response"


async def test_subscribe_to_a_running_task(live: Live) -> None:
    body = {**_message("wait 1"), "configuration": {"returnImmediately": True}}
    task = (await live.client.post("/v1/a2a/message:send", json=body)).json()["task"]
    async with live.client.stream("POST", f"/v1/a2a/tasks/{task['id']}:subscribe") as response:
        assert response.status_code == 200
        frames = await _sse_frames(response)
    assert frames[0]["task"]["id"] == task["id"]
    states = [f["statusUpdate"]["status"]["state"] for f in frames if "statusUpdate" in f]
    assert states[-1] == "TASK_STATE_COMPLETED"


# ---------------------------------------------------------------------- push notifications
async def test_push_config_crud_and_delivery(live: Live, serve: Any) -> None:
    received: list[tuple[dict[str, Any], dict[str, str]]] = []

    async def sink(request: Request) -> Response:
        received.append((json.loads(await request.body()), dict(request.headers)))
        return Response(status_code=204)

    receiver_url = await serve(Starlette(routes=[Route("/hook", sink, methods=["POST"])]))
    body = {**_message("approve it"), "configuration": {"returnImmediately": True}}
    task = (await live.client.post("/v1/a2a/message:send", json=body)).json()["task"]
    base = f"/v1/a2a/tasks/{task['id']}/pushNotificationConfigs"
    bad = await live.client.post(base, json={"url": "ftp://nope"})
    assert bad.json()["error"]["details"][0]["fieldViolations"][0]["field"] == (
        "pushNotificationConfig.url"
    )
    config = {
        "url": f"{receiver_url}/hook",
        "token": "tok",
        "authentication": {"scheme": "Bearer", "credentials": "cred"},
    }
    created = (await live.client.post(base, json=config)).json()
    assert created["taskId"] == task["id"] and created["id"]
    listed = (await live.client.get(base)).json()
    assert [c["id"] for c in listed["configs"]] == [created["id"]]
    assert listed["nextPageToken"] == ""
    fetched = await live.client.get(f"{base}/{created['id']}")
    assert fetched.json()["url"] == config["url"]
    await _until_state(live, task["id"], {"TASK_STATE_AUTH_REQUIRED"})
    await wait_until(
        lambda: any(
            f.get("statusUpdate", {}).get("status", {}).get("state") == "TASK_STATE_AUTH_REQUIRED"
            for f, _ in received
        ),
        message="an auth-required push",
    )
    frame, headers = received[-1]
    assert frame["statusUpdate"]["taskId"] == task["id"]
    assert headers["x-a2a-notification-token"] == "tok"
    assert headers["authorization"] == "Bearer cred"
    inline = {
        **_message("count me", messageId="m-push"),
        "configuration": {"taskPushNotificationConfig": {"url": f"{receiver_url}/hook"}},
    }
    pushed = (await live.client.post("/v1/a2a/message:send", json=inline)).json()["task"]
    assert pushed["status"]["state"] == "TASK_STATE_COMPLETED"

    def pushed_states() -> list[str]:
        return [
            f["statusUpdate"]["status"]["state"]
            for f, _ in received
            if f.get("statusUpdate", {}).get("taskId") == pushed["id"]
        ]

    await wait_until(lambda: "TASK_STATE_COMPLETED" in pushed_states(), message="a completed push")
    assert pushed_states()[-1] == "TASK_STATE_COMPLETED"
    deleted = await live.client.delete(f"{base}/{created['id']}")
    assert deleted.status_code == 204
    gone = await live.client.get(f"{base}/{created['id']}")
    assert gone.status_code == 404 and _reason(gone.json()) == "TASK_NOT_FOUND"


# ---------------------------------------------------------------------- JSON-RPC binding
async def _rpc(live: Live, method: str, params: Any = None, **headers: str) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": "r-1", "method": method}
    if params is not None:
        body["params"] = params
    response = await live.client.post("/v1/a2a", json=body, headers=headers)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    assert data["jsonrpc"] == "2.0" and data["id"] == "r-1"
    return data


def _rpc_message(text: str, **extra: Any) -> dict[str, Any]:
    return {"messageId": f"m-{text}", "role": "ROLE_USER", "parts": [{"text": text}], **extra}


async def test_jsonrpc_envelope_errors(live: Live) -> None:
    async def raw(content: bytes) -> dict[str, Any]:
        headers = {"content-type": "application/json"}
        response = await live.client.post("/v1/a2a", content=content, headers=headers)
        assert response.status_code == 200
        return response.json()  # type: ignore[no-any-return]

    assert (await raw(b"{nope"))["error"]["code"] == -32700
    assert (await raw(b"[" * 100_000 + b"]" * 100_000))["error"]["code"] == -32700  # too deep
    assert (await raw(b"[]"))["error"]["code"] == -32600
    wrong = await raw(b'{"jsonrpc": "1.0", "id": 7, "method": "GetTask"}')
    assert wrong["id"] == 7 and wrong["error"]["code"] == -32600
    boolean_id = await raw(b'{"jsonrpc": "2.0", "id": true, "method": "GetTask"}')
    assert boolean_id["id"] is None and boolean_id["error"]["code"] == -32600
    unknown = await _rpc(live, "message/send", {})
    assert unknown["error"]["code"] == -32601
    bad_params = await _rpc(live, "GetTask", [1, 2])
    assert bad_params["error"]["code"] == -32602
    version = await _rpc(live, "GetTask", {"id": "x"}, **{"A2A-Version": "0.3"})
    assert version["error"]["code"] == -32009
    reason = version["error"]["data"][0]
    assert reason["reason"] == "VERSION_NOT_SUPPORTED"
    assert reason["metadata"]["requestedVersion"] == "0.3"


async def test_jsonrpc_send_get_list_and_task_errors(live: Live) -> None:
    sent = await _rpc(live, "SendMessage", {"message": _rpc_message("one two three")})
    task = sent["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    got = await _rpc(live, "GetTask", {"id": task["id"], "historyLength": 1})
    assert got["result"]["id"] == task["id"] and len(got["result"]["history"]) == 1
    listed = await _rpc(live, "ListTasks", {"contextId": task["contextId"]})
    assert [t["id"] for t in listed["result"]["tasks"]] == [task["id"]]
    assert listed["result"]["totalSize"] == 1 and listed["result"]["nextPageToken"] == ""
    by_status = await _rpc(live, "ListTasks", {"status": "TASK_STATE_WORKING"})
    assert task["id"] not in [t["id"] for t in by_status["result"].get("tasks", [])]
    missing = await _rpc(live, "GetTask", {"id": "nope"})
    assert missing["error"]["code"] == -32001
    assert missing["error"]["data"][0]["metadata"] == {"taskId": "nope"}
    done = await _rpc(live, "CancelTask", {"id": task["id"]})
    assert done["error"]["code"] == -32002
    terminal = await live.client.post(
        "/v1/a2a",
        json={"jsonrpc": "2.0", "id": 3, "method": "SubscribeToTask", "params": task},
    )
    assert terminal.json()["error"]["code"] == -32004
    invalid = await _rpc(live, "SendMessage", {"message": {**_rpc_message("x"), "role": "agent"}})
    assert invalid["error"]["code"] == -32602
    assert "message.role" in invalid["error"]["message"]
    modes = {"message": _rpc_message("y"), "configuration": {"acceptedOutputModes": ["image/png"]}}
    assert (await _rpc(live, "SendMessage", modes))["error"]["code"] == -32005


async def test_jsonrpc_tenant_comes_from_params(live: Live) -> None:
    sent = await _rpc(live, "SendMessage", {"message": _rpc_message("hello"), "tenant": "other"})
    task = sent["result"]["task"]
    assert (await _rpc(live, "GetTask", {"id": task["id"], "tenant": "other"}))["result"]
    hidden = await _rpc(live, "GetTask", {"id": task["id"], "tenant": "assistant"})
    assert hidden["error"]["code"] == -32001
    unknown = await _rpc(live, "GetTask", {"id": task["id"], "tenant": "ghost"})
    assert unknown["error"]["code"] == -32602


async def test_jsonrpc_streaming_send_and_approval(live: Live) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "SendStreamingMessage",
        "params": {"message": _rpc_message("approve the deploy")},
    }
    async with live.client.stream("POST", "/v1/a2a", json=body) as response:
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
    answer = _rpc_message(
        "ok", taskId=task["id"], contextId=task["contextId"], parts=[{"data": {"approved": True}}]
    )
    done = await _rpc(live, "SendMessage", {"message": answer})
    assert done["result"]["task"]["id"] == task["id"]
    assert done["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_jsonrpc_push_configs_and_extended_card(live: Live) -> None:
    sent = await _rpc(live, "SendMessage", {"message": _rpc_message("push me")})
    task_id = sent["result"]["task"]["id"]
    config = {"taskId": task_id, "id": "c1", "url": "http://127.0.0.1:9/a2a"}
    created = await _rpc(live, "CreateTaskPushNotificationConfig", config)
    assert created["result"]["id"] == "c1" and created["result"]["taskId"] == task_id
    got = await _rpc(live, "GetTaskPushNotificationConfig", {"taskId": task_id, "id": "c1"})
    assert got["result"]["url"] == "http://127.0.0.1:9/a2a"
    listed = await _rpc(live, "ListTaskPushNotificationConfigs", {"taskId": task_id})
    assert [c["id"] for c in listed["result"]["configs"]] == ["c1"]
    deleted = await _rpc(live, "DeleteTaskPushNotificationConfig", {"taskId": task_id, "id": "c1"})
    assert deleted["result"] is None
    gone = await _rpc(live, "GetTaskPushNotificationConfig", {"taskId": task_id, "id": "c1"})
    assert gone["error"]["code"] == -32001
    denied = await _rpc(live, "GetExtendedAgentCard", {})
    assert denied["error"]["code"] == -32602
    assert denied["error"]["data"][0]["reason"] == "UNAUTHENTICATED"
    card = await _rpc(
        live, "GetExtendedAgentCard", {"tenant": "other"}, Authorization=f"Bearer {TOKEN}"
    )
    assert card["result"]["name"] == "other"
    assert {i["tenant"] for i in card["result"]["supportedInterfaces"]} == {"other"}
