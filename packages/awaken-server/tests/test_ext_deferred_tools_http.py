"""Deferred tools enabled from ``awaken serve`` YAML (entry-point discovery), over HTTP.

The app is the one ``awaken serve`` builds (``prepare_app``) on a real SQLite file; the only
mock is the scripted model. The plugin classifies the server's tools at RunStart, hides the
deferred schemas, ToolSearch promotes one, and the agent's priors land in the profile store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from awaken_contract.contract.message import ToolCall
from awaken_contract.contract.storage import ProfileOwner
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.testing.pytest_plugin import ServeAsgi
from awaken_server.app import ServerConfig
from awaken_server.bootstrap import setup_from_file
from awaken_server.serve import prepare_app
from awaken_stores import SqliteStore

YAML = """
models:
  - id: m
    provider_id: scripted
    upstream_model: scripted-1
agents:
  - id: ops
    model_id: m
    system_prompt: Use ToolSearch for tools you cannot see.
    plugin_ids: [ext-deferred-tools]
    sections:
      deferred_tools:
        enabled: true
        rules:
          - {tool: get_weather, mode: eager}
"""


class Wide(Tool):
    """A tool with a large schema."""

    def __init__(self, tool_id: str) -> None:
        self.tool_id = tool_id

    def descriptor(self) -> ToolDescriptor:
        props = {f"arg_{i}": {"type": "string", "description": "an argument"} for i in range(20)}
        return ToolDescriptor(self.tool_id, self.tool_id, f"{self.tool_id} tool").with_parameters(
            {"type": "object", "properties": props}
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success(self.tool_id, {"ok": True})


async def test_deferred_tools_from_yaml_over_http(tmp_path: Path, serve: ServeAsgi) -> None:
    config = tmp_path / "awaken.yaml"
    config.write_text(YAML, encoding="utf-8")
    setup = setup_from_file(config)
    for tool_id in ("get_weather", "debug_dump", "billing_report"):
        setup.tools[tool_id] = Wide(tool_id)
    llm = ScriptedLlm(
        [
            tool_step([ToolCall("c1", "ToolSearch", {"query": "select:debug_dump"})]),
            tool_step([ToolCall("c2", "debug_dump", {})]),
            text_step("Dumped."),
        ]
    )
    setup.executors["scripted"] = llm
    store = SqliteStore(tmp_path / "awaken.db")
    app, _ = await prepare_app(setup, store, ServerConfig())
    url = await serve(app)
    body = {"agentId": "ops", "threadId": "t-1", "messages": [{"role": "user", "content": "dump"}]}
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        response = await client.post("/v1/runs", json=body)
    assert response.status_code == 200, response.text
    assert '"delta":"Dumped."' in response.text
    tools = [sorted(t.id for t in request.tools) for request in llm.requests]
    assert tools == [
        ["ToolSearch", "get_weather"],
        ["ToolSearch", "debug_dump", "get_weather"],
        ["ToolSearch", "debug_dump", "get_weather"],
    ]
    listed = [m.text() for m in llm.requests[0].messages if m.text().startswith("These tools")]
    assert listed and listed[0].endswith("\nbilling_report, debug_dump")
    entry = await store.profiles.get(ProfileOwner.agent("ops"), "deferred_tools.agent_priors")
    assert entry is not None and entry.value["session_count"] == 1
    assert set(entry.value["tools"]) == {"ToolSearch", "debug_dump"}
    await store.close()


async def test_invalid_sections_are_a_400_through_the_config_api(
    tmp_path: Path, serve: ServeAsgi
) -> None:
    config = tmp_path / "awaken.yaml"
    config.write_text(YAML, encoding="utf-8")
    setup = setup_from_file(config)
    setup.executors["scripted"] = ScriptedLlm([])
    store = SqliteStore(tmp_path / "awaken.db")
    app, _ = await prepare_app(setup, store, ServerConfig())
    url = await serve(app)
    agent = {
        "id": "bad",
        "model_id": "m",
        "plugin_ids": ["ext-deferred-tools", "generative-ui"],
        "sections": {"deferred_tools": {"default_mode": "lazy"}},
    }
    ui_agent = {**agent, "id": "bad-ui", "sections": {"generative-ui": {"catalog": "x"}}}
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        bad = await client.post("/v1/config/agents", json=agent)
        bad_ui = await client.post("/v1/config/agents", json=ui_agent)
        good = await client.post("/v1/config/agents", json={**agent, "id": "good", "sections": {}})
    assert bad.status_code == 400, bad.text
    assert "deferred_tools" in bad.json()["error"] and "default_mode" in bad.json()["error"]
    assert bad_ui.status_code == 400, bad_ui.text
    assert "generative-ui" in bad_ui.json()["error"]
    assert good.status_code in (200, 201), good.text
    await store.close()
