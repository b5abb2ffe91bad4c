"""Issue 11, one regression test per finding: real uvicorn on loopback, driven with httpx."""

from __future__ import annotations

import json
import logging
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from awaken_contract.registry_spec import AgentSpec
from awaken_server.bootstrap import default_system_config
from awaken_server.demo import DEMO_MODEL_ID
from awaken_server.protocols.mcp_http.routes import McpHttp
from awaken_server.security import SecurityConfig
from awaken_stores import FileStore

USER = [{"role": "user", "content": "hello"}]
WEATHER = [{"role": "user", "content": "weather in Lima"}]
JSON = {"content-type": "application/json"}
SECRET = "sk-secret-value-123"
MCP_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


@pytest.fixture(autouse=True)
def _provider_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The variable the test providers' ``api_key_env`` names."""
    monkeypatch.setenv("SECURITY_TEST_API_KEY", "test-key")


def _provider(**extra: Any) -> dict[str, Any]:
    return {"id": "p", "adapter": "openai", **extra}


def _permission_setup() -> Any:
    """The demo setup whose stored agent denies ``get_weather`` through the permission plugin."""
    setup = default_system_config({})
    agent = AgentSpec(
        "assistant",
        model=DEMO_MODEL_ID,
        plugin_ids=["permission"],
        sections={
            "permission": {
                "default_behavior": "allow",
                "rules": [{"tool": "get_weather", "behavior": "deny"}],
            }
        },
    )
    setup.system = setup.system.model_copy(update={"agents": [agent]})
    return setup


def _tool_outputs(text: str) -> list[dict[str, Any]]:
    parts = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]
    return [p for p in parts if str(p.get("type", "")).startswith("tool-output")]


# ---------------------------------------------------------------------- 1. config API secrets
async def test_config_routes_accept_only_json_media_types(live: Any) -> None:
    body = json.dumps(_provider(api_key_env="SECURITY_TEST_API_KEY"))
    simple = await live.client.post(
        "/v1/config/providers", content=body, headers={"content-type": "text/plain;x=json"}
    )
    assert simple.status_code == 415 and "error" in simple.json()
    for media in ("application/json; charset=utf-8", "application/merge-patch+json"):
        doc = json.dumps(_provider(id=f"p{len(media)}", api_key_env="SECURITY_TEST_API_KEY"))
        ok = await live.client.post(
            "/v1/config/providers", content=doc, headers={"content-type": media}
        )
        assert ok.status_code == 201, ok.text
    run = await live.client.post(
        "/v1/runs",
        content=json.dumps({"agentId": "assistant", "messages": USER}),
        headers={"content-type": "text/plain"},
    )
    assert run.status_code == 415


async def test_unauthenticated_config_writes_only_from_loopback_without_foreign_origin(
    live: Any,
) -> None:
    doc = _provider(api_key_env="SECURITY_TEST_API_KEY")
    foreign = await live.client.post(
        "/v1/config/providers", json=doc, headers={"origin": "http://evil.example"}
    )
    assert foreign.status_code == 403 and "foreign Origin" in foreign.json()["error"]
    own = await live.client.post("/v1/config/providers", json=doc, headers={"origin": live.url})
    assert own.status_code == 201


async def test_api_key_env_names_only_allowed_variables(live: Any) -> None:
    for name in ("AWAKEN_API_KEYS", "AWAKEN_ADMIN_API_BEARER_TOKEN", "HOME", "DATABASE_URL"):
        r = await live.client.post("/v1/config/providers", json=_provider(api_key_env=name))
        assert r.status_code == 400 and "api_key_env" in r.json()["error"], name
    allowed = await live.client.post(
        "/v1/config/providers", json=_provider(api_key_env="SECURITY_TEST_API_KEY")
    )
    assert allowed.status_code == 201


