"""End to end: real runtime, real SQLite file, scripted LLM (the only mock).

An Ask run is suspended, then approved / denied from a *fresh* runtime over the same SQLite
file; a Deny run blocks the call and the model receives the reason; an approval can be
remembered for the thread; decisions also reach a live run in process.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.event import AgentEvent, RunFinish, ToolCallDone
from awaken_contract.contract.event_sink import EventSink, VecEventSink
from awaken_contract.contract.executor import LlmExecutor
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.storage import ThreadRunStore
from awaken_contract.contract.suspension import WaitingReason
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_ext_permission import (
    PermissionConfigKey,
    PermissionPlugin,
    PermissionRulesConfig,
    approve,
    deny,
)

pytest.importorskip("awaken_runtime")
pytest.importorskip("aiosqlite")

from awaken_runtime.builder import AgentRuntimeBuilder
from awaken_runtime.runtime.agent_runtime import AgentRuntime
from awaken_runtime.testing import ScriptedLlm, text_step, tool_call_step
from awaken_stores.sqlite import SqliteStore

RULES = PermissionRulesConfig.from_str(
    """
default_behavior: ask
rules:
  - {tool: "Bash(rm *)", behavior: deny}
  - {tool: "Bash(ls*)", behavior: allow}
  - {tool: "delete_everything", behavior: deny}
