"""The book's "expose HTTP SSE" setup, translated: runtime → Mailbox → AppState → app."""

from __future__ import annotations

import httpx
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import MockLlmExecutor
from awaken_server.app import AppState, ServerConfig, create_app
from awaken_server.mailbox import Mailbox, MailboxConfig
from awaken_stores import InMemoryMailboxStore, InMemoryStore


async def test_book_style_setup_serves_a_run() -> None:
    store = InMemoryStore()
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("assistant").with_model("m").with_system_prompt("Be brief."))
        .with_provider("mock", MockLlmExecutor(["Hello from the mock."]))
        .with_model("m", ModelSpec(id="m", provider="mock", model="mock-1"))
        .with_thread_run_store(store)
        .build()
    )
    mailbox = Mailbox(runtime, InMemoryMailboxStore(), "default-consumer", MailboxConfig())
    state = AppState(runtime, mailbox, store, runtime.resolver, ServerConfig())
    app = create_app(state)
    body = {"agentId": "assistant", "messages": [{"role": "user", "content": "hi"}]}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://book"
    ) as client:
        response = await client.post("/v1/runs", json=body)
        assert response.status_code == 200
        lines = response.text.splitlines()
        assert lines[0] == "id: 1"  # SSE ids are run-journal seqs
        assert '"text_delta","delta":"Hello from the mock."' in response.text
        assert '"termination":{"type":"natural_end"}' in [x for x in lines if x][-1]
        run_id = response.headers["x-awaken-run-id"]
        run = (await client.get(f"/v1/runs/{run_id}")).json()
        assert run["status"] == "done"
