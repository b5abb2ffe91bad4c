"""Tool permissions with human approval, end to end, without an LLM account.

A scripted LLM asks for three shell commands. The permission rules allow ``ls``, deny
``rm``, and ask a human for anything else. The "ask" run parks (status ``waiting``, reason
``tool_permission``) and is approved — remembering the approval — from a fresh runtime over the
same SQLite file, as a separate approval service would do.

Run: ``uv run python examples/permission_demo.py``
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from awaken import AgentRuntimeBuilder, AgentSpec, ModelSpec, RunRequest
from awaken.contract.content import ContentBlock
from awaken.contract.executor import InferenceRequest, LlmExecutor
from awaken.contract.inference import StopReason, StreamResult
from awaken.contract.message import Message, ToolCall
from awaken.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken.ext_permission import (
    PermissionConfigKey,
    PermissionPlugin,
    PermissionRulesConfig,
    approve,
)
from awaken.stores import SqliteStore

RULES = """
default_behavior: ask
rules:
  - tool: "Bash(ls*)"
    behavior: allow
  - tool: "Bash(command =~ '(?i)\\\\brm\\\\b')"
    behavior: deny
"""


class ScriptedLlm(LlmExecutor):
    """Plays back prepared model turns (stands in for a real provider)."""

    def __init__(self, turns: list[StreamResult]) -> None:
        self.turns = list(turns)

    async def execute(self, request: InferenceRequest) -> StreamResult:
        return self.turns.pop(0)

    def name(self) -> str:
        return "scripted"


class Bash(Tool):
    """A pretend shell: it only echoes what it would run."""

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("Bash", "Bash", "Run a shell command").with_parameters(
            {
                "type": "object",
                "properties": {"command": {"type": "string"}},
                "required": ["command"],
            }
        )

    async def execute(self, args: dict[str, Any], ctx: ToolCallContext) -> ToolResult:
        print(f"    [Bash] executing: {args['command']}")
        return ToolResult.success("Bash", {"output": f"(pretend output of {args['command']})"})


def shell(command: str, call_id: str) -> StreamResult:
    call = ToolCall(call_id, "Bash", {"command": command})
    return StreamResult(tool_calls=[call], stop_reason=StopReason.TOOL_USE)


def say(text: str) -> StreamResult:
    return StreamResult(content=[ContentBlock.text(text)], stop_reason=StopReason.END_TURN)


def ask(text: str) -> RunRequest:
    return RunRequest("t1", [Message.user(text)]).with_agent_id("ops")


def build(llm: LlmExecutor, store: SqliteStore) -> Any:
    config = PermissionRulesConfig.from_str(RULES, "yaml")
    spec = (
        AgentSpec("ops")
        .with_model("scripted-model")
        .with_system_prompt("You run shell commands for the user.")
        .with_plugin("permission")
        .with_hook_filter("permission")
        .with_config(PermissionConfigKey, config)
    )
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(spec)
        .with_tool("Bash", Bash())
        .with_provider("scripted", llm)
        .with_model(
            "scripted-model", ModelSpec(id="scripted-model", provider="scripted", model="demo")
        )
        .with_plugin("permission", PermissionPlugin())
        .with_thread_run_store(store)
        .build()
    )


async def main() -> None:
    db = Path(tempfile.mkdtemp()) / "awaken.db"
    turns = [
        shell("ls -la", "c1"),  # allowed
        say("Here is the listing."),
        shell("rm -rf build", "c2"),  # denied: the run is blocked
        shell("npm install", "c3"),  # asks a human: the run parks
        say("Dependencies installed."),
        shell("npm test", "c4"),  # remembered approval: runs without asking
        say("All tests pass."),
    ]
    llm = ScriptedLlm(turns)

    async with SqliteStore(db) as store:
        runtime = build(llm, store)
        print("1. allowed call")
        result = await runtime.run(
            RunRequest("t1", [Message.user("list files")]).with_agent_id("ops")
        )
        print(f"   -> {result.termination.type}: {result.response}")

        print("2. denied call")
        result = await runtime.run(
            RunRequest("t1", [Message.user("clean up")]).with_agent_id("ops")
        )
        print(f"   -> {result.termination.type}: {result.termination.value}")

        print("3. call that needs approval")
        result = await runtime.run(ask("install deps"), wait_for_decisions=False)
        record = await store.load_run(result.run_id)
        assert record is not None and record.waiting is not None
        print(
            f"   -> {result.termination.type}; run is {record.status}, "
            f"waiting for {record.waiting.reason} on {record.waiting.ticket_ids}"
        )

    print("4. a fresh runtime (another process) approves and remembers it for the thread")
    async with SqliteStore(db) as store:
        runtime = build(llm, store)
        decision = (
            RunRequest("t1", [])
            .with_agent_id("ops")
            .with_decision("perm_c3", approve(remember=True))
        )
        result = await runtime.run(decision)
        print(f"   -> {result.termination.type}: {result.response}")

        print("5. the same tool later in the thread runs without asking")
        result = await runtime.run(
            RunRequest("t1", [Message.user("run tests")]).with_agent_id("ops")
        )
        print(f"   -> {result.termination.type}: {result.response}")


if __name__ == "__main__":
    asyncio.run(main())
