"""HITL: suspension, in-process resume, resume from a fresh runtime, all resume modes."""

import asyncio
from typing import Any

import pytest
from awaken_contract.actions import InterceptSuspend, ToolInterceptPayload
from awaken_contract.contract.event import (
    AgentEvent,
    RunFinish,
    RunStart,
    StepEnd,
    StepStart,
    ToolCallDone,
    ToolCallResumed,
)
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind
from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallOutcome,
    ToolCallResume,
    ToolCallResumeMode,
    WaitingReason,
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
from awaken_runtime.testing import wait_until
from awaken_stores import InMemoryStore


class Deploy(Tool):
    """Records the arguments it ran with."""

    def __init__(self) -> None:
        self.calls: list[Any] = []

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("deploy", "deploy", "Deploy a service")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.calls.append(args)
        return ToolResult.success("deploy", {"deployed": args})


class ApprovalGate(ToolGateHook):
    """Suspends every `deploy` call until a decision arrives."""

    def __init__(self, mode: ToolCallResumeMode) -> None:
        self.mode = mode

    async def run(self, ctx: PhaseContext) -> ToolInterceptPayload | None:
        if ctx.tool_name != "deploy" or ctx.resume_input is not None:
            return None
        return InterceptSuspend(
            SuspendTicket(
                suspension=Suspension(
                    id=f"approve-{ctx.tool_call_id}", action="confirm", message="Deploy?"
                ),
                pending=PendingToolCall(
                    id=ctx.tool_call_id or "", name="deploy", arguments=ctx.tool_args
                ),
                resume_mode=self.mode,
            )
        )


class ApprovalPlugin(Plugin):
    def __init__(self, mode: ToolCallResumeMode = ToolCallResumeMode.REPLAY_TOOL_CALL) -> None:
        self.mode = mode

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("approval")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_tool_gate_hook("approval", ApprovalGate(self.mode))


def build(llm: ScriptedLlm, tool: Deploy, store: InMemoryStore | None, mode: ToolCallResumeMode):
    builder = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("ops").with_model("m").with_plugin("approval"))
        .with_plugin("approval", ApprovalPlugin(mode))
        .with_tool("deploy", tool)
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
    )
    if store is not None:
        builder = builder.with_thread_run_store(store)
    return builder.build()


def kinds(events: list[AgentEvent]) -> list[str]:
    return [type(e).__name__ for e in events]


def script() -> ScriptedLlm:
    return ScriptedLlm(
        [
            tool_step([ToolCall("c1", "deploy", {"service": "api"})]),
            text_step("Deployed."),
        ]
    )


async def wait_for_suspension(sink: VecEventSink) -> None:
    await wait_until(
        lambda: any(
            isinstance(e, RunFinish) and e.termination.type is TerminationKind.SUSPENDED
            for e in sink.events
        ),
        interval=0.001,
        message="the run suspended",
    )


async def test_suspension_event_order_and_in_process_resume() -> None:
    tool = Deploy()
    llm = script()
    runtime = build(llm, tool, None, ToolCallResumeMode.REPLAY_TOOL_CALL)
    sink = VecEventSink()
    task = asyncio.ensure_future(
        runtime.run(RunRequest("t1", [Message.user("deploy")]).with_agent_id("ops"), sink)
    )
    await wait_for_suspension(sink)
    assert kinds(sink.events) == [
        "RunStart",
        "StepStart",
        "ToolCallStart",
        "ToolCallDelta",
        "ToolCallReady",
        "InferenceComplete",
        "ToolCallDone",
        "StateSnapshot",
        "StepEnd",
        "StateSnapshot",
        "RunFinish",
    ]
    done = next(e for e in sink.events if isinstance(e, ToolCallDone))
    assert done.outcome is ToolCallOutcome.SUSPENDED
    assert done.result.suspension is not None
    assert sink.events[-1].result is None  # type: ignore[attr-defined]
    assert tool.calls == []

    assert runtime.send_decision("t1", "c1", ToolCallResume.resume(True))
    result = await asyncio.wait_for(task, 10)
    assert result.termination.type is TerminationKind.NATURAL_END
    assert result.response == "Deployed."
    assert tool.calls == [{"service": "api"}]
    after = kinds(sink.events)[11:]
    assert after[:3] == ["RunStart", "ToolCallResumed", "StepStart"]
    assert after[-1] == "RunFinish"
    # the model saw exactly one tool result for c1: the real one
    prompt = llm.requests[-1].messages
    tool_msgs = [m for m in prompt if m.role is Role.TOOL]
    assert len(tool_msgs) == 1 and "deployed" in tool_msgs[0].text()