""",
    "yaml",
)


class Bash(Tool):
    def __init__(self, name: str = "Bash") -> None:
        self.id = name
        self.calls: list[Any] = []

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(self.id, self.id, "Run a shell command").with_parameters(
            {"type": "object", "properties": {"command": {"type": "string"}}}
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.calls.append(args)
        return ToolResult.success(self.id, {"output": f"ran {args.get('command')}"})


def bash_call(command: str, call_id: str = "c1") -> StreamResult:
    return tool_call_step(call_id, "Bash", {"command": command})


answer = text_step


def build(llm: LlmExecutor, store: ThreadRunStore, bash: Bash) -> AgentRuntime:
    spec = (
        AgentSpec("ops")
        .with_model("m")
        .with_system_prompt("You run shell commands.")
        .with_plugin("permission")
        .with_hook_filter("permission")
        .with_config(PermissionConfigKey, RULES)
    )
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(spec)
        .with_tool("Bash", bash)
        .with_tool("delete_everything", Bash("delete_everything"))
        .with_provider("scripted", llm)
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_plugin("permission", PermissionPlugin())
        .with_thread_run_store(store)
        .build()
    )


def user(text: str) -> RunRequest:
    return RunRequest("thread-1", [Message.user(text)]).with_agent_id("ops")


def tool_messages(messages: list[Message], call_id: str) -> list[Message]:
    return [m for m in messages if m.role is Role.TOOL and m.tool_call_id == call_id]


async def suspend_first_run(db: Path, bash: Bash) -> str:
    """Run 1 in its own runtime and store: the Bash call asks and the run parks."""
    store = SqliteStore(db)
    try:
        runtime = build(ScriptedLlm([bash_call("npm install")]), store, bash)
        sink = VecEventSink()
        result = await runtime.run(user("install deps"), sink, wait_for_decisions=False)
        assert result.termination.type is TerminationKind.SUSPENDED
        events = sink.take()
        done = [e for e in events if isinstance(e, ToolCallDone)]
        assert [e.outcome for e in done] == ["suspended"]
        assert isinstance(events[-1], RunFinish)
        record = await store.load_run(result.run_id)
        assert record is not None and record.status is RunStatus.WAITING
        assert record.waiting is not None
        assert record.waiting.reason is WaitingReason.TOOL_PERMISSION
        assert record.waiting.ticket_ids == ["perm_c1"]
        (ticket,) = record.waiting.tickets
        assert (ticket.tool_call_id, ticket.tool_name) == ("c1", "Bash")
        assert ticket.arguments == {"command": "npm install"}
        assert bash.calls == []
        return result.run_id
    finally:
        await store.close()


async def test_ask_is_suspended_then_approved_from_a_fresh_runtime(tmp_path: Path) -> None:
    db = tmp_path / "awaken.db"
    bash = Bash()
    run_id = await suspend_first_run(db, bash)

    store = SqliteStore(db)
    try:
        llm = ScriptedLlm([answer("Dependencies installed.")])
        runtime = build(llm, store, bash)
        request = RunRequest("thread-1", []).with_agent_id("ops").with_decision("c1", approve())
        result = await runtime.run(request, wait_for_decisions=False)
        assert result.run_id == run_id
        assert result.termination.type is TerminationKind.NATURAL_END
        assert result.response == "Dependencies installed."
        assert bash.calls == [{"command": "npm install"}]
        record = await store.load_run(run_id)
        assert record is not None and record.status is RunStatus.DONE
        messages = await store.load_messages("thread-1") or []
        (tool_message,) = tool_messages(messages, "c1")
        assert json.loads(tool_message.text()) == {"output": "ran npm install"}
        # the model saw the real tool result in its next request
        assert "ran npm install" in llm.requests[0].messages[-1].text()
        # a plain approval is not remembered
        assert record.state is not None
        policy = record.state.extensions["permission_policy"]
        assert "tool:Bash" not in policy["rules"]
    finally:
        await store.close()


async def test_ask_is_suspended_then_denied_from_a_fresh_runtime(tmp_path: Path) -> None:
    db = tmp_path / "awaken.db"
    bash = Bash()
    run_id = await suspend_first_run(db, bash)

    store = SqliteStore(db)
    try:
        llm = ScriptedLlm([answer("Understood, I will not install anything.")])
        runtime = build(llm, store, bash)
        decision = deny("not on this machine")
        request = RunRequest("thread-1", []).with_agent_id("ops").with_decision("perm_c1", decision)
        result = await runtime.run(request, wait_for_decisions=False)
        assert result.run_id == run_id
        assert result.termination.type is TerminationKind.NATURAL_END
        assert bash.calls == []
        record = await store.load_run(run_id)
        assert record is not None and record.status is RunStatus.DONE
        messages = await store.load_messages("thread-1") or []
        (tool_message,) = tool_messages(messages, "c1")
        # the tool message tells the model the call was refused, and why
        assert "not on this machine" in tool_message.text()
        assert "not on this machine" in llm.requests[0].messages[-1].text()
    finally:
        await store.close()


async def test_deny_blocks_the_call_and_the_model_receives_the_reason(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "awaken.db")
    try:
        bash = Bash()
        llm = ScriptedLlm([bash_call("rm -rf /"), answer("I may not delete files.")])
        runtime = build(llm, store, bash)
        sink = VecEventSink()
        result = await runtime.run(user("clean up"), sink, wait_for_decisions=False)
        assert result.termination.type is TerminationKind.BLOCKED
        assert result.termination.value == "Tool 'Bash' denied by permission rules"
        assert bash.calls == []
        (done,) = [e for e in sink.take() if isinstance(e, ToolCallDone)]
        assert done.result.is_error
        assert done.result.message == "Tool 'Bash' denied by permission rules"
        messages = await store.load_messages("thread-1") or []
        (tool_message,) = tool_messages(messages, "c1")
        assert "Tool 'Bash' denied by permission rules" in tool_message.text()

        # the next turn's prompt carries the refusal to the model
        follow_up = await runtime.run(user("why?"), wait_for_decisions=False)
        assert follow_up.response == "I may not delete files."
        prompt = "\n".join(m.text() for m in llm.requests[-1].messages)
        assert "Tool 'Bash' denied by permission rules" in prompt
    finally:
        await store.close()


async def test_unconditionally_denied_tools_are_hidden_and_allowed_calls_run(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "awaken.db")
    try:
        bash = Bash()
        llm = ScriptedLlm([bash_call("ls -la"), answer("Listed.")])
        runtime = build(llm, store, bash)
        result = await runtime.run(user("list"), wait_for_decisions=False)
        assert result.termination.type is TerminationKind.NATURAL_END
        assert bash.calls == [{"command": "ls -la"}]
        offered = {tool.id for tool in llm.requests[0].tools}
        assert "Bash" in offered
        assert "delete_everything" not in offered
    finally:
        await store.close()


async def test_remembered_approval_applies_to_later_runs_of_the_thread(tmp_path: Path) -> None:
    db = tmp_path / "awaken.db"
    bash = Bash()
    await suspend_first_run(db, bash)

    store = SqliteStore(db)
    try:
        llm = ScriptedLlm([answer("Installed."), bash_call("npm test", "c2"), answer("Tested.")])
        runtime = build(llm, store, bash)
        request = (
            RunRequest("thread-1", [])
            .with_agent_id("ops")
            .with_decision("c1", approve(remember=True))
        )
        assert (await runtime.run(request, wait_for_decisions=False)).response == "Installed."
        # a later run asks nothing: the approval was remembered for the thread
        later = await runtime.run(user("now run the tests"), wait_for_decisions=False)
        assert later.termination.type is TerminationKind.NATURAL_END
        assert later.response == "Tested."
        assert bash.calls == [{"command": "npm install"}, {"command": "npm test"}]
        record = await store.load_run(later.run_id)
        assert record is not None and record.state is not None
        rule = record.state.extensions["permission_policy"]["rules"]["tool:Bash"]
        assert rule["behavior"] == "allow"
        # deny rules still win over the remembered approval
        llm.responses.append(bash_call("rm -rf build", "c3"))
        blocked = await runtime.run(user("remove the build dir"), wait_for_decisions=False)
        assert blocked.termination.type is TerminationKind.BLOCKED
    finally:
        await store.close()


class SuspensionSignal(EventSink):
    """Collects events and signals when a run parks (run_finish with termination suspended)."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []
        self.suspended = asyncio.Event()

    async def emit(self, event: AgentEvent) -> None:
        self.events.append(event)
        if isinstance(event, RunFinish) and event.termination.type is TerminationKind.SUSPENDED:
            self.suspended.set()


async def test_decision_sent_to_a_live_run_in_process(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "awaken.db")
    try:
        bash = Bash()
        llm = ScriptedLlm([bash_call("npm ci"), answer("Done.")])
        runtime = build(llm, store, bash)
        sink = SuspensionSignal()
        task = asyncio.create_task(runtime.run(user("install"), sink))
        await sink.suspended.wait()
        assert bash.calls == []
        assert runtime.send_decision("thread-1", "c1", approve())
        result = await task
        assert result.termination.type is TerminationKind.NATURAL_END
        assert result.response == "Done."
        assert bash.calls == [{"command": "npm ci"}]
    finally:
        await store.close()
