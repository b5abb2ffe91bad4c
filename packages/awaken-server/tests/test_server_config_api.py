"""The config API: validated writes published as a new runtime, redaction, schemas, auth."""

from __future__ import annotations

from typing import Any

import pytest
from awaken_server.app import AppState, create_app
from awaken_stores import InMemoryStore


def _run(agent: str) -> dict[str, Any]:
    return {"agentId": agent, "messages": [{"role": "user", "content": "weather in Lima"}]}


async def test_agent_written_through_the_api_is_used_by_the_next_run(live: Any, sse: Any) -> None:
    c = live.client
    before = await c.post("/v1/runs", json=_run("helper"))
    assert before.status_code == 404  # unknown agent

    agent = {"id": "helper", "model_id": "demo", "system_prompt": "Help."}
    created = await c.post("/v1/config/agents", json=agent)
    assert created.status_code == 201 and created.json()["id"] == "helper"
    assert (await c.post("/v1/config/agents", json=agent)).status_code == 409

    async with c.stream("POST", "/v1/runs", json=_run("helper")) as r:
        after = [f.data for f in await sse.collect(r) if f.data]
    assert after[-1]["termination"] == {"type": "natural_end"}

    assert (await c.get("/v1/config/agents/helper")).json()["system_prompt"] == "Help."
    listed = (await c.get("/v1/agents")).json()
    assert [a["id"] for a in listed["items"]] == ["helper"] and listed["limit"] == 100
    assert (await c.get("/v1/agents/helper")).status_code == 200
    caps = (await c.get("/v1/capabilities")).json()
    assert {"assistant", "helper"} <= set(caps["agents"])
    assert "get_weather" in {t["id"] for t in caps["tools"]}
    assert [n["namespace"] for n in caps["namespaces"]] == [
        "agents",
        "models",
        "providers",
        "mcp-servers",
    ]

    updated = await c.put("/v1/config/agents/helper", json={**agent, "system_prompt": "New."})
    assert updated.status_code == 200 and updated.json()["system_prompt"] == "New."
    assert (await c.delete("/v1/config/agents/helper")).status_code == 204
    missing = await c.get("/v1/config/agents/helper")
    assert missing.status_code == 404 and missing.json() == {"error": "agents/helper"}
    gone = await c.delete("/v1/config/agents/helper")
    assert gone.json() == {"error": "not found: agents/helper"}


async def test_config_write_errors(live: Any) -> None:
    c = live.client
    r = await c.post("/v1/config/widgets", json={"id": "x"})
    assert r.status_code == 404 and r.json() == {"error": "unknown namespace: widgets"}
    r = await c.post("/v1/config/agents", json=[1])
    assert r.json() == {"error": "invalid payload: expected JSON object body"}
    r = await c.post("/v1/config/agents", json={"model_id": "demo"})
    assert r.json() == {"error": "missing 'id' field in body"}
    r = await c.put("/v1/config/agents/a", json={"id": "b"})
    assert r.json() == {"error": "invalid payload: path id 'a' does not match body id 'b'"}
    r = await c.post("/v1/config/agents", json={"id": "x", "bogus": 1})
    assert r.status_code == 400 and r.json()["error"].startswith("invalid payload: bogus")
    r = await c.post("/v1/config/mcp-servers", json={"id": "m", "transport": "stdio"})
    assert r.status_code == 400
    # An agent on a model that does not exist fails the runtime build and is rolled back.
    r = await c.post("/v1/config/agents", json={"id": "x", "model_id": "no-such-model"})
    assert r.status_code == 400 and r.json()["error"].startswith("invalid payload")
    assert (await c.get("/v1/config/agents/x")).status_code == 404


async def test_provider_secrets_are_never_returned(live: Any) -> None:
    c = live.client
    provider = {"id": "oa", "adapter": "openai", "api_key": "sk-secret"}
    r = await c.post("/v1/config/providers", json=provider)
    assert r.status_code == 201
    assert "api_key" not in r.json() and r.json()["has_api_key"] is True
    kept = await c.put("/v1/config/providers/oa", json={"id": "oa", "adapter": "openai"})
    assert kept.json()["has_api_key"] is True  # absent api_key on PUT keeps the stored one
    listed = (await c.get("/v1/config/providers")).json()["items"]
    assert "sk-secret" not in str(listed)
    cleared = await c.put(
        "/v1/config/providers/oa", json={"id": "oa", "adapter": "openai", "api_key": ""}
    )
    assert "has_api_key" not in cleared.json()
    schema = (await c.get("/v1/config/providers/$schema")).json()
    assert "adapter" in schema["properties"]


async def test_admin_token_guards_config_routes(
    make_server: Any, server_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    live = await make_server(config=server_config(admin_bearer_token="admin-secret"))
    c = live.client
    r = await c.get("/v1/config/agents")
    assert r.status_code == 401 and r.json() == {"error": "admin authentication required"}
    r = await c.get("/v1/config/agents", headers={"Authorization": "Bearer nope"})
    assert r.json() == {"error": "invalid admin bearer token"}
    r = await c.get("/v1/config/agents", headers={"Authorization": "Token x"})
    assert r.json() == {"error": "Authorization header must use Bearer authentication"}
    ok = await c.get("/v1/config/agents", headers={"Authorization": "Bearer admin-secret"})
    assert ok.status_code == 200
    assert (await c.get("/v1/threads")).status_code == 200  # admin token only guards config


async def test_config_api_without_a_config_store_answers_400() -> None:
    import httpx

    class NoConfigStore(InMemoryStore):
        def __init__(self) -> None:
            super().__init__()
            del self.config

    store = NoConfigStore()
    state = AppState.build(object(), store)
    app = create_app(state)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        for path in ("/v1/config/agents", "/v1/capabilities", "/v1/agents"):
            r = await c.get(path)
            assert r.status_code == 400
            assert r.json() == {"error": "config management API not enabled"}
