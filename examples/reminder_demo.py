"""Reminders after tool calls, end to end, without an LLM account.

A scripted model edits ``Cargo.toml`` twice and ``main.rs`` once. The reminder rule
``Edit(file_path ~ "*.toml")`` adds "TOML changed: run the checker." to the next inference after
a TOML edit, at most once every 3 steps. The transcript never contains the reminder.

Run: ``uv run python examples/reminder_demo.py``
"""

from __future__ import annotations

import asyncio
from typing import Any

from awaken import AgentRuntimeBuilder, AgentSpec, ModelSpec, RunRequest
from awaken.contract.message import Message, ToolCall
from awaken.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken.engine import ScriptedLlm, text_step, tool_step
from awaken.ext_reminder import ReminderConfigKey, ReminderPlugin, ReminderRulesConfig
from awaken.stores import InMemoryStore

RULES = """
rules:
  - name: toml-edit
    tool: 'Edit(file_path ~ "*.toml")'
    message: {target: system, content: "TOML changed: run the checker.", cooldown_turns: 3}
"""
HINT = "TOML changed: run the checker."


class Edit(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("Edit", "Edit", "Edit a file").with_parameters(
            {"type": "object", "properties": {"file_path": {"type": "string"}}}
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("Edit", {"edited": args["file_path"]})


def edit(n: int, path: str) -> Any:
    return tool_step([ToolCall(f"c{n}", "Edit", {"file_path": path})])


async def main() -> None:
    llm = ScriptedLlm(
        [edit(1, "Cargo.toml"), edit(2, "main.rs"), edit(3, "Cargo.toml"), text_step("Done.")]
    )
    spec = (
        AgentSpec("coder")
        .with_model("m")
        .with_system_prompt("You edit files.")
        .with_plugin("reminder")
        .with_config(ReminderConfigKey, ReminderRulesConfig.from_str(RULES, "yaml"))
    )
    store = InMemoryStore()
    runtime = (
        AgentRuntimeBuilder()
        .with_provider("scripted", llm)
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_agent_spec(spec)
        .with_tool("Edit", Edit())
        .with_plugin("reminder", ReminderPlugin())
        .with_thread_run_store(store)
        .build()
    )
    result = await runtime.run(
        RunRequest("t", [Message.user("bump the version")]).with_agent_id("coder")
    )
    reminded = [any(m.text() == HINT for m in r.messages) for r in llm.requests]
    for step, seen in enumerate(reminded, start=1):
        print(f"inference {step}: {'reminded' if seen else '-'}")
    # after the first TOML edit: reminded; after main.rs: nothing; the second TOML edit falls
    # inside the 3-step cooldown, so it is skipped
    assert reminded == [False, True, False, False], reminded
    transcript = await store.load_messages("t") or []
    assert all(HINT not in m.text() for m in transcript)
    print(result.response)


if __name__ == "__main__":
    asyncio.run(main())
