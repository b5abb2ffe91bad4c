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


class CountingStore(InMemoryStore):
    """Counts the run-start reads a run makes."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []

    async def load_thread(self, thread_id: str):  # type: ignore[no-untyped-def]
        self.reads.append("load_thread")
        return await super().load_thread(thread_id)

    async def latest_run(self, thread_id: str):  # type: ignore[no-untyped-def]
        self.reads.append("latest_run")
        return await super().latest_run(thread_id)

    async def load_messages(self, thread_id: str):  # type: ignore[no-untyped-def]
        self.reads.append("load_messages")
        return await super().load_messages(thread_id)

    async def load_run(self, run_id: str):  # type: ignore[no-untyped-def]
        self.reads.append("load_run")
        return await super().load_run(run_id)

    async def last_seq(self, run_id: str) -> int:
        self.reads.append("last_seq")
        return await super().last_seq(run_id)


async def test_a_plan_for_a_new_thread_and_run_reads_nothing_at_start() -> None:
    store = CountingStore()
    runtime = _runtime(store)
    request = RunRequest("fresh", [Message.user("hi")])
    request.plan = RunPlan(agent_id="assistant", run_id="r1", new_thread=True, new_run=True)
    result = await runtime.run(request)
    assert store.reads == []
    journal = await store.read(result.run_id)
    assert journal[0].seq == 1 and result.termination.type == "natural_end"
    # the next run on the thread is planned by the runtime: it reads the thread and history
    store.reads.clear()
    again = await runtime.run(RunRequest("fresh", [Message.user("again")]))
    assert {"latest_run", "load_messages"} <= set(store.reads)
    assert "last_seq" not in store.reads  # its run id is minted by the runtime's own plan
    messages = await store.load_messages("fresh") or []
    assert [m.text() for m in messages if m.role.value == "user"] == ["hi", "again"]
    assert (await store.read(again.run_id))[0].seq == 1


async def test_a_plan_without_the_flags_reads_its_run_and_journal() -> None:
    store = CountingStore()
    runtime = _runtime(store)
    request = RunRequest("t1", [Message.user("hi")])
    request.plan = RunPlan(agent_id="assistant", run_id="r1")
    await runtime.run(request)
    assert {"load_run", "latest_run", "load_messages", "last_seq"} <= set(store.reads)


async def test_a_new_thread_without_a_plan_is_read_once_per_question() -> None:
    store = CountingStore()
    runtime = _runtime(store)
    await runtime.run(RunRequest("new", [Message.user("hi")]).with_agent_id("assistant"))
    # planning reads the thread and its latest run; the history read reuses them
    assert store.reads == ["load_thread", "latest_run", "load_messages"]
    store.reads.clear()
    await store.create_run(_waiting("w1", "parked"))
    plan, _ = await runtime._plan(RunRequest("parked"), "assistant")
    assert plan.resumes and plan.run_id == "w1"  # a waiting run is still found


def test_decision_targets_name_tickets_and_their_calls() -> None:
    run = _waiting("r1", "t1")
    assert run.decision_targets() == {"s1", "c1"}
    assert run.waiting is not None and run.waiting.call_targets() == ["c1"]
    plan = RunPlan.resume(run)
    assert plan.resumes and plan.run_id == "r1" and plan.decision_targets == ("c1", "s1")


async def test_find_waiting_run_is_the_thread_run_that_waits() -> None:
    store = InMemoryStore()
    assert await find_waiting_run(store, "t1") is None
    await store.create_run(_waiting("r1", "t1"))
    found = await find_waiting_run(store, "t1")
    assert found is not None and found.run_id == "r1"
