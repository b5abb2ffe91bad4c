"""Extensions enabled per agent from an ``awaken serve`` YAML file, run over a real socket.

Each test writes a config file, builds the app exactly as ``awaken serve`` does
(``setup_from_file`` → ``prepare_app``) with a scripted model as the only mock, serves it with
uvicorn on a loopback port and drives it with httpx.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from awaken_contract.contract.message import ToolCall
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.errors import ConfigLoadError
from awaken_ext_reminder import ReminderConfigKey
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.testing.pytest_plugin import ServeAsgi
from awaken_server.app import ServerConfig
from awaken_server.bootstrap import ServeSetup, build_runtime, setup_from_file
from awaken_server.serve import prepare_app
from awaken_stores import InMemoryStore

MODELS = """
models:
  - id: m
    provider_id: scripted
    upstream_model: scripted-1
"""

REMINDER_YAML = (
    MODELS
    + """
agents:
  - id: assistant
    model_id: m
    system_prompt: Base.
    plugin_ids: [reminder]
    sections:
      reminder:
        rules:
          - tool: "Bash(command ~ 'rm *')"
            output: {status: success}
            message: {target: suffix_system, content: "Deletion succeeded: verify."}
"""
)
USER = [{"role": "user", "content": "clean up"}]


class Bash(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("Bash", "Bash", "Run a command").with_parameters(
            {"type": "object", "properties": {"command": {"type": "string"}}}
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("Bash", {"ran": args["command"]})


def _setup(tmp_path: Path, text: str, llm: ScriptedLlm) -> ServeSetup:
    config = tmp_path / "awaken.yaml"
    config.write_text(text, encoding="utf-8")
    setup = setup_from_file(config)
    setup.executors["scripted"] = llm
    setup.tools["Bash"] = Bash()
    return setup


async def _serve(serve: ServeAsgi, setup: ServeSetup) -> str:
    url, _ = await _serve_state(serve, setup)
    return url


async def _serve_state(serve: ServeAsgi, setup: ServeSetup) -> tuple[str, Any]:
    app, state = await prepare_app(setup, InMemoryStore(), ServerConfig())
    return await serve(app), state


async def test_reminder_from_yaml_reaches_the_next_inference_over_http(
    tmp_path: Path, serve: ServeAsgi
) -> None:
    rm = tool_step([ToolCall("c1", "Bash", {"command": "rm -rf build"})])
    llm = ScriptedLlm([rm, text_step("Verified.")])
    url = await _serve(serve, _setup(tmp_path, REMINDER_YAML, llm))
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        body = {"agentId": "assistant", "threadId": "t1", "messages": USER}
        response = await client.post("/v1/runs", json=body)
        assert response.status_code == 200, response.text
        assert '"delta":"Verified."' in response.text
        history = (await client.get("/v1/threads/t1/messages")).text
        capabilities = (await client.get("/v1/capabilities")).json()
    assert llm.requests[1].messages[-1].text() == "Deletion succeeded: verify."
    assert "Deletion succeeded" not in history and "rm -rf build" in history
    plugin = next(p for p in capabilities["plugins"] if p["id"] == "reminder")
    assert plugin["config_schemas"] == [
        {"key": "reminder", "schema": ReminderConfigKey.json_schema()}
    ]


def test_an_invalid_reminder_section_is_an_error_at_load(tmp_path: Path) -> None:
    bad = REMINDER_YAML.replace("target: suffix_system", "target: top")
    setup = _setup(tmp_path, bad, ScriptedLlm([]))
    with pytest.raises(ConfigLoadError) as err:
        build_runtime(setup.system, store=InMemoryStore(), executors=setup.executors)
    assert "agent 'assistant'" in str(err.value) and 'section "reminder"' in str(err.value)


async def test_config_api_rejects_an_invalid_reminder_section(
    tmp_path: Path, serve: ServeAsgi
) -> None:
    url = await _serve(serve, _setup(tmp_path, REMINDER_YAML, ScriptedLlm([])))
    agent = {
        "id": "other",
        "model_id": "m",
        "plugin_ids": ["reminder"],
        "sections": {"reminder": {"rules": [{"tool": "x", "output": None}]}},
    }
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        response = await client.post("/v1/config/agents", json=agent)
    assert response.status_code == 400
    assert 'section "reminder"' in response.json()["error"]


COMPACT_YAML = (
    MODELS
    + """
  - id: small
    provider_id: compactor
    upstream_model: small-1
agents:
  - id: assistant
    model_id: m
    system_prompt: Be brief.
    plugin_ids: [compact]
    sections:
      compact: {compactor: summarizer, trigger_messages: 4, keep_recent_messages: 2}
  - id: summarizer
    model_id: small
    system_prompt: Summarize the conversation.
"""
)


async def test_compaction_from_yaml_summarises_with_the_compactor_agent_over_http(
    tmp_path: Path, serve: ServeAsgi
) -> None:
    main, compactor = ScriptedLlm([]), ScriptedLlm([text_step("They said hello three times.")])
    setup = _setup(tmp_path, COMPACT_YAML, main)
    setup.executors["compactor"] = compactor
    url, state = await _serve_state(serve, setup)
    plugin = state.runtime.registries.plugins.get("compact")
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        for n in range(1, 4):
            body = {"agentId": "assistant", "threadId": "t", "messages": [
                {"role": "user", "content": f"hello {n}"}]}  # fmt: skip
            response = await client.post("/v1/runs", json=body)
            assert response.status_code == 200, response.text
        summary = await plugin.jobs.wait("t")
        assert summary is not None and summary.covered == 3
        body["messages"] = [{"role": "user", "content": "and now?"}]
        response = await client.post("/v1/runs", json=body)
        assert response.status_code == 200, response.text
        history = (await client.get("/v1/threads/t/messages")).text
    assert "[User]: hello 1" in compactor.requests[0].messages[-1].text()
    sent = [m.text() for m in main.requests[-1].messages]
    assert (
        sent[1] == "<conversation-summary>\nThey said hello three times.\n</conversation-summary>"
    )
    assert sent[2:] == ["Done.", "hello 3", "Done.", "and now?"]
    assert "They said hello" not in history


SKILL_MD = """---
name: pdf-report
description: Turn a PDF into a one-page report.
---
Always answer with exactly three bullet points.
"""


def _skills_yaml(directory: Path) -> str:
    return (
        MODELS
        + f"""
