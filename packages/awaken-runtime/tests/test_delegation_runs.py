"""Delegation: ``agent_run_<id>`` tools backed by the local resolver — sequential, parallel and
nested sub-runs, lineage, progress, failures and suspension."""

import asyncio
from typing import Any

import pytest
from awaken_contract.contract.event import (
    ActivitySnapshot,
    AgentEvent,
    RunFinish,
    RunStart,
    ToolCallDone,
)
from awaken_contract.contract.event_sink import EventSink, VecEventSink
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.identity import RunOrigin
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.lifecycle import TerminationKind, TerminationReason
from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.contract.progress import ProgressStatus
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.suspension import ToolCallOutcome, ToolCallResume
from awaken_contract.contract.tool import (
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolExecutionMode,
    ToolResult,
)
from awaken_contract.errors import InvalidArguments
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.extensions.delegation import (
    AgentTool,
    DelegateRunStatus,
    DelegateStatus,
    observe_sub_runs,
)


def delegate(call_id: str, agent: str, prompt: str) -> StreamResult:
    return tool_step([ToolCall(call_id, f"agent_run_{agent}", {"prompt": prompt})])


class Progressing(Tool):
    """A child tool that reports progress."""

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("crunch", "crunch", "Crunch numbers")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        await ctx.report_progress(ProgressStatus.RUNNING, "crunching", 0.5)
        return ToolResult.success("crunch", {"n": 42})