async def test_suspended_run_is_checkpointed_waiting() -> None:
    store = InMemoryStore()
    runtime = build(script(), Deploy(), store, ToolCallResumeMode.REPLAY_TOOL_CALL)
    sink = VecEventSink()
    result = await runtime.run(
        RunRequest("t2", [Message.user("deploy")]).with_agent_id("ops"),
        sink,
        wait_for_decisions=False,
    )
    assert result.termination.type is TerminationKind.SUSPENDED
    assert isinstance(sink.events[-1], RunFinish)
    record = await store.load_run(result.run_id)
    assert record is not None and record.status is RunStatus.WAITING
    assert record.waiting is not None
    assert record.waiting.reason is WaitingReason.TOOL_PERMISSION
    assert [t.tool_call_id for t in record.waiting.tickets] == ["c1"]
    assert record.waiting.ticket_ids == ["approve-c1"]


@pytest.mark.parametrize(
    ("mode", "decision", "expected_calls", "expected_text"),
    [
        (ToolCallResumeMode.REPLAY_TOOL_CALL, True, [{"service": "api"}], "deployed"),
        (
            ToolCallResumeMode.USE_DECISION_AS_TOOL_RESULT,
            {"answer": "done by hand"},
            [],
            "done by hand",
        ),
        (
            ToolCallResumeMode.PASS_DECISION_TO_TOOL,
            {"service": "web"},
            [{"service": "web"}],
            "web",
        ),
    ],
)
async def test_resume_from_fresh_runtime_in_every_mode(
    mode: ToolCallResumeMode, decision: Any, expected_calls: list[Any], expected_text: str
) -> None:
    store = InMemoryStore()
    first = build(script(), Deploy(), store, mode)
    suspended = await first.run(
        RunRequest("t3", [Message.user("deploy")]).with_agent_id("ops"),
        VecEventSink(),
        wait_for_decisions=False,
    )
    assert suspended.termination.type is TerminationKind.SUSPENDED

    # a new runtime (as in another process) that only shares the store
    tool = Deploy()
    llm = ScriptedLlm([text_step("Finished.")])
    second = build(llm, tool, store, mode)
    sink = VecEventSink()
    request = (
        RunRequest("t3", [])
        .with_agent_id("ops")
        .with_decision("c1", ToolCallResume.resume(decision))
    )
    result = await second.run(request, sink)
    assert result.run_id == suspended.run_id  # the waiting run continues
    assert result.termination.type is TerminationKind.NATURAL_END
    assert result.response == "Finished."
    assert tool.calls == expected_calls
    assert kinds(sink.events)[:3] == ["RunStart", "ToolCallResumed", "StepStart"]
    messages = await store.load_messages("t3")
    assert messages is not None
    tool_msgs = [m for m in messages if m.role is Role.TOOL and m.tool_call_id == "c1"]
    assert len(tool_msgs) == 1
    assert expected_text in tool_msgs[0].text()
    record = await store.load_run(result.run_id)
    assert record is not None and record.status is RunStatus.DONE


async def test_cancel_decision_marks_call_cancelled_and_model_sees_it() -> None:
    store = InMemoryStore()
    first = build(script(), Deploy(), store, ToolCallResumeMode.REPLAY_TOOL_CALL)
    await first.run(
        RunRequest("t4", [Message.user("deploy")]).with_agent_id("ops"),
        VecEventSink(),
        wait_for_decisions=False,
    )
    tool = Deploy()
    llm = ScriptedLlm([text_step("Okay, not deploying.")])
    second = build(llm, tool, store, ToolCallResumeMode.REPLAY_TOOL_CALL)
    sink = VecEventSink()
    result = await second.run(
        RunRequest("t4", [])
        .with_agent_id("ops")
        .with_decision("approve-c1", ToolCallResume.cancel("too risky")),
        sink,
    )
    assert tool.calls == []
    resumed = next(e for e in sink.events if isinstance(e, ToolCallResumed))
    assert resumed.target_id == "c1"
    seen = [m for m in llm.requests[0].messages if m.role is Role.TOOL]
    assert len(seen) == 1 and "cancelled" in seen[0].text() and "too risky" in seen[0].text()
    assert result.termination.type is TerminationKind.NATURAL_END


