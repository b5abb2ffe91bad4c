"""End to end with the real runtime: McpPlugin offers the tools of a real stdio MCP server, the
scripted model calls one, the result (with mcp.* metadata) flows back to the model."""

from __future__ import annotations

import pytest
from awaken_contract.contract.event import ActivitySnapshot, ToolCallDone
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_ext_mcp import McpPlugin, McpToolRegistryManager

pytest.importorskip("awaken_runtime")

from awaken_runtime.builder import AgentRuntimeBuilder
from awaken_runtime.testing import ScriptedLlm, text_step, tool_call_step


async def test_mcp_tools_in_a_real_run(stdio_manager: McpToolRegistryManager) -> None:
    llm = ScriptedLlm(
        [
            tool_call_step("c1", "mcp__local__echo", {"text": "ping"}),
            tool_call_step("c2", "mcp__local__work", {"steps": 2}),
            tool_call_step("c3", "mcp__local__fail", {"msg": "disk full"}),
            text_step("All done."),
        ]
    )
    spec = (
        AgentSpec("mcp-agent")
        .with_model("m")
        .with_system_prompt("Use MCP tools when they help answer the user.")
        .with_plugin("mcp")
        .with_hook_filter("mcp")
        .with_max_rounds(6)
    )
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(spec)
        .with_provider("scripted", llm)
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_plugin("mcp", McpPlugin(stdio_manager))
        .build()
    )
    sink = VecEventSink()
    result = await runtime.run(
        RunRequest("t-mcp", [Message.user("ping the server")]).with_agent_id("mcp-agent"), sink
    )
    assert result.response == "All done."
    offered = {t.id for t in llm.requests[0].tools}
    assert {"mcp__local__echo", "mcp__local__work", "mcp__local__my_dotted_tool"} <= offered
    events = sink.take()
    done = {e.id: e for e in events if isinstance(e, ToolCallDone)}
    assert done["c1"].outcome == "succeeded"
    assert done["c1"].result.data == "ping"
    assert done["c1"].result.metadata["mcp.server"] == "local"
    assert done["c1"].result.metadata["mcp.tool"] == "echo"
    assert done["c3"].outcome == "failed"
    progress = [
        e.content["progress"]
        for e in events
        if isinstance(e, ActivitySnapshot)
        and e.content.get("call_id") == "c2"
        and e.content.get("progress") is not None
    ]
    assert progress == [0.5, 1.0]
    # the model saw the tool output and the server's error text
    seen = "\n".join(m.text() for m in llm.requests[-1].messages)
    assert "ping" in seen and "disk full" in seen
