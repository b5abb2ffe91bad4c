"""OtelSink lineage: a parked run ends "suspended" and its resumption links to it; a delegated
run hangs under the delegating tool span; a W3C traceparent becomes the run span's parent."""

from __future__ import annotations

import asyncio
from typing import Any

from awaken_contract.contract.event import RunFinish
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.message import ToolCall
from awaken_contract.contract.suspension import (
    ToolCallResume,
)
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.registry_spec import AgentSpec
from awaken_runtime.testing import ConfirmPlugin
from awaken_stores import InMemoryStore
from opentelemetry.trace import StatusCode

from .support import Otel, ScriptedLlm, calls, request, runtime, text


class Deploy(Tool):
    """Suspends itself until a decision resumes it."""

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("deploy", "deploy", "Deploy a service")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        if ctx.resume_input is None:
            return ToolResult.suspended("deploy", "needs approval")
        return ToolResult.success("deploy", {"deployed": True})


def approval_spec() -> list[AgentSpec]:
    return [AgentSpec("a").with_model("m").with_plugin("approval").with_hook_filter("approval")]


def weather_then_text() -> ScriptedLlm:
    return ScriptedLlm([calls(ToolCall("c1", "get_weather", {"city": "Oslo"})), text("Done.")])


async def test_parked_run_ends_suspended_and_the_resumed_run_links_to_it(otel: Otel) -> None:
    store = InMemoryStore()
    llm = ScriptedLlm([calls(ToolCall("c1", "deploy", {})), text("Deployed.")])
    rt = runtime(llm, otel.sink, store=store, tools={"deploy": Deploy()})
    parked = await rt.run(request(), wait_for_decisions=False)
    assert parked.termination.type is TerminationKind.SUSPENDED
    (first,) = [s for s in otel.spans() if s.name == "invoke_agent a"]
    assert first.attributes["awaken.run.status"] == "suspended"
    assert first.status.status_code is StatusCode.UNSET
    assert [e.attributes["awaken.suspension.action"] for e in first.events] == ["suspended"]
    (pending,) = [s for s in otel.spans() if s.name == "execute_tool deploy"]
    assert pending.attributes["awaken.tool.status"] == "pending"
    assert pending.parent is not None and pending.parent.span_id == first.context.span_id

    resumed = await rt.run(
        request().with_decision("c1", ToolCallResume.resume(True)), wait_for_decisions=False
    )
    assert resumed.termination.type is TerminationKind.NATURAL_END
    assert resumed.run_id == parked.run_id
    runs = [s for s in otel.spans() if s.name == "invoke_agent a"]
    assert len(runs) == 2
    second = runs[1]
    assert second.attributes["awaken.run.status"] == "finished"
    assert second.attributes["awaken.run.resumed"] is True
    assert [link.context.span_id for link in second.links] == [first.context.span_id]
    assert second.context.trace_id != first.context.trace_id  # a new trace, linked
    # the replayed tool call and the final inference belong to the resumed segment
    done = [s for s in otel.spans() if s.name == "execute_tool deploy"][1]
    assert done.attributes["awaken.tool.status"] == "success"
    assert done.parent is not None and done.parent.span_id == second.context.span_id
    assert [e.attributes["awaken.suspension.action"] for e in second.events] == ["resumed"]


async def test_in_place_resume_opens_a_linked_segment(otel: Otel) -> None:
    rt = runtime(
        weather_then_text(),
        otel.sink,
        plugins={"approval": ConfirmPlugin("approval")},
        specs=approval_spec(),
    )
    sink = VecEventSink()
    task = asyncio.ensure_future(rt.run(request(), sink))
    for _ in range(1000):
        if any(isinstance(e, RunFinish) for e in sink.events):
            break
        await asyncio.sleep(0)
    else:
        raise AssertionError("the run never parked")
    assert rt.send_decision("t1", "c1", ToolCallResume.resume(True))
    result = await asyncio.wait_for(task, 10)
    assert result.termination.type is TerminationKind.NATURAL_END
    first, second = [s for s in otel.spans() if s.name == "invoke_agent a"]
    assert first.attributes["awaken.run.status"] == "suspended"
    assert second.attributes["awaken.run.status"] == "finished"
    assert [link.context.span_id for link in second.links] == [first.context.span_id]


async def test_delegated_run_is_a_child_of_the_delegating_tool_span(otel: Otel) -> None:
    boss = ScriptedLlm(
        [calls(ToolCall("d1", "agent_run_helper", {"prompt": "find it"})), text("All done.")]
    )
    helper = ScriptedLlm([text("Found it.")])
    rt = runtime(
        {"a": boss, "helper": helper},
        otel.sink,
        specs=[
            AgentSpec("a", model="m", delegates=["helper"]),
            AgentSpec("helper", model="m-helper"),
        ],
    )
    result = await rt.run(request())
    assert result.response == "All done."
    parent_run = otel.span("invoke_agent a")
    tool = otel.span("execute_tool agent_run_helper")
    child_run = otel.span("invoke_agent helper")
    child_chat = otel.span("chat helper-1")
    assert tool.parent is not None and tool.parent.span_id == parent_run.context.span_id
    assert child_run.parent is not None and child_run.parent.span_id == tool.context.span_id
    assert child_chat.parent is not None and child_chat.parent.span_id == child_run.context.span_id
    assert {s.context.trace_id for s in otel.spans()} == {parent_run.context.trace_id}
    assert child_run.attributes["awaken.parent_run.id"] == result.run_id
    assert child_chat.attributes["gen_ai.provider.name"] == "llm-helper"
    (delegation,) = [e for e in parent_run.events if e.name == "awaken.delegation"]
    assert delegation.attributes["awaken.delegation.target_agent_id"] == "helper"
    assert delegation.attributes["awaken.delegation.success"] is True
    assert (
        delegation.attributes["awaken.delegation.child_run_id"]
        == child_run.attributes["awaken.run.id"]
    )


async def test_traceparent_of_the_request_parents_the_run_span(otel: Otel) -> None:
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    parent_span = "00f067aa0ba902b7"
    req = request()
    req.trace_parent = f"00-{trace_id}-{parent_span}-01"
    await runtime(ScriptedLlm([text("Hi.")]), otel.sink).run(req)
    run = otel.span("invoke_agent a")
    assert f"{run.context.trace_id:032x}" == trace_id
    assert run.parent is not None and f"{run.parent.span_id:016x}" == parent_span
    assert run.parent.is_remote


async def test_library_mode_nests_the_run_under_the_callers_span(otel: Otel) -> None:
    tracer = otel.tracer_provider.get_tracer("app")
    with tracer.start_as_current_span("handle request") as outer:
        await runtime(ScriptedLlm([text("Hi.")]), otel.sink).run(request())
    run = otel.span("invoke_agent a")
    assert run.parent is not None and run.parent.span_id == outer.get_span_context().span_id
