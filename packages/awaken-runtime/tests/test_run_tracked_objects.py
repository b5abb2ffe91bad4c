"""How many objects the cyclic GC tracks per run in flight (ADR 0033).

Under many concurrent runs every young-generation collection scans the tracked objects of the
runs in flight, so their number per run is the collector's cost per run. These tests pin the
per-run bookkeeping objects as untracked while they hold no container, and bound the tracked
objects a parked run keeps (a count, not a timing: deterministic)."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.run_plan import RunPlan
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.loop_runner.control import ControlChannel
from awaken_runtime.loop_runner.steps import StepClock
from awaken_runtime.phase.engine import _RunMutex
from awaken_runtime.structured import OutputState

RUNS = 50
#: Tracked objects per run parked in its first model call, this test's own included (its
#: task, coroutines, request and the event's waiter); 61 before ADR 0033, 44 after it, 33
#: after ADR 0034.
MAX_TRACKED_PER_RUN = 37


def test_per_run_bookkeeping_is_untracked_until_it_holds_a_container() -> None:
    made: object
    for made in (
        StepClock(0),
        OutputState(),
        ControlChannel(),
        _RunMutex(),
        RunPlan(agent_id="a", run_id="r"),
    ):
        assert not gc.is_tracked(made), type(made).__name__
    channel: ControlChannel[int] = ControlChannel()

    async def put() -> None:
        channel.put_nowait(1)  # makes the queue: a container from now on

    asyncio.run(put())
    assert gc.is_tracked(channel)  # msgspec tracks a struct again when a field gets a container
    state = OutputState()
    state.failures = 1
    assert not gc.is_tracked(state)


class _Gated(LlmExecutor):
    """First call of each run waits for the gate, then a tool call; afterwards the text."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.all_in = asyncio.Event()
        self.waiting = 0

    async def execute(self, request: InferenceRequest) -> StreamResult:
        if request.messages[-1].tool_call_id is not None:
            return StreamResult(content=[])
        self.waiting += 1
        if self.waiting == RUNS:
            self.all_in.set()
        await self.gate.wait()
        return StreamResult(tool_calls=[ToolCall(f"c{self.waiting}", "noop", {})])

    def name(self) -> str:
        return "gated"


class _Noop(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("noop", "noop", "does nothing")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("noop", "ok")


async def test_a_parked_run_keeps_few_tracked_objects() -> None:
    model = _Gated()
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m").with_system_prompt("Be brief."))
        .with_tool("noop", _Noop())
        .with_provider("gated", model)
        .with_model("m", ModelSpec(id="m", provider="gated", model="gated-1"))
        .build()
    )

    async def run(i: int) -> None:
        await runtime.run(RunRequest(f"t{i}", [Message.user("go")]).with_agent_id("a"))

    model.gate.set()
    await run(-1)  # first-use caches are not the runs' objects
    model.gate.clear()
    model.waiting = 0
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        tasks = [asyncio.ensure_future(run(i)) for i in range(RUNS)]
        await asyncio.wait_for(model.all_in.wait(), 30)  # every run parked in the model
        per_run = (len(gc.get_objects()) - before) / RUNS
        model.gate.set()
        await asyncio.gather(*tasks)
    finally:
        gc.enable()
    assert per_run <= MAX_TRACKED_PER_RUN, per_run