agents:
  - id: assistant
    model_id: m
    system_prompt: Be brief.
    plugin_ids: [skills]
    sections:
      skills: {{directories: ["{directory}"]}}
"""
    )


async def test_skills_from_yaml_are_discovered_listed_and_activated_over_http(
    tmp_path: Path, serve: ServeAsgi
) -> None:
    skill = tmp_path / "skills" / "pdf-report"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    activate = tool_step([ToolCall("c1", "skill", {"skill": "pdf-report"})])
    llm = ScriptedLlm([activate, text_step("- a\n- b\n- c")])
    url = await _serve(serve, _setup(tmp_path, _skills_yaml(tmp_path / "skills"), llm))
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        body = {"agentId": "assistant", "threadId": "s1", "messages": USER}
        response = await client.post("/v1/runs", json=body)
        assert response.status_code == 200, response.text
        capabilities = (await client.get("/v1/capabilities")).json()
    first, second = ([m.text() for m in r.messages] for r in llm.requests)
    assert any("pdf-report" in text and "one-page report" in text for text in first)
    assert "skill" in {t.id for t in llm.requests[0].tools}
    assert any("Always answer with exactly three bullet points." in text for text in second)
    assert [s["id"] for s in capabilities["skills"]] == ["pdf-report"]
    assert "skills" in {p["id"] for p in capabilities["plugins"]}


async def test_a_missing_skills_directory_stops_the_server_at_load(tmp_path: Path) -> None:
    setup = _setup(tmp_path, _skills_yaml(tmp_path / "nowhere"), ScriptedLlm([]))
    with pytest.raises(ConfigLoadError) as err:
        await prepare_app(setup, InMemoryStore(), ServerConfig())
    assert "agent 'assistant': skills: io error: failed to access skills root" in str(err.value)


MCP_SERVER = Path(__file__).parents[2] / "awaken-ext-mcp" / "tests" / "mcp_demo_server.py"


def _mcp_yaml(tmp_path: Path) -> str:
    return (
        MODELS
        + f"""
mcp_servers:
  - id: local
    transport: stdio
    command: "{sys.executable}"
    args: ["{MCP_SERVER}", stdio]
agents:
  - id: assistant
    model_id: m
    system_prompt: Be brief.
    plugin_ids: [mcp]
  - id: other
    model_id: m
    plugin_ids: [mcp]
    sections:
      mcp: {{servers: [elsewhere]}}
"""
    )


async def test_mcp_servers_from_yaml_serve_their_tools_over_http(
    tmp_path: Path, serve: ServeAsgi
) -> None:
    echo = tool_step([ToolCall("c1", "mcp__local__echo", {"text": "ping over stdio"})])
    sneaky = tool_step([ToolCall("c2", "mcp__local__echo", {"text": "not yours"})])
    llm = ScriptedLlm([echo, text_step("Echoed."), sneaky, text_step("Refused.")])
    url = await _serve(serve, _setup(tmp_path, _mcp_yaml(tmp_path), llm))
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        body = {"agentId": "assistant", "threadId": "m1", "messages": USER}
        response = await client.post("/v1/runs", json=body)
        assert response.status_code == 200, response.text
        other = {"agentId": "other", "threadId": "m2", "messages": USER}
        refused = await client.post("/v1/runs", json=other)
        assert refused.status_code == 200, refused.text
        capabilities = (await client.get("/v1/capabilities")).json()
    assert "mcp__local__echo" in {t.id for t in llm.requests[0].tools}
    assert "ping over stdio" in llm.requests[1].messages[-1].text()  # the real server answered
    assert "mcp__local__echo" not in {t.id for t in llm.requests[2].tools}
    assert "does not use" in llm.requests[3].messages[-1].text()
    mcp = next(p for p in capabilities["plugins"] if p["id"] == "mcp")
    (server,) = mcp["status"]["servers"]
    assert (server["id"], server["state"], server["transport"]) == ("local", "connected", "stdio")
    assert "mcp__local__echo" in server["tools"]
    assert "mcp__local__echo" in {t["id"] for t in capabilities["tools"]}


async def test_a_config_api_mcp_server_write_reconnects_the_servers(
    tmp_path: Path, serve: ServeAsgi
) -> None:
    url = await _serve(serve, _setup(tmp_path, _mcp_yaml(tmp_path), ScriptedLlm([])))
    second = {
        "id": "second",
        "transport": "stdio",
        "command": sys.executable,
        "args": [str(MCP_SERVER), "stdio"],
    }
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        created = await client.post("/v1/config/mcp-servers", json=second)
        assert created.status_code == 201, created.text
        capabilities = (await client.get("/v1/capabilities")).json()
    mcp = next(p for p in capabilities["plugins"] if p["id"] == "mcp")
    states = {s["id"]: s["state"] for s in mcp["status"]["servers"]}
    assert states == {"local": "connected", "second": "connected"}
    assert "mcp__second__echo" in {t["id"] for t in capabilities["tools"]}