async def test_base_url_changes_need_the_admin_token(make_server: Any, server_config: Any) -> None:
    open_server = await make_server()
    r = await open_server.client.post(
        "/v1/config/providers", json=_provider(base_url="http://127.0.0.1:9/v1")
    )
    assert r.status_code == 403 and "base_url" in r.json()["error"]

    admin = await make_server(config=server_config(admin_bearer_token="adm"))
    token = {"Authorization": "Bearer adm"}
    doc = _provider(base_url="http://127.0.0.1:9/v1", api_key=SECRET)
    assert (await admin.client.post("/v1/config/providers", json=doc)).status_code == 401
    created = await admin.client.post("/v1/config/providers", json=doc, headers=token)
    assert created.status_code == 201 and SECRET not in created.text


async def test_api_keys_without_admin_token_never_grant_config_writes(
    make_server: Any, server_config: Any
) -> None:
    live = await make_server(config=server_config(api_keys=["k1"]))
    r = await live.client.post(
        "/v1/config/providers",
        json=_provider(api_key_env="AWAKEN_API_KEYS"),
        headers={"Authorization": "Bearer k1"},
    )
    assert r.status_code == 403 and "admin token" in r.json()["error"]


async def test_secrets_never_appear_in_responses_logs_or_reprs(
    make_server: Any, server_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    live = await make_server(config=server_config(admin_bearer_token="adm-token-xyz"))
    token = {"Authorization": "Bearer adm-token-xyz"}
    doc = _provider(api_key=SECRET, headers={"X-Api-Key": SECRET})
    created = await live.client.post("/v1/config/providers", json=doc, headers=token)
    assert created.status_code == 201
    bad = await live.client.post(
        "/v1/config/providers", json={**doc, "id": "q", "timeout_secs": -1}, headers=token
    )
    assert bad.status_code == 400
    texts = [
        created.text,
        bad.text,
        (await live.client.get("/v1/config/providers", headers=token)).text,
        (await live.client.get("/v1/config/providers/p", headers=token)).text,
        repr(live.state.config),
        caplog.text,
    ]
    assert all(SECRET not in t and "adm-token-xyz" not in t for t in texts)
    assert created.json()["has_api_key"] is True and created.json()["header_keys"] == ["X-Api-Key"]


# ---------------------------------------------------------------------- 2. agent previews
async def test_previews_require_the_admin_token(make_server: Any, server_config: Any) -> None:
    body = {"agent": {"id": "d", "model_id": DEMO_MODEL_ID}, "messages": []}
    keyed = await make_server(config=server_config(api_keys=["k1"]))
    r = await keyed.client.post(
        "/v1/ai-sdk/agent-previews/runs", json=body, headers={"Authorization": "Bearer k1"}
    )
    assert r.status_code == 403
    admin = await make_server(config=server_config(admin_bearer_token="adm"))
    assert (await admin.client.post("/v1/ai-sdk/agent-previews/runs", json=body)).status_code == 401
    plain = await make_server()
    foreign = await plain.client.post(
        "/v1/ai-sdk/agent-previews/runs", json=body, headers={"origin": "http://evil.example"}
    )
    assert foreign.status_code == 403


async def test_previews_keep_the_servers_plugins_and_tool_policy(make_server: Any) -> None:
    live = await make_server(setup=_permission_setup())
    stored = await live.client.post(
        "/v1/ai-sdk/agents/assistant/runs",
        json={
            "messages": [
                {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "weather in Lima"}]}
            ]
        },
    )
    denied = _tool_outputs(stored.text)
    assert denied and all("sunny" not in json.dumps(p) for p in denied)
    for draft_id in ("assistant", "new-draft"):
        preview = await live.client.post(
            "/v1/ai-sdk/agent-previews/runs",
            json={
                "agent": {"id": draft_id, "model_id": DEMO_MODEL_ID},
                "messages": [
                    {
                        "id": "u1",
                        "role": "user",
                        "parts": [{"type": "text", "text": "weather in Lima"}],
                    }
                ],
            },
        )
        assert preview.status_code == 200
        outputs = _tool_outputs(preview.text)
        assert outputs and all("sunny" not in json.dumps(p) for p in outputs), draft_id