class NeedsApproval(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("approve", "approve", "Needs a human")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.suspended("approve", "waiting for a human")


class Exploding(LlmExecutor):
    async def execute(self, request: InferenceRequest) -> StreamResult:
        raise RuntimeError("model exploded")

    def name(self) -> str:
        return "exploding"


def build(
    llms: dict[str, LlmExecutor],
    specs: list[AgentSpec],
    mode: ToolExecutionMode | None = None,
) -> Any:
    builder = AgentRuntimeBuilder().with_tool("crunch", Progressing())
    builder = builder.with_tool("approve", NeedsApproval())
    for agent_id, llm in llms.items():
        builder = builder.with_provider(f"p-{agent_id}", llm).with_model(
            f"m-{agent_id}", ModelSpec(id=f"m-{agent_id}", provider=f"p-{agent_id}", model=agent_id)
        )
    for spec in specs:
        builder = builder.with_agent_spec(spec)
    if mode is not None:
        builder = builder.with_tool_execution_mode(mode)
    return builder.build()


def spec(agent_id: str, prompt: str, delegates: list[str] | None = None) -> AgentSpec:
    return AgentSpec(
        agent_id, model=f"m-{agent_id}", system_prompt=prompt, delegates=delegates or []
    )


async def run(runtime: Any, agent: str, sink: EventSink | None = None) -> Any:
    request = RunRequest("t", [Message.user("start")]).with_agent_id(agent)
    return await runtime.run(request, sink if sink is not None else VecEventSink())


def tool_messages(request: InferenceRequest) -> list[Message]:
    return [m for m in request.messages if m.role is Role.TOOL]


async def test_sequential_delegation_returns_each_child_response() -> None:
    boss = ScriptedLlm(
        [
            delegate("c1", "researcher", "find facts"),
            delegate("c2", "writer", "write it up"),
            text_step("All done."),
        ]
    )
    researcher = ScriptedLlm([text_step("The sky is blue.")])
    writer = ScriptedLlm([text_step("A blue sky report.")])
    runtime = build(
        {"boss": boss, "researcher": researcher, "writer": writer},
        [
            spec("boss", "You coordinate.", ["researcher", "writer"]),
            spec("researcher", "You are a meticulous researcher " + "x" * 200),
            spec("writer", ""),
        ],
    )
    result = await run(runtime, "boss")
    assert result.response == "All done."
    # the model saw two ordinary tools
    tools = {t.id: t for t in boss.requests[0].tools}
    assert set(tools) == {"agent_run_researcher", "agent_run_writer", "approve", "crunch"}
    description = tools["agent_run_researcher"].description
    assert description.startswith("You are a meticulous researcher") and len(description) == 100
    assert tools["agent_run_writer"].description == "Delegate a task to the agent 'writer'."
    assert tools["agent_run_writer"].parameters["required"] == ["prompt"]
    # each child got only its prompt (no parent history)
    assert [(m.role, m.text()) for m in researcher.requests[0].messages] == [
        (Role.SYSTEM, researcher.requests[0].messages[0].text()),
        (Role.USER, "find facts"),
    ]
    assert [m.text() for m in writer.requests[0].messages] == ["write it up"]
    # the child's response is the tool result
    results = tool_messages(boss.requests[2])
    assert "The sky is blue." in results[0].text() and '"status":"completed"' in results[0].text()
    assert "A blue sky report." in results[1].text()


async def test_tool_result_data_and_lineage() -> None:
    boss = ScriptedLlm([delegate("c1", "helper", "help"), text_step("ok")])
    helper = ScriptedLlm([text_step("helped")])
    runtime = build(
        {"boss": boss, "helper": helper},
        [spec("boss", "b", ["helper"]), spec("helper", "h")],
    )
    sink, observer = VecEventSink(), VecEventSink()
    with observe_sub_runs(observer):
        result = await run(runtime, "boss", sink)
    events = sink.take()
    done = next(e for e in events if isinstance(e, ToolCallDone))
    assert done.outcome is ToolCallOutcome.SUCCEEDED
    data = done.result.data
    assert data["agent_id"] == "helper" and data["status"] == "completed"
    assert data["response"] == "helped" and data["steps"] == 1
    assert data["output"] == {"text": "helped"}
    child_events = observer.take()
    child_start = child_events[0]
    assert isinstance(child_start, RunStart)
    assert child_start.parent_run_id == result.run_id
    assert child_start.identity is not None
    assert child_start.identity.origin is RunOrigin.SUBAGENT
    assert child_start.identity.parent_tool_call_id == "c1"
    assert child_start.identity.parent_thread_id == "t"
    assert child_start.thread_id == child_start.run_id != result.run_id
    assert done.result.metadata["child_run_id"] == child_start.run_id
    assert isinstance(child_events[-1], RunFinish)
    # the parent's own stream has only the parent's run events
    assert [e.run_id for e in events if isinstance(e, RunStart)] == [result.run_id]


class Rendezvous(LlmExecutor):
    """Answers only once its partner's inference has started too (proves concurrency)."""

    def __init__(self, me: str, partner: str, started: dict[str, asyncio.Event]) -> None:
        self.me, self.partner, self.started = me, partner, started

    async def execute(self, request: InferenceRequest) -> StreamResult:
        self.started[self.me].set()
        await asyncio.wait_for(self.started[self.partner].wait(), timeout=10)
        return text_step(f"{self.me} done")

    def name(self) -> str:
        return self.me


async def test_parallel_delegation_runs_children_concurrently() -> None:
    started = {"a": asyncio.Event(), "b": asyncio.Event()}
    boss = ScriptedLlm(
        [
            tool_step(
                [
                    ToolCall("ca", "agent_run_a", {"prompt": "part a"}),
                    ToolCall("cb", "agent_run_b", {"prompt": "part b"}),
                ]
            ),
            text_step("merged"),
        ]
    )
    runtime = build(
        {"boss": boss, "a": Rendezvous("a", "b", started), "b": Rendezvous("b", "a", started)},
        [spec("boss", "b", ["a", "b"]), spec("a", "a"), spec("b", "b")],
        mode=ToolExecutionMode.PARALLEL_STREAMING,
    )
    result = await run(runtime, "boss")
    assert result.response == "merged"
    texts = [m.text() for m in tool_messages(boss.requests[1])]
    assert "a done" in texts[0] and "b done" in texts[1]


async def test_nested_delegation_links_every_level() -> None:
    boss = ScriptedLlm([delegate("c1", "lead", "build it"), text_step("shipped")])
    lead = ScriptedLlm(
        [
            tool_step(
                [
                    ToolCall("d1", "agent_run_dev_a", {"prompt": "backend"}),
                    ToolCall("d2", "agent_run_dev_b", {"prompt": "frontend"}),
                ]
            ),
            text_step("team finished"),
        ]
    )
    dev_a = ScriptedLlm([tool_step([ToolCall("w1", "crunch", {})]), text_step("api ready")])
    dev_b = ScriptedLlm([text_step("ui ready")])
    runtime = build(
        {"boss": boss, "lead": lead, "dev_a": dev_a, "dev_b": dev_b},
        [
            spec("boss", "boss", ["lead"]),
            spec("lead", "lead", ["dev_a", "dev_b"]),
            spec("dev_a", "a"),
            spec("dev_b", "b"),
        ],
    )
    observer, sink = VecEventSink(), VecEventSink()
    with observe_sub_runs(observer):
        result = await run(runtime, "boss", sink)
    assert result.response == "shipped"
    # progress of every level reaches the top-level stream
    progress = [e for e in sink.take() if isinstance(e, ActivitySnapshot)]
    assert {e.message_id for e in progress} == {"c1", "d1", "d2", "w1"}
    crunch = next(e.content for e in progress if e.message_id == "w1")
    assert crunch["parent_call_id"] == "d1"
    starts = [e for e in observer.take() if isinstance(e, RunStart)]
    by_agent = {e.identity.agent_id: e for e in starts if e.identity is not None}
    assert set(by_agent) == {"lead", "dev_a", "dev_b"}
    assert by_agent["lead"].parent_run_id == result.run_id
    assert by_agent["dev_a"].parent_run_id == by_agent["lead"].run_id
    assert by_agent["dev_b"].parent_run_id == by_agent["lead"].run_id
    lead_results = [m.text() for m in tool_messages(lead.requests[1])]
    assert "api ready" in lead_results[0] and "ui ready" in lead_results[1]
    assert "team finished" in tool_messages(boss.requests[1])[0].text()


async def test_child_tool_progress_is_forwarded_to_the_parent_stream() -> None:
    boss = ScriptedLlm([delegate("c1", "worker", "crunch"), text_step("ok")])
    worker = ScriptedLlm([tool_step([ToolCall("w1", "crunch", {})]), text_step("crunched")])
    runtime = build(
        {"boss": boss, "worker": worker},
        [spec("boss", "b", ["worker"]), spec("worker", "w")],
    )
    sink = VecEventSink()
    await run(runtime, "boss", sink)
    progress = [e for e in sink.take() if isinstance(e, ActivitySnapshot)]
    by_call: dict[str, list[Any]] = {}
    for event in progress:
        by_call.setdefault(event.message_id, []).append(event.content)
    assert [c["message"] for c in by_call["c1"]] == [
        "delegating to worker",
        "delegation to worker completed",
    ]
    assert by_call["c1"][-1]["status"] == "done"
    child = by_call["w1"][0]
    assert child["message"] == "crunching" and child["parent_call_id"] == "c1"


async def test_child_failure_becomes_an_error_result_and_the_parent_goes_on() -> None:
    boss = ScriptedLlm([delegate("c1", "flaky", "try"), text_step("recovered")])
    runtime = build(
        {"boss": boss, "flaky": Exploding()},
        [spec("boss", "b", ["flaky"]), spec("flaky", "f")],
    )
    sink = VecEventSink()
    result = await run(runtime, "boss", sink)
    assert result.termination == TerminationReason.natural_end()
    done = next(e for e in sink.take() if isinstance(e, ToolCallDone))
    assert done.outcome is ToolCallOutcome.FAILED
    assert done.result.message is not None
    assert done.result.message.startswith("delegation to flaky failed: error:")
    assert "model exploded" in done.result.message


async def test_bad_arguments_are_reported_to_the_model() -> None:
    boss = ScriptedLlm(
        [
            tool_step([ToolCall("c1", "agent_run_helper", {"task": "wrong key"})]),
            tool_step([ToolCall("c2", "agent_run_helper", {"prompt": "   "})]),
            text_step("gave up"),
        ]
    )
    helper = ScriptedLlm([text_step("never")])
    runtime = build(
        {"boss": boss, "helper": helper}, [spec("boss", "b", ["helper"]), spec("helper", "h")]
    )
    await run(runtime, "boss")
    assert helper.requests == []
    first = tool_messages(boss.requests[1])[0].text()
    second = tool_messages(boss.requests[2])[-1].text()
    assert "prompt" in first and "Invalid arguments" in first
    assert "prompt must not be empty" in second


async def test_suspended_child_parks_the_parent_call_until_a_decision() -> None:
    boss = ScriptedLlm([delegate("c1", "clerk", "file it"), text_step("filed")])
    clerk = ScriptedLlm([tool_step([ToolCall("k1", "approve", {})])])
    runtime = build(
        {"boss": boss, "clerk": clerk}, [spec("boss", "b", ["clerk"]), spec("clerk", "c")]
    )
    suspended = asyncio.Event()

    class Watch(VecEventSink):
        async def emit(self, event: AgentEvent) -> None:
            await super().emit(event)
            if isinstance(event, RunFinish) and event.termination.type is TerminationKind.SUSPENDED:
                suspended.set()

    sink = Watch()
    task = asyncio.create_task(run(runtime, "boss", sink))
    await asyncio.wait_for(suspended.wait(), timeout=10)
    done = next(e for e in sink.events if isinstance(e, ToolCallDone))
    assert done.outcome is ToolCallOutcome.SUSPENDED
    ticket = done.result.suspension
    assert ticket is not None
    assert ticket.suspension.action == "agent_delegate:suspended"
    assert ticket.suspension.id.startswith("delegate_run:")
    assert ticket.resume_mode.value == "use_decision_as_tool_result"
    assert runtime.send_decision("t", "c1", ToolCallResume.resume({"approved": True}))
    result = await asyncio.wait_for(task, timeout=10)
    assert result.response == "filed"
    assert '{"approved":true}' in tool_messages(boss.requests[1])[-1].text()


def test_status_display_and_mapping() -> None:
    assert str(DelegateRunStatus(DelegateStatus.COMPLETED)) == "completed"
    assert str(DelegateRunStatus(DelegateStatus.FAILED, "boom")) == "failed: boom"
    assert str(DelegateRunStatus(DelegateStatus.WAITING_INPUT, "name?")) == "waiting_input: name?"
    assert str(DelegateRunStatus(DelegateStatus.SUSPENDED)) == "suspended"
    mapped = DelegateRunStatus.from_termination(TerminationReason.stopped("max_rounds", "x"))
    assert str(mapped) == "failed: stopped: max_rounds (x)"
    assert DelegateRunStatus.from_termination(TerminationReason.cancelled()).kind == "cancelled"
    blocked = DelegateRunStatus.from_termination(TerminationReason.blocked("no"))
    assert str(blocked) == "failed: blocked: no"


def test_validate_args() -> None:
    tool = AgentTool("x", "d", backend=None)  # type: ignore[arg-type]
    tool.validate_args({"prompt": "ok"})
    with pytest.raises(InvalidArguments):
        tool.validate_args({"prompt": 1})
    with pytest.raises(InvalidArguments):
        tool.validate_args("nope")
    assert tool.descriptor().id == tool.descriptor().name == "agent_run_x"


class Recursive(LlmExecutor):
    """Delegates to itself until a tool result comes back, then answers with it."""

    def __init__(self) -> None:
        self.calls = 0

    async def execute(self, request: InferenceRequest) -> StreamResult:
        self.calls += 1
        last = request.messages[-1]
        if last.role is Role.TOOL:
            return text_step(last.text()[:200])
        return delegate(f"r{self.calls}", "echo", "again")

    def name(self) -> str:
        return "recursive"


async def test_self_delegation_stops_at_the_depth_limit() -> None:
    from awaken_runtime.extensions.delegation import MAX_DELEGATION_DEPTH

    llm = Recursive()
    runtime = build({"echo": llm}, [spec("echo", "I echo.", ["echo"])])
    observer = VecEventSink()
    with observe_sub_runs(observer):
        result = await run(runtime, "echo")
    assert result.termination == TerminationReason.natural_end()
    starts = [e for e in observer.take() if isinstance(e, RunStart)]
    assert len(starts) == MAX_DELEGATION_DEPTH
    assert llm.calls == 2 * (MAX_DELEGATION_DEPTH + 1)


class Hanging(LlmExecutor):
    """Never answers; signals when the child inference started."""

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def execute(self, request: InferenceRequest) -> StreamResult:
        self.started.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    def name(self) -> str:
        return "hanging"


async def test_cancelling_the_parent_cancels_the_running_delegate() -> None:
    boss = ScriptedLlm([delegate("c1", "slow", "take forever"), text_step("never")])
    slow = Hanging()
    runtime = build({"boss": boss, "slow": slow}, [spec("boss", "b", ["slow"]), spec("slow", "s")])
    observer = VecEventSink()

    async def go() -> Any:
        with observe_sub_runs(observer):
            return await run(runtime, "boss")

    task = asyncio.create_task(go())
    await asyncio.wait_for(slow.started.wait(), timeout=10)
    assert runtime.cancel("t")
    result = await asyncio.wait_for(task, timeout=10)
    assert result.termination == TerminationReason.cancelled()
    child_finish = [e for e in observer.take() if isinstance(e, RunFinish)]
    assert [f.termination for f in child_finish] == [TerminationReason.cancelled()]
