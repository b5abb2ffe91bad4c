"""Tokens of the tool list sent to the model: 200 tools, deferral off vs on.

Same agent, same 200 tools, same scripted model (step 1 calls ToolSearch for two tools, step 2
calls one of them, step 3 answers); the baseline runs without the plugin. With deferral on
only the always-on tools (rule ``core_*: eager``), ToolSearch and the promoted tools reach
the model; the other schemas are replaced by one system message listing their ids, whose
tokens are counted too.

Tokens are the runtime's estimate (``awaken_runtime.context.tokens``: UTF-8 bytes / 4 plus a
fixed overhead per tool or message) — the estimator the context-window policy uses; no
tokenizer model is downloaded. Run: ``uv run python bench/deferred_tools_tokens.py``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from awaken import AgentRuntimeBuilder, AgentSpec, ModelSpec, RunRequest
from awaken.contract.executor import InferenceRequest
from awaken.contract.message import Message, Role, ToolCall
from awaken.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken.engine import ScriptedLlm, text_step, tool_step
from awaken.ext_deferred_tools import DEFERRED_LIST_HEADER, DeferredToolsPlugin
from awaken_runtime.context.tokens import estimate_message_tokens, estimate_tools_tokens

TOOLS = 200
ALWAYS_ON = 5
PROMOTED = ["crm_lookup_15", "crm_lookup_40"]
DOMAINS = ["crm_lookup", "billing_report", "deploy_service", "search_docs", "ticket_update"]
FIELD_KINDS = [
    ("string", "Identifier of the record to act on"),
    ("integer", "Maximum number of items to return"),
    ("boolean", "Whether to include archived entries"),
    ("string", "ISO-8601 date the query starts from"),
    ("string", "Free-text filter applied to names and descriptions"),
]


class BenchTool(Tool):
    """A tool with a realistic schema (3 to 7 documented parameters)."""

    def __init__(self, tool_id: str, fields: int) -> None:
        self.tool_id = tool_id
        self.fields = fields

    def descriptor(self) -> ToolDescriptor:
        props: dict[str, Any] = {}
        for i in range(self.fields):
            kind, text = FIELD_KINDS[i % len(FIELD_KINDS)]
            props[f"param_{i}"] = {"type": kind, "description": f"{text} ({self.tool_id})."}
        return ToolDescriptor(
            self.tool_id, self.tool_id, f"{self.tool_id.replace('_', ' ')}: one operation."
        ).with_parameters({"type": "object", "properties": props, "required": ["param_0"]})

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success(self.tool_id, {"ok": True})


def make_tools() -> list[BenchTool]:
    tools = [BenchTool(f"core_{i}", 3) for i in range(ALWAYS_ON)]
    for i in range(TOOLS - ALWAYS_ON):
        tools.append(BenchTool(f"{DOMAINS[i % len(DOMAINS)]}_{i}", 3 + i % 5))
    return tools


async def run(deferral: bool) -> list[InferenceRequest]:
    tools = make_tools()
    llm = ScriptedLlm(
        [
            tool_step([ToolCall("s", "ToolSearch", {"query": "select:" + ",".join(PROMOTED)})]),
            tool_step([ToolCall("c", PROMOTED[0], {"param_0": "x"})]),
            text_step("done"),
        ]
    )
    spec = AgentSpec("bench").with_model("m")
    builder = AgentRuntimeBuilder().with_provider("llm", llm)
    builder = builder.with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
    if deferral:  # the baseline has no plugin at all (no ToolSearch either)
        section = {"enabled": True, "rules": [{"tool": "core_*", "mode": "eager"}]}
        spec = spec.with_plugin("ext-deferred-tools").with_section("deferred_tools", section)
        builder = builder.with_plugin("ext-deferred-tools", DeferredToolsPlugin())
    builder = builder.with_agent_spec(spec)
    for tool in tools:
        builder = builder.with_tool(tool.tool_id, tool)
    await builder.build().run(RunRequest("t", [Message.user("go")]).with_agent_id("bench"))
    return llm.requests


def list_tokens(request: InferenceRequest) -> int:
    listing = [
        m
        for m in request.messages
        if m.role is Role.SYSTEM and m.text().startswith(DEFERRED_LIST_HEADER)
    ]
    return sum(estimate_message_tokens(m) for m in listing)


async def main() -> None:
    off, on = await run(False), await run(True)
    print(f"Deferred tools: tool-list tokens per request, {TOOLS} tools ({ALWAYS_ON} always on)")
    print("  (estimate: runtime token estimator, UTF-8 bytes / 4 + 10 per tool)")
    print(
        f"  {'step':<6}{'no plugin':>10}{'tools on':>10}{'list msg':>10}{'on total':>10}"
        f"{'reduction':>11}"
    )
    for step, (a, b) in enumerate(zip(off, on, strict=True), start=1):
        before = estimate_tools_tokens(a.tools)
        tools_on = estimate_tools_tokens(b.tools)
        listed = list_tokens(b)
        total = tools_on + listed
        print(
            f"  {step:<6}{before:>10}{tools_on:>10}{listed:>10}{total:>10}"
            f"{1 - total / before:>10.1%}"
        )
    sent = [sorted(t.id for t in r.tools) for r in on]
    core = [f"core_{i}" for i in range(ALWAYS_ON)]
    print(
        f"  step 1 sends {len(sent[0])} tools: ToolSearch + {ALWAYS_ON} always-on "
        f"({sent[0] == sorted(['ToolSearch', *core])})"
    )
    print(
        f"  step 2 sends {len(sent[1])} tools: + promoted {PROMOTED} "
        f"({sent[1] == sorted(['ToolSearch', *core, *PROMOTED])})"
    )


if __name__ == "__main__":
    asyncio.run(main())