async def test_preview_of_a_remote_agent_answers_400(live: Any) -> None:
    body = {
        "agent": {
            "id": "remote",
            "model_id": DEMO_MODEL_ID,
            "endpoint": {"backend": "a2a", "base_url": "http://127.0.0.1:9/v1/a2a"},
        },
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}],
    }
    r = await live.client.post("/v1/ai-sdk/agent-previews/runs", json=body)
    assert r.status_code == 400 and "remote endpoint" in r.json()["error"]


# ---------------------------------------------------------------------- 3. DNS rebinding
async def test_unknown_host_headers_are_refused(live: Any) -> None:
    port = live.url.rsplit(":", 1)[1]
    for host in ("evil.example", f"evil.example:{port}", f"localhost:{int(port) + 1}"):
        r = await live.client.get("/health", headers={"host": host})
        assert r.status_code == 421 and "host not allowed" in r.json()["error"], host
    for host in (f"localhost:{port}", f"127.0.0.1:{port}"):
        assert (await live.client.get("/health", headers={"host": host})).status_code == 200
    mcp = await live.client.post(
        "/v1/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={"host": "evil.example"},
    )
    assert mcp.status_code == 421


async def test_configured_hosts_and_card_urls_ignore_the_host_header(
    make_server: Any, server_config: Any
) -> None:
    security = SecurityConfig(allowed_hosts=["agents.example.com"])
    live = await make_server(config=server_config(security=security))
    card = await live.client.get(
        "/.well-known/agent-card.json",
        headers={"host": "agents.example.com", "x-forwarded-host": "evil.example"},
    )
    assert card.status_code == 200
    assert card.json()["supportedInterfaces"][0]["url"] == f"{live.url}/v1/a2a"
    assert (await live.client.get("/health")).status_code == 421  # 127.0.0.1 not listed now


async def test_mcp_endpoint_enables_the_sdks_rebinding_protection(live: Any) -> None:
    init, headers = MCP_INIT, MCP_HEADERS
    r = await live.client.post("/v1/mcp", json=init, headers=headers)
    assert r.status_code == 200
    settings = McpHttp.of(live.state).manager.security_settings
    assert settings is not None and settings.enable_dns_rebinding_protection
    port = live.url.rsplit(":", 1)[1]
    assert f"127.0.0.1:{port}" in settings.allowed_hosts


# ---------------------------------------------------------------------- 4. ids at the edge
async def test_non_latin1_thread_ids_run_and_come_back_percent_encoded(live: Any) -> None:
    thread_id = "线程-é"
    r = await live.client.post(
        "/v1/runs", json={"agentId": "assistant", "threadId": thread_id, "messages": USER}
    )
    assert r.status_code == 200
    assert r.headers["x-awaken-thread-id"] == quote(thread_id, safe="")
    assert (await live.client.get(f"/v1/threads/{quote(thread_id)}")).status_code == 200


@pytest.mark.parametrize(
    "bad", ["a\r\nX-Injected: 1", "nul\x00", ".hidden", "a/b", "x" * 129, "tab\there"]
)
async def test_invalid_ids_answer_400_before_anything_runs(live: Any, bad: str) -> None:
    c = live.client
    run = await c.post("/v1/runs", json={"agentId": "assistant", "threadId": bad, "messages": USER})
    assert run.status_code == 400 and "threadId" in run.json()["error"]
    agent = await c.post("/v1/runs", json={"agentId": bad, "messages": USER})
    assert agent.status_code == 400
    chat = await c.post("/v1/ai-sdk/chat", json={"threadId": bad, "messages": []})
    assert chat.status_code == 400
    config = await c.post("/v1/config/agents", json={"id": bad, "model_id": DEMO_MODEL_ID})
    assert config.status_code == 400
    decision = await c.post("/v1/runs/r1/decision", json={"toolCallId": bad})
    assert decision.status_code in (400, 404)
    if "/" not in bad:
        path = await c.get(f"/v1/threads/{quote(bad, safe='')}")
        assert path.status_code == 400 and "error" in path.json()
    assert (await c.get("/v1/runs")).json()["items"] == []


