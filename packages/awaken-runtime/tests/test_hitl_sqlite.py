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
from awaken_contract.contract.tool_result import ToolOutput
from awaken_contract.plugin import (
    PhaseContext,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
    ToolGateHook,
)
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import KeyScope, MergeStrategy, StateCommand, StateKey, StateKeyOptions
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


def runtime(store: SqliteStore, llm: ScriptedLlm, tool: Transfer, plugin: Plugin | None = None):
    """The bank agent over ``store`` with ``plugin`` (default: ask before every transfer)."""
    plugin = plugin if plugin is not None else ConfirmPlugin()
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("bank").with_model("m").with_plugin(plugin.plugin_id))
        .with_plugin(plugin.plugin_id, plugin)
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


class Notes(StateKey[int, int]):
    """A Run-scoped counter the tools add to."""

    KEY = "test.notes"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: int, update: int) -> int:
        return value + update


class Noting(Transfer):
    """``transfer`` that adds 1 to the run's notes and reports what it saw before."""

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolOutput:  # type: ignore[override]
        seen = ctx.snapshot.get(Notes)
        self.calls.append({**args, "seen": seen})
        return ToolOutput.with_command(
            ToolResult.success("transfer", {"moved": args["amount"]}),
            StateCommand().update(Notes, 1),
        )


class NotesPlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("notes")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(Notes, StateKeyOptions())
        registrar.register_tool_gate_hook("notes", NotingConfirm())


class NotingConfirm(Confirm):
    """Ask only for the second transfer."""

    async def run(self, ctx: PhaseContext) -> ToolInterceptPayload | None:
        if ctx.tool_call_id == "c1":
            return None
        return await super().run(ctx)


async def test_a_parked_run_resumed_elsewhere_keeps_its_run_scoped_state(tmp_path: Path) -> None:
    db = tmp_path / "awaken.db"
    steps = [
        tool_step([ToolCall("c1", "transfer", {"amount": 1})]),
        tool_step([ToolCall("c2", "transfer", {"amount": 2})]),
    ]
    async with SqliteStore(db) as store:
        first_tool = Noting()
        parked = await runtime(store, ScriptedLlm(steps), first_tool, NotesPlugin()).run(
            RunRequest("acct", [Message.user("send 1 then 2")]).with_agent_id("bank"),
            VecEventSink(),
            wait_for_decisions=False,
        )
        assert parked.termination.type is TerminationKind.SUSPENDED
        assert first_tool.calls == [{"amount": 1, "seen": None}]

    async with SqliteStore(db) as reopened:  # a new connection, as another process would
        tool = Noting()
        result = await runtime(
            reopened, ScriptedLlm([text_step("Sent.")]), tool, NotesPlugin()
        ).run(
            RunRequest("acct", [])
            .with_agent_id("bank")
            .with_decision("ok-c2", ToolCallResume.resume(True)),
            VecEventSink(),
        )
        assert result.run_id == parked.run_id and result.response == "Sent."
        assert tool.calls == [{"amount": 2, "seen": 1}]  # the first step's note came back
        final = await reopened.load_run(result.run_id)
        assert final is not None and final.status is RunStatus.DONE
        assert final.state is not None and final.state.extensions["test.notes"] == 2
        assert final.steps == 3  # two tool steps and the answer, each counted once
