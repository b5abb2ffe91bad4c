"""Permission prompts answered over the native HTTP decision route of a real server."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("awaken_server")
pytest.importorskip("uvicorn")

import httpx
from awaken_contract.contract.executor import LlmExecutor
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.tool import (
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolResult,
)
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_ext_permission import (
    PermissionConfigKey,
    PermissionPlugin,
    PermissionRulesConfig,
)
from awaken_runtime.builder import AgentRuntimeBuilder
from awaken_runtime.testing import (
    ScriptedLlm,
    collect_sse,
    text_step,
    tool_call_step,
    wait_until,
)
from awaken_runtime.testing.asgi import serving
from awaken_server.app import AppState, create_app
from awaken_server.protocols.ai_sdk_v6.routes import ai_sdk_routes
from awaken_server.testing import test_server_config
from awaken_stores.sqlite import SqliteStore


class Deploy(Tool):
    def __init__(self) -> None:
        self.calls: list[Any] = []

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("deploy", "Deploy", "Deploy a service").with_parameters(
            {"type": "object", "properties": {"service": {"type": "string"}}}
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.calls.append(args)
        return ToolResult.success("deploy", {"deployed": args["service"]})


def deploy(service: str, call_id: str) -> StreamResult:
    return tool_call_step(call_id, "deploy", {"service": service})


answer = text_step


@contextlib.asynccontextmanager
async def serve(db: Path, llm: LlmExecutor, tool: Deploy) -> AsyncIterator[httpx.AsyncClient]:
    store = SqliteStore(db)
    config = PermissionRulesConfig.from_str('{"default_behavior": "ask"}')
    spec = (
        AgentSpec("ops")
        .with_model("m")
        .with_plugin("permission")
        .with_hook_filter("permission")
        .with_config(PermissionConfigKey, config)
    )
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(spec)
        .with_tool("deploy", tool)
        .with_provider("scripted", llm)
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_plugin("permission", PermissionPlugin())
        .with_thread_run_store(store)
        .build()
    )
    server_config = test_server_config(default_agent_id="ops")
    state = AppState.build(runtime, store, config=server_config)
    try:
        async with (
            serving(create_app(state, extra_routes=ai_sdk_routes())) as running,
            httpx.AsyncClient(base_url=running.url, timeout=30) as client,
        ):
            yield client
    finally:
        await store.close()


async def sse_events(client: httpx.AsyncClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    async with client.stream("POST", "/v1/runs", json=body) as response:
        assert response.status_code == 200
        return [frame.data for frame in await collect_sse(response) if frame.data is not None]


async def test_permission_prompt_approved_and_remembered_over_http(tmp_path: Path) -> None:
    tool = Deploy()
    llm = ScriptedLlm(
        [deploy("api", "c1"), answer("Deployed api."), deploy("web", "c2"), answer("Deployed web.")]
    )
    async with serve(tmp_path / "awaken.db", llm, tool) as client:
        body = {"agentId": "ops", "messages": [{"role": "user", "content": "deploy api"}]}
        events = await sse_events(client, body)
        finish = events[-1]
        assert finish["event_type"] == "run_finish"
        assert finish["termination"] == {"type": "suspended"}
        run_id, thread_id = finish["run_id"], finish["thread_id"]
        run = (await client.get(f"/v1/runs/{run_id}")).json()
        assert run["status"] == "waiting"
        assert run["waiting"]["reason"] == "tool_permission"
        assert run["waiting"]["ticket_ids"] == ["perm_c1"]
        assert tool.calls == []

        decision = {
            "toolCallId": "perm_c1",
            "action": "resume",
            "payload": {"approved": True, "remember": True},
        }
        response = await client.post(f"/v1/threads/{thread_id}/decision", json=decision)
        assert response.status_code == 202

        async def run_done() -> bool:
            status: str = (await client.get(f"/v1/runs/{run_id}")).json()["status"]
            return status == "done"

        await wait_until(run_done, message=f"run {run_id} done")
        assert tool.calls == [{"service": "api"}]

        # the approval was remembered for the thread: the next deploy runs without a prompt
        follow_up = {
            "agentId": "ops",
            "threadId": thread_id,
            "messages": [{"role": "user", "content": "deploy web"}],
        }
        events = await sse_events(client, follow_up)
        assert events[-1]["termination"] == {"type": "natural_end"}
        assert tool.calls == [{"service": "api"}, {"service": "web"}]


async def test_permission_prompt_denied_over_http(tmp_path: Path) -> None:
    tool = Deploy()
    llm = ScriptedLlm([deploy("api", "c1"), answer("Not deploying.")])
    async with serve(tmp_path / "awaken.db", llm, tool) as client:
        body = {"agentId": "ops", "messages": [{"role": "user", "content": "deploy api"}]}
        finish = (await sse_events(client, body))[-1]
        run_id, thread_id = finish["run_id"], finish["thread_id"]
        decision = {"toolCallId": "c1", "action": "cancel", "payload": {"approved": False}}
        response = await client.post(f"/v1/runs/{run_id}/decision", json=decision)
        assert response.status_code == 202

        async def run_done() -> bool:
            status: str = (await client.get(f"/v1/runs/{run_id}")).json()["status"]
            return status == "done"

        await wait_until(run_done, message=f"run {run_id} done")
        assert tool.calls == []
        history = (await client.get(f"/v1/threads/{thread_id}/messages")).json()["messages"]
        tool_messages = [m for m in history if m["role"] == "tool"]
        assert [m["tool_call_id"] for m in tool_messages] == ["c1"]


async def ai_sdk_chunks(client: httpx.AsyncClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    async with client.stream("POST", "/v1/ai-sdk/chat", json=body) as response:
        assert response.status_code == 200
        frames = await collect_sse(response)
    return [f.data for f in frames if f.data is not None and f.data != "[DONE]"]


async def test_permission_prompt_answered_through_ai_sdk_tool_approval(tmp_path: Path) -> None:
    tool = Deploy()
    llm = ScriptedLlm([deploy("api", "c1"), answer("Deployed api.")])
    async with serve(tmp_path / "awaken.db", llm, tool) as client:
        user = {"id": "u-1", "role": "user", "parts": [{"type": "text", "text": "deploy api"}]}
        first = await ai_sdk_chunks(
            client, {"id": "chat-1", "threadId": "chat-1", "messages": [user]}
        )
        (request,) = [c for c in first if c["type"] == "tool-approval-request"]
        assert request["approvalId"] == "perm_c1"
        assert request["toolCallId"] == "c1"
        assert tool.calls == []

        answered = {
            "id": "a-1",
            "role": "assistant",
            "parts": [
                {
                    "type": "tool-deploy",
                    "toolCallId": "c1",
                    "state": "approval-responded",
                    "input": {"service": "api"},
                    "approvalId": "perm_c1",
                    "approval": {"id": "perm_c1", "approved": True},
                }
            ],
        }
        second = await ai_sdk_chunks(
            client, {"id": "chat-1", "threadId": "chat-1", "messages": [user, answered]}
        )
        assert tool.calls == [{"service": "api"}]
        text = "".join(c.get("delta", "") for c in second if c["type"] == "text-delta")
        assert text == "Deployed api."