# ---------------------------------------------------------------------- 5. no 500 for bad input
async def test_bad_input_answers_4xx(make_server: Any, tmp_path: Any) -> None:
    live = await make_server(store=FileStore(tmp_path / "store"))
    c = live.client
    deep = "[" * 5000 + "]" * 5000
    nested = await c.post("/v1/runs", content=deep, headers=JSON)
    assert nested.status_code == 400 and "nested" in nested.json()["error"]
    moderately = json.dumps({"agentId": "assistant", "messages": USER, "x": [[[[[[[[]]]]]]]] * 2})
    assert (await c.post("/v1/runs", content=moderately, headers=JSON)).status_code == 200
    parts = await c.post(
        "/v1/ai-sdk/chat", json={"messages": [{"id": "m", "role": "user", "parts": "hi"}]}
    )
    assert parts.status_code == 400 and "parts" in parts.json()["error"]
    for query in ("offset=²", "limit=²", f"offset={'9' * 40}", "offset=1e9"):
        r = await c.get(f"/v1/threads?{query}")
        assert r.status_code == 400, query
    cursor = await c.get("/v1/ai-sdk/threads/t1/messages?cursor=²")
    assert cursor.status_code == 400
    token = await c.get("/v1/a2a/tasks?pageToken=²")
    assert token.status_code == 400
    replay = await c.get("/v1/runs/nope/events", headers={"last-event-id": b"\xb2"})
    assert replay.status_code == 404
    for path in ("/v1/threads/..%5Cx", "/v1/threads/%00", f"/v1/runs/{'r' * 300}"):
        r = await c.get(path)
        assert r.status_code == 400 and "error" in r.json(), path


# ---------------------------------------------------------------------- 6. resource exhaustion
async def test_streams_have_their_own_limit_and_never_starve_health(
    make_server: Any, server_config: Any
) -> None:
    live = await make_server(
        config=server_config(max_concurrent_requests=2, max_concurrent_streams=2)
    )
    payload = {"agentId": "assistant", "messages": [{"role": "user", "content": "wait 2"}]}
    async with live.client.stream("POST", "/v1/runs", json=payload) as first:
        async with live.client.stream("POST", "/v1/runs", json=payload) as second:
            assert first.status_code == second.status_code == 200
            third = await live.client.post("/v1/runs", json=payload)
            assert third.status_code == 503 and third.json() == {"error": "too many open streams"}
            for path in ("/health", "/health/live", "/v1/threads", "/metrics"):
                assert (await live.client.get(path)).status_code == 200, path
            await second.aread()
        await first.aread()


async def test_metric_labels_stay_bounded(live: Any) -> None:
    for index in range(50):
        await live.client.request(f"INVENTED{index}", f"/made/up/{index}")
    text = (await live.client.get("/metrics")).text
    assert "INVENTED" not in text and "/made/up" not in text
    assert 'method="other",route="unmatched"' in text


async def test_mcp_sessions_are_capped_and_expire(
    make_server: Any, server_config: Any, until: Any
) -> None:
    # idle long enough that a loaded machine opens all three before the first expires
    security = SecurityConfig(mcp_max_sessions=2, mcp_session_idle_secs=3.0)
    live = await make_server(config=server_config(security=security))
    init, headers = MCP_INIT, MCP_HEADERS
    sessions = []
    for _ in range(2):
        r = await live.client.post("/v1/mcp", json=init, headers=headers)
        assert r.status_code == 200
        sessions.append(r.headers["mcp-session-id"])
    assert (await live.client.post("/v1/mcp", json=init, headers=headers)).status_code == 503

    async def room_again() -> bool:  # never touches the idle sessions themselves
        r = await live.client.post("/v1/mcp", json=init, headers=headers)
        return r.status_code == 200

    await until(room_again)
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    for session in sessions:
        r = await live.client.post(
            "/v1/mcp", json=ping, headers={**headers, "mcp-session-id": session}
        )
        assert r.status_code == 404