async def test_new_user_message_supersedes_suspended_call() -> None:
    store = InMemoryStore()
    first = build(script(), Deploy(), store, ToolCallResumeMode.REPLAY_TOOL_CALL)
    await first.run(
        RunRequest("t5", [Message.user("deploy")]).with_agent_id("ops"),
        VecEventSink(),
        wait_for_decisions=False,
    )
    llm = ScriptedLlm([text_step("Hi again.")])
    second = build(llm, Deploy(), store, ToolCallResumeMode.REPLAY_TOOL_CALL)
    result = await second.run(
        RunRequest("t5", [Message.user("never mind")]).with_agent_id("ops"), VecEventSink()
    )
    assert result.response == "Hi again."
    prompt = llm.requests[0].messages
    assert all(not m.tool_calls for m in prompt)
    assert all(m.role is not Role.TOOL for m in prompt)


async def test_run_to_completion_answers_approvals_inline() -> None:
    tool = Deploy()
    runtime = build(script(), tool, None, ToolCallResumeMode.REPLAY_TOOL_CALL)
    sink = VecEventSink()
    result = await asyncio.wait_for(
        runtime.run_to_completion(
            RunRequest("t6", [Message.user("deploy")]).with_agent_id("ops"), sink
        ),
        10,
    )
    assert result.termination.type is TerminationKind.NATURAL_END
    assert tool.calls == [{"service": "api"}]
    finishes = [e for e in sink.events if isinstance(e, RunFinish)]
    assert [f.termination.type for f in finishes] == [
        TerminationKind.SUSPENDED,
        TerminationKind.NATURAL_END,
    ]
    starts = [e for e in sink.events if isinstance(e, StepStart)]
    ends = [e for e in sink.events if isinstance(e, StepEnd)]
    assert len(starts) == len(ends) == 2
    assert sum(isinstance(e, RunStart) for e in sink.events) == 2


async def test_cancelling_a_waiting_run_ends_it_cancelled() -> None:
    store = InMemoryStore()
    runtime = build(script(), Deploy(), store, ToolCallResumeMode.REPLAY_TOOL_CALL)
    sink = VecEventSink()
    task = asyncio.ensure_future(
        runtime.run(RunRequest("t7", [Message.user("deploy")]).with_agent_id("ops"), sink)
    )
    await wait_for_suspension(sink)
    assert runtime.cancel("t7")
    result = await asyncio.wait_for(task, 10)
    assert result.termination.type is TerminationKind.CANCELLED
    assert isinstance(sink.events[-1], RunFinish)
    record = await store.load_run(result.run_id)
    assert record is not None and record.status is RunStatus.DONE


async def test_frontend_tool_suspends_and_uses_client_result() -> None:
    store = InMemoryStore()
    llm = ScriptedLlm([tool_step([ToolCall("f1", "pick_color", {"options": ["red"]})])])
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("ui").with_model("m"))
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
        .with_thread_run_store(store)
        .build()
    )
    picker = ToolDescriptor("pick_color", "pick_color", "Ask the user for a color")
    first = await runtime.run(
        RunRequest("t8", [Message.user("color?")])
        .with_agent_id("ui")
        .with_frontend_tools([picker]),
        VecEventSink(),
        wait_for_decisions=False,
    )
    assert first.termination.type is TerminationKind.SUSPENDED
    assert llm.requests[0].tools[0].id == "pick_color"
    llm.responses.append(text_step("You chose red."))
    sink = VecEventSink()
    result = await runtime.run(
        RunRequest("t8", [])
        .with_agent_id("ui")
        .with_frontend_tools([picker])
        .with_decision("f1", ToolCallResume.resume({"color": "red"})),
        sink,
    )
    assert result.response == "You chose red."
    resumed = next(e for e in sink.events if isinstance(e, ToolCallResumed))
    assert resumed.result == {"color": "red"}


