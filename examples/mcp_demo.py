"""MCP tools in an Awaken agent, end to end, without an LLM account.

The script plays both sides: started with ``--serve`` it is a small MCP server (the official
SDK's ``MCPServer``, formerly FastMCP) speaking stdio; started normally it launches that server
as a child process, discovers its tools (ids ``mcp__{server}__{tool}``), lets a scripted model
call two of them through ``McpPlugin`` and prints what came back — including the ``mcp.server``
/ ``mcp.tool`` metadata and the progress the server reported.

Run: ``uv run python examples/mcp_demo.py``
"""

from __future__ import annotations

import asyncio
import sys

from awaken import AgentRuntimeBuilder, AgentSpec, ModelSpec, RunRequest
from awaken.contract.content import ContentBlock
from awaken.contract.event import ActivitySnapshot, ToolCallDone
from awaken.contract.event_sink import VecEventSink
from awaken.contract.executor import InferenceRequest, LlmExecutor
from awaken.contract.inference import StopReason, StreamResult
from awaken.contract.message import Message, ToolCall
from awaken.ext_mcp import McpPlugin, McpServerConnectionConfig, McpToolRegistryManager
from mcp.server.mcpserver import Context, MCPServer


def serve() -> None:
    """The MCP server side: two tools over stdio."""
    server = MCPServer("weather", log_level="WARNING")

    @server.tool(name="get.forecast", description="Weather forecast for a city.")
    def forecast(city: str) -> str:
        return f"Sunny in {city}, 24°C"

    @server.tool(description="Count to n, reporting progress.")
    async def count(n: int, ctx: Context) -> str:
        for i in range(n):
            await ctx.report_progress(i + 1, n, f"counted {i + 1}")
        return f"counted to {n}"

    server.run("stdio")


class ScriptedLlm(LlmExecutor):
    """Plays back prepared model turns (stands in for a real provider)."""

    def __init__(self, turns: list[StreamResult]) -> None:
        self.turns = list(turns)

    async def execute(self, request: InferenceRequest) -> StreamResult:
        return self.turns.pop(0)

    def name(self) -> str:
        return "scripted"


def call(call_id: str, tool: str, args: dict[str, object]) -> StreamResult:
    return StreamResult(tool_calls=[ToolCall(call_id, tool, args)], stop_reason=StopReason.TOOL_USE)


async def main() -> None:
    config = McpServerConnectionConfig.stdio("weather", sys.executable, [__file__, "--serve"])
    async with await McpToolRegistryManager.connect([config]) as manager:
        print("discovered:", ", ".join(manager.registry().ids()))
        llm = ScriptedLlm(
            [
                call("c1", "mcp__weather__get_forecast", {"city": "Tokyo"}),
                call("c2", "mcp__weather__count", {"n": 3}),
                StreamResult(
                    content=[ContentBlock.text("Sunny in Tokyo; I also counted to 3.")],
                    stop_reason=StopReason.END_TURN,
                ),
            ]
        )
        spec = (
            AgentSpec("mcp-agent")
            .with_model("m")
            .with_system_prompt("Use MCP tools when they help answer the user.")
            .with_plugin("mcp")
            .with_hook_filter("mcp")
        )
        runtime = (
            AgentRuntimeBuilder()
            .with_agent_spec(spec)
            .with_provider("scripted", llm)
            .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
            .with_plugin("mcp", McpPlugin(manager))
            .build()
        )
        sink = VecEventSink()
        request = RunRequest("demo", [Message.user("Weather in Tokyo?")]).with_agent_id("mcp-agent")
        result = await runtime.run(request, sink)
        for event in sink.take():
            if isinstance(event, ToolCallDone):
                meta = event.result.metadata
                print(
                    f"tool {event.id}: {event.result.data!r} "
                    f"(server={meta.get('mcp.server')}, tool={meta.get('mcp.tool')})"
                )
            elif isinstance(event, ActivitySnapshot) and event.content.get("progress") is not None:
                print(f"  progress {event.content['progress']:.2f} {event.content.get('message')}")
        print("answer:", result.response)
        print("server health:", manager.server_health("weather").state)


if __name__ == "__main__":
    if "--serve" in sys.argv:
        serve()
    else:
        asyncio.run(main())
