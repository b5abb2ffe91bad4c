"""Deferred tools, end to end, without an LLM account.

Forty tools are registered; only ``get_weather`` is always sent. The scripted model sees the
other tools listed by name, asks ``ToolSearch`` for the invoice tool, and calls it once its
schema has been promoted. The per-agent usage priors land in a SQLite profile store.

Run: ``uv run python examples/deferred_tools_demo.py``
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from awaken import AgentRuntimeBuilder, AgentSpec, ModelSpec, RunRequest
from awaken.contract.message import Message, ToolCall
from awaken.contract.storage import ProfileOwner
from awaken.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken.engine import ScriptedLlm, text_step, tool_step
from awaken.ext_deferred_tools import DeferredToolsPlugin
from awaken.stores import SqliteStore


class Api(Tool):
    """One endpoint of a pretend back office."""

    def __init__(self, tool_id: str, description: str) -> None:
        self.tool_id = tool_id
        self.description = description

    def descriptor(self) -> ToolDescriptor:
        props = {f"field_{i}": {"type": "string", "description": "a filter"} for i in range(8)}
        return ToolDescriptor(self.tool_id, self.tool_id, self.description).with_parameters(
            {"type": "object", "properties": props}
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success(self.tool_id, {"called": self.tool_id, "args": args})


async def main() -> None:
    tools = [Api("get_weather", "Weather for a city"), Api("invoice_find", "Find an invoice")]
    tools += [Api(f"report_{i}", f"Monthly report number {i}") for i in range(38)]
    llm = ScriptedLlm(
        [
            tool_step([ToolCall("s1", "ToolSearch", {"query": "invoice"})]),
            tool_step([ToolCall("c1", "invoice_find", {"field_0": "ACME"})]),
            text_step("Invoice found."),
        ]
    )
    section = {"enabled": True, "rules": [{"tool": "get_weather", "mode": "eager"}]}
    spec = (
        AgentSpec("backoffice")
        .with_model("m")
        .with_plugin("ext-deferred-tools")
        .with_section("deferred_tools", section)
    )
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteStore(Path(folder) / "awaken.db")
        builder = (
            AgentRuntimeBuilder()
            .with_agent_spec(spec)
            .with_plugin("ext-deferred-tools", DeferredToolsPlugin())
            .with_provider("scripted", llm)
            .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
            .with_profile_store(store.profiles)
        )
        for tool in tools:
            builder = builder.with_tool(tool.tool_id, tool)
        result = await builder.build().run(
            RunRequest("t-1", [Message.user("Find ACME's invoice")]).with_agent_id("backoffice")
        )
        for step, request in enumerate(llm.requests, start=1):
            print(f"step {step}: {sorted(t.id for t in request.tools)}")
        priors = await store.profiles.get(
            ProfileOwner.agent("backoffice"), "deferred_tools.agent_priors"
        )
        assert priors is not None
        print("priors:", priors.value)
        await store.close()
    assert [t.id for t in llm.requests[0].tools] == ["ToolSearch", "get_weather"]
    assert "invoice_find" in [t.id for t in llm.requests[1].tools]
    print(result.response)


if __name__ == "__main__":
    asyncio.run(main())
