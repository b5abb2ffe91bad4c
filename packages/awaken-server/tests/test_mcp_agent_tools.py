"""MCP agent tools: descriptions, the Origin rule and the logging notifications of a call
(golden), run on a real runtime with a scripted model."""

from __future__ import annotations

from typing import Any

import pytest
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StopReason, StreamResult
from awaken_contract.contract.message import Role, ToolCall
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.errors import ProviderError
from awaken_contract.registry_spec import AgentSpec, ModelSpec, RemoteEndpoint
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.testing import text_step, tool_step
from awaken_server.protocols.mcp_http import agent_tools, call_agent, origin_allowed
from awaken_server.protocols.mcp_http.agent_tools import MESSAGE_REQUIRED, tool_description


class Echo(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("echo", "Echo", "Echo")

    async def execute(self, args: dict[str, Any], ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("echo", {"ok": True})


class Scripted(LlmExecutor):
    async def execute(self, request: InferenceRequest) -> StreamResult:
        last = request.messages[-1]
        if "explode" in last.text():
            raise ProviderError("scripted", "upstream exploded")
        if last.role is Role.TOOL:
            return text_step("done")
        if "silent" in last.text():
            return StreamResult(stop_reason=StopReason.END_TURN)  # no text at all
        return tool_step([ToolCall("c1", "echo", {})])

    def name(self) -> str:
        return "scripted"


@pytest.fixture
def runtime() -> Any:
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("worker").with_model("m").with_system_prompt("Works hard."))
        .with_agent_spec(
            AgentSpec("far").with_endpoint(RemoteEndpoint.a2a("http://127.0.0.1:9/v1/a2a"))
        )
        .with_tool("echo", Echo())
        .with_provider("scripted", Scripted())
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .build()
    )


def test_descriptions() -> None:
    assert tool_description("a", "") == "Awaken agent: a"
    assert tool_description("a", None) == "Awaken agent: a"
    assert tool_description("a", "short") == "short"
    long = "é" * 250
    assert tool_description("a", long) == "é" * 200 + "\u2026"


def test_only_local_agents_are_tools(runtime: Any) -> None:
    tools = agent_tools(runtime)
    assert [(t.name, t.description) for t in tools] == [("worker", "Works hard.")]
    assert tools[0].input_schema["properties"]["message"]["type"] == "string"


def test_origin_rule() -> None:
    assert origin_allowed(None, "example.com") is None
    assert origin_allowed("http://localhost:5173", "example.com") is None
    assert origin_allowed("http://127.0.0.1", "example.com") is None
    assert origin_allowed("http://[::1]:8080", "example.com") is None
    assert origin_allowed("https://Example.com", "example.com:3000") is None
    assert origin_allowed("https://evil.test", "example.com") == (
        "Origin header is not allowed for this MCP endpoint"
    )
    assert origin_allowed("not a url", "example.com") == "invalid Origin header"


async def _call(runtime: Any, name: str, arguments: Any) -> tuple[str, bool, list[tuple[str, str]]]:
    logs: list[tuple[str, str]] = []

    async def log(level: str, text: str) -> None:
        logs.append((level, text))

    result = await call_agent(runtime, name, arguments, log)
    return result.text, result.is_error, logs


async def test_successful_call_logs_progress(runtime: Any) -> None:
    text, is_error, logs = await _call(runtime, "worker", {"message": "go"})
    assert (text, is_error) == ("done", False)
    assert [entry for entry in logs if entry[0] != "debug"] == [
        ("info", "starting agent run"),
        ("info", "step 1"),
        ("info", "calling tool: echo"),
        ("info", "tool echo completed: success"),
        ("info", "step 2"),
        ("notice", "completed"),
    ]
    debug = [entry[1] for entry in logs if entry[0] == "debug"]
    assert len(debug) == 2 and all(d.startswith("inference complete: model=") for d in debug)


async def test_bad_arguments_and_unknown_agents(runtime: Any) -> None:
    assert await _call(runtime, "worker", {"message": "  "}) == (MESSAGE_REQUIRED, True, [])
    assert await _call(runtime, "worker", {"msg": "x"}) == (MESSAGE_REQUIRED, True, [])
    assert await _call(runtime, "worker", "nope") == (MESSAGE_REQUIRED, True, [])
    text, is_error, _ = await _call(runtime, "far", {"message": "x"})
    assert is_error and text == "unknown tool: far"


async def test_empty_answer_and_failed_run(runtime: Any) -> None:
    text, is_error, _ = await _call(runtime, "worker", {"message": "silent"})
    assert (text, is_error) == ("(no response)", False)
    text, is_error, logs = await _call(runtime, "worker", {"message": "explode"})
    assert is_error and text.startswith("agent run failed: ")
    assert logs[-1][0] == "error" and logs[-1][1] == text