async def test_batch_approval_replays_once_every_call_has_a_decision() -> None:
    tool = Deploy()
    llm = ScriptedLlm(
        [
            tool_step(
                [
                    ToolCall("c1", "deploy", {"service": "api"}),
                    ToolCall("c2", "deploy", {"service": "web"}),
                ]
            ),
            text_step("Both deployed."),
        ]
    )
    from awaken_contract.contract.tool import ToolExecutionMode

    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("ops").with_model("m").with_plugin("approval"))
        .with_plugin("approval", ApprovalPlugin())
        .with_tool("deploy", tool)
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
        .with_tool_execution_mode(ToolExecutionMode.PARALLEL_BATCH_APPROVAL)
        .build()
    )
    sink = VecEventSink()
    task = asyncio.ensure_future(
        runtime.run(RunRequest("b1", [Message.user("deploy both")]).with_agent_id("ops"), sink)
    )
    await wait_for_suspension(sink)
    suspended = [e.id for e in sink.events if isinstance(e, ToolCallDone)]
    assert suspended == ["c1", "c2"]
    assert runtime.send_decision("b1", "c1", ToolCallResume.resume(True))
    for _ in range(50):
        await asyncio.sleep(0)
    assert tool.calls == []  # waits for the whole batch
    assert runtime.send_decision("b1", "approve-c2", ToolCallResume.resume(True))
    result = await asyncio.wait_for(task, 10)
    assert result.response == "Both deployed."
    assert tool.calls == [{"service": "api"}, {"service": "web"}]
    resumed = [e.target_id for e in sink.events if isinstance(e, ToolCallResumed)]
    assert resumed == ["c1", "c2"]


async def test_messages_sent_to_a_waiting_run_join_the_conversation() -> None:
    store = InMemoryStore()
    llm = script()
    runtime = build(llm, Deploy(), store, ToolCallResumeMode.REPLAY_TOOL_CALL)
    sink = VecEventSink()
    task = asyncio.ensure_future(
        runtime.run(RunRequest("m1", [Message.user("deploy")]).with_agent_id("ops"), sink)
    )
    await wait_for_suspension(sink)
    assert runtime.send_messages("m1", [Message.user("use the blue cluster")])
    assert runtime.send_decision("m1", "c1", ToolCallResume.resume(True))
    result = await asyncio.wait_for(task, 10)
    assert result.termination.type is TerminationKind.NATURAL_END
    texts = [m.text() for m in llm.requests[-1].messages if m.role is Role.USER]
    assert texts == ["deploy", "use the blue cluster"]


async def test_run_to_completion_finishes_a_parked_run() -> None:
    store = InMemoryStore()
    first = build(script(), Deploy(), store, ToolCallResumeMode.REPLAY_TOOL_CALL)
    parked = await first.run(
        RunRequest("p1", [Message.user("deploy")]).with_agent_id("ops"),
        VecEventSink(),
        wait_for_decisions=False,
    )
    tool = Deploy()
    second = build(
        ScriptedLlm([text_step("Deployed later.")]),
        tool,
        store,
        ToolCallResumeMode.REPLAY_TOOL_CALL,
    )
    seen: list[str] = []

    def decide(done: ToolCallDone) -> ToolCallResume:
        seen.append(done.id)
        return ToolCallResume.resume(True)

    result = await asyncio.wait_for(
        second.run_to_completion(RunRequest("p1", []).with_agent_id("ops"), decide=decide), 10
    )
    assert result.run_id == parked.run_id
    assert seen == ["c1"]
    assert tool.calls == [{"service": "api"}]
    assert result.response == "Deployed later."


async def test_stream_ends_at_a_suspension_and_the_run_stays_resumable() -> None:
    store = InMemoryStore()
    runtime = build(script(), Deploy(), store, ToolCallResumeMode.REPLAY_TOOL_CALL)
    events = [
        e
        async for e in runtime.stream(
            RunRequest("s1", [Message.user("deploy")]).with_agent_id("ops")
        )
    ]
    assert isinstance(events[-1], RunFinish)
    assert events[-1].termination.type is TerminationKind.SUSPENDED
    assert runtime.active_run_id("s1") is None
    threads = await store.load_thread("s1")
    assert threads is not None and threads.open_run_id is not None
