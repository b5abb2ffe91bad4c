"""A RunPlan handed in with the request is run as planned; one rule for decision targets."""

import pytest
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.run_plan import RunPlan, find_waiting_run
from awaken_contract.contract.storage import (
    RunRecord,
    RunWaitingState,
    RunWaitingTicket,
)
from awaken_contract.contract.suspension import WaitingReason
from awaken_contract.errors import InvalidResume
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step
from awaken_stores import InMemoryStore


def _runtime(store: InMemoryStore):
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("assistant").with_model("m"))
        .with_provider("scripted", ScriptedLlm([text_step("one"), text_step("two")]))
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_thread_run_store(store)
        .build()
    )


def _waiting(run_id: str, thread_id: str) -> RunRecord:
    return RunRecord(
        run_id=run_id,
        thread_id=thread_id,
        agent_id="assistant",
        status=RunStatus.WAITING,
        waiting=RunWaitingState(
            reason=WaitingReason.TOOL_PERMISSION,
            ticket_ids=["s1"],
            tickets=[RunWaitingTicket(ticket_id="s1", tool_call_id="c1", tool_name="t")],
        ),
        created_at=1,
        updated_at=1,
    )


async def test_the_runtime_runs_the_planned_run_id() -> None:
    store = InMemoryStore()
    runtime = _runtime(store)
    request = RunRequest("t1", [Message.user("hi")])
    request.plan = RunPlan(agent_id="assistant", run_id="planned-1")
    result = await runtime.run(request)
    assert result.run_id == "planned-1"
    record = await store.load_run("planned-1")
    assert record is not None and record.status is RunStatus.DONE


async def test_a_plan_that_resumes_a_missing_run_is_refused() -> None:
    runtime = _runtime(InMemoryStore())
    request = RunRequest("t1", [Message.user("hi")])
    request.plan = RunPlan(agent_id="assistant", run_id="nowhere", resumes=True)
    with pytest.raises(InvalidResume, match="nowhere"):
        await runtime.run(request)


async def test_a_plan_for_a_finished_run_id_is_refused() -> None:
    store = InMemoryStore()
    runtime = _runtime(store)
    await runtime.run(RunRequest("t1", [Message.user("hi")]).with_run_id("r1"))
    request = RunRequest("t1", [Message.user("again")])
    request.plan = RunPlan(agent_id="assistant", run_id="r1")
    with pytest.raises(InvalidResume, match="already exists"):
        await runtime.run(request)


def test_decision_targets_name_tickets_and_their_calls() -> None:
    run = _waiting("r1", "t1")
    assert run.decision_targets() == {"s1", "c1"}
    assert run.waiting is not None and run.waiting.call_targets() == ["c1"]
    plan = RunPlan.resume(run)
    assert plan.resumes and plan.run_id == "r1" and plan.decision_targets == ["c1", "s1"]


async def test_find_waiting_run_is_the_thread_run_that_waits() -> None:
    store = InMemoryStore()
    assert await find_waiting_run(store, "t1") is None
    await store.create_run(_waiting("r1", "t1"))
    found = await find_waiting_run(store, "t1")
    assert found is not None and found.run_id == "r1"
