"""Deterministic replay: finished runs on a real SQLite file replay "identical"; a tampered
journal entry is reported as the first divergence; typed errors for what cannot replay."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from awaken_contract.actions import InterceptSuspend, ToolInterceptPayload
from awaken_contract.contract.event import (
    AgentEvent,
    RunFinish,
    StateSnapshot,
    ToolCallDone,
    ToolCallStreamDelta,
)
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor, stream_events_of
from awaken_contract.contract.inference import LlmStreamEvent, StreamResult, TextDeltaChunk
from awaken_contract.contract.journal import (
    AttemptRecord,
    EventRecord,
    InferenceRecord,
    InputRecord,
    JournalEntry,
    JournalKind,
    JournalRecord,
    ToolFinishedRecord,
)
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.storage import RunRecord
from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallOutcome,
    ToolCallResume,
    ToolCallResumeMode,
)
from awaken_contract.contract.tool import (
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolExecutionMode,
    ToolOutput,
    ToolResult,
)
from awaken_contract.errors import InferenceExecutionError
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    PhaseContext,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
    ToolGateHook,
)
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import MergeStrategy, StateCommand, StateKey, StateKeyOptions
from awaken_runtime import AgentRuntime, AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.replay import (
    JournalUnavailable,
    ReplayStatus,
    RunNotFinished,
    UnknownRun,
    replay_run,
)
from awaken_runtime.testing import assert_runs_replay, wait_until
from awaken_stores import SqliteStore


class Visits(StateKey[int, int]):
    """Written by the tool: replay must re-apply it from the journal."""

    KEY = "test.visits"
    MERGE = MergeStrategy.COMMUTATIVE

    @classmethod
    def apply(cls, value: int, update: int) -> int:
        return value + update


class Lookup(Tool):
    """Counts its executions (the side effect) and bumps ``Visits`` through its command."""

    def __init__(self) -> None:
        self.runs = 0

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("lookup", "Lookup", "Look a city up")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolOutput:
        self.runs += 1
        command = StateCommand().update(Visits, 3)
        return ToolOutput.with_command(
            ToolResult.success("lookup", {"city": args["city"]}), command
        )


class Gate(ToolGateHook):
    """Suspends ``deploy`` until a decision resumes it."""

    async def run(self, ctx: PhaseContext) -> ToolInterceptPayload | None:
        if ctx.tool_name != "deploy" or ctx.resume_input is not None:
            return None
        return InterceptSuspend(
            SuspendTicket(
                suspension=Suspension(id=f"ok-{ctx.tool_call_id}", action="confirm"),
                pending=PendingToolCall(id=ctx.tool_call_id or "", name="deploy", arguments={}),
                resume_mode=ToolCallResumeMode.REPLAY_TOOL_CALL,
            )
        )


class Deploy(Tool):
    def __init__(self) -> None:
        self.runs = 0

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("deploy", "Deploy", "Deploy")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.runs += 1
        return ToolResult.success("deploy", {"deployed": True})


class Approvals(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("approvals")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(Visits, StateKeyOptions())
        registrar.register_tool_gate_hook("approvals", Gate())


class Progress(Tool):
    """Streams progress while it runs (events a replay re-emits from the journal)."""

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("progress", "Progress", "A long job")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        assert ctx.activity_sink is not None
        for part in ("10%", "100%"):
            await ctx.activity_sink.emit(
                ToolCallStreamDelta(id=ctx.call_id, name="progress", delta=part)
            )
        return ToolResult.success("progress", {"job": args["job"]})


def build(
    store: SqliteStore | None,
    steps: list[Any] | LlmExecutor,
    mode: ToolExecutionMode = ToolExecutionMode.SEQUENTIAL,
    stopper: Plugin | None = None,
) -> tuple[AgentRuntime, Lookup, Deploy]:
    lookup, deploy = Lookup(), Deploy()
    spec = AgentSpec("ops").with_model("m").with_system_prompt("Be brief.").with_plugin("approvals")
    builder = (
        AgentRuntimeBuilder()
        .with_tool_execution_mode(mode)
        .with_tool("progress", Progress())
        .with_plugin("approvals", Approvals())
        .with_tool("lookup", lookup)
        .with_tool("deploy", deploy)
        .with_provider("llm", steps if isinstance(steps, LlmExecutor) else ScriptedLlm(steps))
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
    )
    if stopper is not None:
        spec = spec.with_plugin("stopper")
        builder = builder.with_plugin("stopper", stopper)
    builder = builder.with_agent_spec(spec)
    if store is not None:
        builder = builder.with_thread_run_store(store)
    return builder.build(), lookup, deploy


def lookup_steps() -> list[Any]:
    return [
        tool_step([ToolCall("c1", "lookup", {"city": "Oslo"})], "Checking."),
        tool_step([ToolCall("c2", "lookup", {"city": "Rome"})]),
        text_step("Oslo and Rome."),
    ]


def deploy_steps() -> list[Any]:
    return [tool_step([ToolCall("d1", "deploy", {})]), text_step("Deployed.")]


async def journal(store: SqliteStore, run_id: str) -> list[JournalEntry]:
    return await store.read(run_id)


def tamper(db: Path, run_id: str, seq: int, record: JournalRecord) -> None:
    """Overwrite one journal entry in the SQLite file (as an editor of the database would)."""
    with sqlite3.connect(db) as conn:
        changed = conn.execute(
            "UPDATE awaken_journal SET data = ? WHERE run_id = ? AND seq = ?",
            (msgspec.json.encode(record).decode(), run_id, seq),
        ).rowcount
    assert changed == 1


@pytest.fixture
async def db(tmp_path: Path) -> Any:
    path = tmp_path / "replay.db"
    store = SqliteStore(path)
    yield path, store
    await store.close()


async def test_a_finished_run_replays_identical_without_side_effects(db: Any) -> None:
    _, store = db
    runtime, lookup, _ = build(store, lookup_steps())
    result = await runtime.run(
        RunRequest("t1", [Message.user("cities?")]).with_agent_id("ops"), VecEventSink()
    )
    assert lookup.runs == 2
    before = await journal(store, result.run_id)
    record = await store.load_run(result.run_id)

    # replayed by a fresh runtime: its model has no steps left to give, its tools never run
    fresh, fresh_lookup, _ = build(None, [])
    report = await replay_run(fresh, store, result.run_id)

    assert report.status is ReplayStatus.IDENTICAL, report.describe()
    assert report.describe() == "identical"
    assert report.attempts == 1
    assert report.events == sum(1 for e in before if e.kind is JournalKind.EVENT) > 15
    assert fresh_lookup.runs == 0 and lookup.runs == 2
    assert await journal(store, result.run_id) == before  # nothing written
    assert await store.load_run(result.run_id) == record


async def test_replayed_state_includes_the_tools_recorded_state_effects(db: Any) -> None:
    path, store = db
    runtime, _, _ = build(store, lookup_steps())
    result = await runtime.run(
        RunRequest("t2", [Message.user("cities?")]).with_agent_id("ops"), VecEventSink()
    )
    entries = await journal(store, result.run_id)
    snapshots = [e for e in events_of(entries) if isinstance(e, StateSnapshot)]
    assert snapshots[-1].snapshot["extensions"]["test.visits"] == 6
    finished = next(e for e in entries if isinstance(e.record, ToolFinishedRecord))
    assert isinstance(finished.record, ToolFinishedRecord) and finished.record.command is not None

    # without the recorded command the replayed state no longer matches the journal
    tamper(
        path, result.run_id, finished.seq, msgspec.structs.replace(finished.record, command=None)
    )
    report = await replay_run(build(None, [])[0], store, result.run_id)
    assert report.status is ReplayStatus.DIVERGED
    divergence = report.divergence
    assert divergence is not None and divergence.expected is not None
    assert divergence.expected["event_type"] == "state_snapshot"
    assert any("test.visits" in line for line in divergence.diff), divergence.diff


async def test_a_tampered_tool_result_is_the_first_divergence(db: Any) -> None:
    path, store = db
    runtime, _, _ = build(store, lookup_steps())
    result = await runtime.run(
        RunRequest("t3", [Message.user("cities?")]).with_agent_id("ops"), VecEventSink()
    )
    entries = await journal(store, result.run_id)
    done = next(e for e in entries if isinstance(event_of(e), ToolCallDone))
    event = event_of(done)
    assert isinstance(event, ToolCallDone) and isinstance(done.record, EventRecord)
    forged = msgspec.structs.replace(event, result=ToolResult.success("lookup", {"city": "Paris"}))
    tamper(path, result.run_id, done.seq, msgspec.structs.replace(done.record, event=forged))

    report = await replay_run(build(None, [])[0], store, result.run_id)

    assert report.status is ReplayStatus.DIVERGED
    divergence = report.divergence
    assert divergence is not None
    assert divergence.seq == done.seq
    assert divergence.reason == "tool_call_done event differs"
    assert divergence.diff == ['result.data.city: "Paris" != "Oslo"']
    assert f"diverged at seq {done.seq}" in report.describe()


async def test_a_changed_inference_request_is_a_divergence(db: Any) -> None:
    path, store = db
    runtime, _, _ = build(store, lookup_steps())
    result = await runtime.run(
        RunRequest("t4", [Message.user("cities?")]).with_agent_id("ops"), VecEventSink()
    )
    entries = await journal(store, result.run_id)
    second = [e for e in entries if isinstance(e.record, InferenceRecord)][1]
    tamper(
        path,
        result.run_id,
        second.seq,
        msgspec.structs.replace(second.record, request_digest="0" * 64),
    )

    report = await replay_run(build(None, [])[0], store, result.run_id)

    assert report.status is ReplayStatus.DIVERGED
    assert report.divergence is not None
    assert report.divergence.seq == second.seq
    assert "inference request differs" in report.divergence.reason


async def test_a_decision_taken_in_place_replays(db: Any) -> None:
    _, store = db
    runtime, _, deploy = build(store, deploy_steps())
    sink = VecEventSink()
    task = asyncio.ensure_future(
        runtime.run(RunRequest("t5", [Message.user("ship")]).with_agent_id("ops"), sink)
    )
    await wait_until(
        lambda: any(isinstance(e, RunFinish) for e in sink.events), message="the run parked"
    )
    assert runtime.send_decision("t5", "d1", ToolCallResume.resume(True))
    result = await asyncio.wait_for(task, 10)
    assert result.response == "Deployed." and deploy.runs == 1
    assert any(isinstance(e.record, InputRecord) for e in await journal(store, result.run_id))

    fresh, _, fresh_deploy = build(None, [])
    report = await replay_run(fresh, store, result.run_id)
    assert report.identical, report.describe()
    assert report.attempts == 1 and fresh_deploy.runs == 0


async def test_a_run_continued_by_a_later_request_replays_both_attempts(db: Any) -> None:
    _, store = db
    runtime, _, _ = build(store, deploy_steps())
    parked = await runtime.run(
        RunRequest("t6", [Message.user("ship")]).with_agent_id("ops"),
        VecEventSink(),
        wait_for_decisions=False,
    )
    assert parked.termination.type is TerminationKind.SUSPENDED
    with pytest.raises(RunNotFinished, match="waiting"):
        await replay_run(runtime, store, parked.run_id)

    resumed = await runtime.run(
        RunRequest("t6", []).with_agent_id("ops").with_decision("d1", ToolCallResume.resume(True)),
        VecEventSink(),
    )
    assert resumed.run_id == parked.run_id and resumed.response == "Deployed."
    attempts = [
        e for e in await journal(store, parked.run_id) if isinstance(e.record, AttemptRecord)
    ]
    assert len(attempts) == 2

    report = await replay_run(build(None, [])[0], store, parked.run_id)
    assert report.identical, report.describe()
    assert report.attempts == 2


async def test_unknown_runs_and_runs_without_a_journal_are_typed_errors(db: Any) -> None:
    _, store = db
    runtime, _, _ = build(None, [])
    with pytest.raises(UnknownRun, match="nope"):
        await replay_run(runtime, store, "nope")
    # a finished run whose journal is gone (pruned, or written by a store without journals)
    record = RunRecord(
        run_id="old",
        thread_id="t7",
        agent_id="ops",
        status=RunStatus.DONE,
        created_at=1,
        updated_at=1,
    )
    await store.checkpoint("t7", [Message.user("hi")], record)
    with pytest.raises(JournalUnavailable, match="empty"):
        await replay_run(runtime, store, "old")


@pytest.mark.parametrize("mode", list(ToolExecutionMode))
async def test_parallel_calls_and_streamed_tool_output_replay(
    db: Any, mode: ToolExecutionMode
) -> None:
    _, store = db
    steps = [
        tool_step(
            [
                ToolCall("p1", "progress", {"job": "a"}),
                ToolCall("p2", "progress", {"job": "b"}),
                ToolCall("l1", "lookup", {"city": "Oslo"}),
            ]
        ),
        text_step("All done."),
    ]
    runtime, _, _ = build(store, steps, mode)
    result = await runtime.run(
        RunRequest("t10", [Message.user("go")]).with_agent_id("ops"), VecEventSink()
    )
    streamed = [
        e
        for e in events_of(await journal(store, result.run_id))
        if isinstance(e, ToolCallStreamDelta)
    ]
    assert len(streamed) == 4

    report = await replay_run(build(None, [], mode)[0], store, result.run_id)
    assert report.identical, report.describe()


class Outage(InferenceExecutionError):
    retryable = False
    prefix = "upstream unavailable"


class FailsSecond(LlmExecutor):
    """Streams a tool call, then fails the next inference mid-stream."""

    def __init__(self) -> None:
        self.calls = 0

    async def execute(self, request: InferenceRequest) -> StreamResult:
        raise AssertionError("streamed only")

    async def stream(self, request: InferenceRequest) -> AsyncIterator[LlmStreamEvent]:
        self.calls += 1
        if self.calls == 1:
            for event in stream_events_of(tool_step([ToolCall("c1", "lookup", {"city": "Oslo"})])):
                yield event
            return
        yield TextDeltaChunk("Partly ")
        raise Outage("503")


async def test_a_run_whose_inference_failed_replays(db: Any) -> None:
    _, store = db
    failing = FailsSecond()
    runtime, _, _ = build(store, failing)
    result = await runtime.run(
        RunRequest("t11", [Message.user("go")]).with_agent_id("ops"), VecEventSink()
    )
    assert result.termination.type is TerminationKind.ERROR
    assert failing.calls == 2

    report = await replay_run(build(None, [])[0], store, result.run_id)
    assert report.identical, report.describe()
    assert failing.calls == 2


class CancelAtStepEnd(Plugin):
    """Cancels the run from its first StepEnd hook (a cancel landing between two steps)."""

    def __init__(self, cancel: Any = None) -> None:
        self.cancel = cancel

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("stopper")

    def register(self, registrar: PluginRegistrar) -> None:
        async def step_end(ctx: PhaseContext) -> StateCommand:
            if self.cancel is not None:
                self.cancel()
                self.cancel = None
            return StateCommand()

        registrar.register_phase_hook("stopper", Phase.STEP_END, step_end)


async def test_a_run_cancelled_between_two_steps_replays(db: Any) -> None:
    _, store = db
    stopper = CancelAtStepEnd()
    runtime, _, _ = build(store, lookup_steps(), stopper=stopper)
    stopper.cancel = lambda: runtime.cancel("t12")
    result = await runtime.run(
        RunRequest("t12", [Message.user("cities?")]).with_agent_id("ops"), VecEventSink()
    )
    assert result.termination.type is TerminationKind.CANCELLED
    assert result.steps == 2  # the cancel was noticed at the next step's start

    fresh, _, _ = build(None, [], stopper=CancelAtStepEnd())
    report = await replay_run(fresh, store, result.run_id)
    assert report.identical, report.describe()


async def test_the_suite_check_fails_on_a_tampered_journal(db: Any) -> None:
    """``assert_runs_replay`` (the e2e suite's final check) fails naming the tampered run."""
    path, store = db
    runtime, _, _ = build(store, lookup_steps())
    kept = await runtime.run(RunRequest("t8", [Message.user("a")]).with_agent_id("ops"))
    runtime, _, _ = build(store, lookup_steps())
    forged = await runtime.run(RunRequest("t9", [Message.user("b")]).with_agent_id("ops"))
    fresh = build(None, [])[0]
    assert await assert_runs_replay(fresh, store) == 2

    entries = await journal(store, forged.run_id)
    delta = next(e for e in entries if isinstance(event_of(e), ToolCallDone))
    event = event_of(delta)
    assert isinstance(event, ToolCallDone) and isinstance(delta.record, EventRecord)
    wrong = msgspec.structs.replace(event, outcome=ToolCallOutcome.FAILED)
    tamper(path, forged.run_id, delta.seq, msgspec.structs.replace(delta.record, event=wrong))

    with pytest.raises(AssertionError) as failed:
        await assert_runs_replay(fresh, store)
    message = str(failed.value)
    assert message.startswith("1 of 2 finished runs do not replay identical")
    assert f"run {forged.run_id}: diverged at seq {delta.seq}" in message
    assert kept.run_id not in message


def event_of(entry: JournalEntry) -> AgentEvent | None:
    return entry.record.event if isinstance(entry.record, EventRecord) else None


def events_of(entries: list[JournalEntry]) -> list[AgentEvent]:
    return [e for e in map(event_of, entries) if e is not None]
