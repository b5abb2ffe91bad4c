"""The run record of every checkpoint: after an attempt's first one it is the previous record
with the step's parts replaced (ADR 0036) — exactly the record a full build gives."""

from typing import Any

import msgspec
import pytest
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.storage import RunRecord
from awaken_contract.contract.suspension import (
    ToolCallResume,
)
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.loop_runner import checkpoint, run_context
from awaken_runtime.testing import ConfirmPlugin
from awaken_stores import InMemoryStore


class Echo(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("echo", "echo", "Echo the arguments")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("echo", {"echo": args})


@pytest.fixture
def records(monkeypatch: pytest.MonkeyPatch) -> list[RunRecord]:
    """Every checkpointed record; each one built from the attempt's previous record is
    checked against a full build from the same inputs."""
    built: list[RunRecord] = []
    real = checkpoint.build_run_record

    def checked(inputs: checkpoint.RunRecordInputs, *args: Any, **kwargs: Any) -> RunRecord:
        record = real(inputs, *args, **kwargs)
        if inputs.own_previous:
            full = real(msgspec.structs.replace(inputs, own_previous=False), *args, **kwargs)
            assert record == full
        built.append(record)
        return record

    monkeypatch.setattr(run_context, "build_run_record", checked)
    return built


def build(store: InMemoryStore, llm: ScriptedLlm, *, gated: bool = False) -> Any:
    spec = AgentSpec("a").with_model("m").with_max_rounds(3)
    builder = (
        AgentRuntimeBuilder()
        .with_tool("echo", Echo())
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
        .with_thread_run_store(store)
    )
    if gated:
        spec = spec.with_plugin("gate")
        builder = builder.with_plugin("gate", ConfirmPlugin("gate"))
    return builder.with_agent_spec(spec).build()


async def test_tool_run_records_match_full_builds(records: list[RunRecord]) -> None:
    store = InMemoryStore()
    llm = ScriptedLlm([tool_step([ToolCall("c1", "echo", {"x": 1})]), text_step("done")])
    result = await build(store, llm).run(RunRequest("t1", [Message.user("go")]).with_agent_id("a"))
    assert result.response == "done"
    assert [r.status for r in records] == [RunStatus.RUNNING] * 2 + [RunStatus.DONE]
    stored = await store.load_run(result.run_id)
    assert stored == records[-1]
    assert stored is not None and stored.output is not None
    assert stored.output.range is not None and stored.output.range.to_seq == 4
    assert len(stored.output.message_ids) == 3
    # a second run on the thread: its input is the new message, its output only its own
    llm2 = ScriptedLlm([text_step("again")])
    second = await build(store, llm2).run(
        RunRequest("t1", [Message.user("more")]).with_agent_id("a")
    )
    record = await store.load_run(second.run_id)
    assert record is not None and record.input is not None and record.input.range is not None
    assert (record.input.range.from_seq, record.input.range.to_seq) == (5, 5)
    assert record.output is not None and len(record.output.message_ids) == 1


async def test_max_rounds_stop_keeps_every_step_in_the_output(records: list[RunRecord]) -> None:
    store = InMemoryStore()
    steps = [tool_step([ToolCall(f"c{i}", "echo", {"i": i})]) for i in range(4)]
    result = await build(store, ScriptedLlm(steps)).run(
        RunRequest("t2", [Message.user("loop")]).with_agent_id("a")
    )
    assert result.termination.type is TerminationKind.STOPPED
    final = records[-1]
    assert final.outcome is not None and final.steps == 3
    assert final.output is not None and len(final.output.message_ids) == 6
    assert final == await store.load_run(result.run_id)


async def test_parked_and_resumed_run_records(records: list[RunRecord]) -> None:
    store = InMemoryStore()
    llm = ScriptedLlm([tool_step([ToolCall("c1", "echo", {"x": 2})]), text_step("ok")])
    parked = await build(store, llm, gated=True).run(
        RunRequest("t3", [Message.user("go")]).with_agent_id("a"), wait_for_decisions=False
    )
    assert parked.termination.type is TerminationKind.SUSPENDED
    waiting = records[-1]
    assert waiting.status is RunStatus.WAITING and waiting.waiting is not None
    assert waiting.waiting.ticket_ids == ["ok-c1"]
    # a fresh runtime resumes it: its first record starts from the stored one
    resumed = await build(store, llm, gated=True).run(
        RunRequest("t3", [])
        .with_agent_id("a")
        .with_decisions([("c1", ToolCallResume.resume(True))])
    )
    assert resumed.run_id == parked.run_id and resumed.response == "ok"
    final = await store.load_run(resumed.run_id)
    assert final is not None and final == records[-1]
    assert final.status is RunStatus.DONE and final.waiting is None
    assert final.created_at == waiting.created_at and final.request == waiting.request
