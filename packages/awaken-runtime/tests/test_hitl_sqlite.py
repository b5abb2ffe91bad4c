"""HITL and thread state over a real SQLite file, across runtimes (process-equivalent)."""

from pathlib import Path
from typing import Any

from awaken_contract.actions import InterceptSuspend, ToolInterceptPayload
from awaken_contract.contract.event import RunFinish
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind
from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.suspension import (
    SuspendTicket,
    Suspension,
    ToolCallResume,
    ToolCallResumeMode,
)
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.plugin import (
    PhaseContext,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
    ToolGateHook,
)
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_stores import SqliteStore


class Transfer(Tool):
    def __init__(self) -> None:
        self.calls: list[Any] = []

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("transfer", "transfer", "Move money")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.calls.append(args)
        return ToolResult.success("transfer", {"moved": args["amount"]})


class Confirm(ToolGateHook):
    async def run(self, ctx: PhaseContext) -> ToolInterceptPayload | None:
        if ctx.resume_input is not None:
            return None
        ticket = SuspendTicket(
            suspension=Suspension(id=f"ok-{ctx.tool_call_id}", action="confirm"),
            resume_mode=ToolCallResumeMode.REPLAY_TOOL_CALL,
        )
        return InterceptSuspend(ticket)


class ConfirmPlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("confirm")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_tool_gate_hook("confirm", Confirm())


def runtime(store: SqliteStore, llm: ScriptedLlm, tool: Transfer):
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("bank").with_model("m").with_plugin("confirm"))
        .with_plugin("confirm", ConfirmPlugin())
        .with_tool("transfer", tool)
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
        .with_thread_run_store(store)
        .build()
    )


async def test_suspend_in_one_runtime_resume_in_another_over_sqlite(tmp_path: Path) -> None:
    db = tmp_path / "awaken.db"
    async with SqliteStore(db) as store:
        first = runtime(
            store, ScriptedLlm([tool_step([ToolCall("c1", "transfer", {"amount": 5})])]), Transfer()
        )
        sink = VecEventSink()
        parked = await first.run(
            RunRequest("acct", [Message.user("send 5")]).with_agent_id("bank"),
            sink,
            wait_for_decisions=False,
        )
        assert parked.termination.type is TerminationKind.SUSPENDED
        assert isinstance(sink.events[-1], RunFinish)

    async with SqliteStore(db) as reopened:  # a new connection, as another process would
        record = await reopened.load_run(parked.run_id)
        assert record is not None and record.status is RunStatus.WAITING
        assert record.waiting is not None and record.waiting.ticket_ids == ["ok-c1"]
        tool = Transfer()
        second = runtime(reopened, ScriptedLlm([text_step("Sent 5.")]), tool)
        result = await second.run(
            RunRequest("acct", [])
            .with_agent_id("bank")
            .with_decision("ok-c1", ToolCallResume.resume(True)),
            VecEventSink(),
        )
        assert result.run_id == parked.run_id
        assert result.response == "Sent 5."
        assert tool.calls == [{"amount": 5}]
        final = await reopened.load_run(result.run_id)
        assert final is not None and final.status is RunStatus.DONE
        assert final.termination_reason is not None
        assert final.termination_reason.type is TerminationKind.NATURAL_END
        messages = await reopened.load_messages("acct")
        assert messages is not None
        assert [m.role for m in messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
        assert "moved" in messages[2].text()
        thread = await reopened.load_thread("acct")
        assert thread is not None and thread.latest_run_id == result.run_id
        assert thread.open_run_id is None