async def test_a2a_push_targets_refuse_private_addresses(live: Any) -> None:
    body = {
        "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
        "configuration": {"returnImmediately": True},
    }
    task = (await live.client.post("/v1/a2a/message:send", json=body)).json()["task"]
    base = f"/v1/a2a/tasks/{task['id']}/pushNotificationConfigs"
    for url in (
        "http://127.0.0.1:9/hook",
        "http://localhost:9/hook",
        "http://10.0.0.7/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]:9/hook",
    ):
        r = await live.client.post(base, json={"url": url})
        assert r.status_code == 400, url
        violation = r.json()["error"]["details"][0]["fieldViolations"][0]
        assert violation["field"] == "pushNotificationConfig.url", url


# ---------------------------------------------------------------------- 7. unknown agents
async def test_unknown_agent_answers_404_on_every_run_route(live: Any) -> None:
    c = live.client
    ui = [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}]
    answers = [
        await c.post("/v1/runs", json={"agentId": "ghost", "messages": USER}),
        await c.post("/v1/ai-sdk/agents/ghost/runs", json={"messages": ui}),
        await c.post("/v1/ai-sdk/chat", json={"agentId": "ghost", "messages": ui}),
        await c.post("/v1/ag-ui/agents/ghost/runs", json={"messages": USER}),
        await c.post("/v1/ag-ui/run", json={"agentId": "ghost", "messages": USER}),
    ]
    for r in answers:
        assert r.status_code == 404 and r.json() == {"error": "agent not found: ghost"}, r.text
    assert (await c.get("/v1/runs")).json()["items"] == []
    assert (await c.get("/v1/threads")).json()["items"] == []


def test_client_ids_are_checked_without_a_server() -> None:
    from awaken_contract.errors import InvalidId
    from awaken_contract.ids import check_id

    assert check_id("thread-1") == "thread-1"
    with pytest.raises(InvalidId, match="thread id must not start with a dot"):
        check_id(".x", "thread id")


# ---------------------------------------------------------------------- the quick start still works
def _readme_curls() -> list[list[str]]:
    """The ``curl`` commands of the README's quick start (continuations joined, comments cut)."""
    readme = (Path(__file__).parents[3] / "README.md").read_text(encoding="utf-8")
    block = readme.split("```bash\ncurl", 1)[1].split("```", 1)[0]
    commands = ("curl" + block).replace("\\\n", " ").splitlines()
    return [shlex.split(line, comments=True) for line in commands if line.strip()]


async def test_readme_curl_walkthrough_works_with_the_default_configuration(
    make_server: Any, server_config: Any
) -> None:
    # ``awaken serve`` defaults: loopback, no keys, no admin token, default limits
    live = await make_server(config=server_config(max_concurrent_requests=100))
    port = live.url.rsplit(":", 1)[1]
    curls = _readme_curls()
    assert len(curls) == 3
    for argv in curls:
        url = next(a for a in argv if a.startswith("localhost:3000"))
        url = "http://" + url.replace("localhost:3000", f"localhost:{port}")
        headers = dict(argv[i + 1].split(": ", 1) for i, a in enumerate(argv) if a == "-H")
        data = next((argv[i + 1] for i, a in enumerate(argv) if a == "-d"), None)
        method = "POST" if data is not None else "GET"
        async with httpx.AsyncClient(timeout=30) as client:
            response = await client.request(method, url, headers=headers, content=data)
        assert response.status_code == 200, (argv, response.text)
        if data is not None:
            assert "run_finish" in response.text
    threads = (await live.client.get("/v1/threads")).json()["items"]
    assert len(threads) == 1
