"""``AgentTool`` against a fake backend: status mapping, tickets, resume and errors."""

from collections.abc import Sequence
from typing import Any

import pytest
from awaken_contract.contract.cancellation import CancellationToken
from awaken_contract.contract.event import ActivitySnapshot
from awaken_contract.contract.event_sink import EventSink, VecEventSink
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.message import Message
from awaken_contract.contract.suspension import ToolCallResume, ToolCallResumeMode
from awaken_contract.contract.tool import ToolCallContext, ToolStatus
from awaken_contract.errors import ExecutionFailed, ProviderError, ResolveAgentNotFound
from awaken_runtime.extensions.delegation import (
    AgentBackend,
    AgentTool,
    DelegateOutput,
    DelegateRunResult,
    DelegateRunStatus,
    DelegateStatus,
)


class FakeBackend(AgentBackend):
    def __init__(self, result: DelegateRunResult | Exception) -> None:
        self.result = result
        self.calls: list[dict[str, Any]] = []

    async def execute(
        self,
        agent_id: str,
        messages: Sequence[Message],
        event_sink: EventSink,
        parent_run_id: str | None,
        parent_tool_call_id: str | None,
        *,
        parent_thread_id: str | None = None,
        cancellation_token: CancellationToken | None = None,
    ) -> DelegateRunResult:
        self.calls.append(
            {
                "agent_id": agent_id,
                "prompt": messages[0].text(),
                "parent_run_id": parent_run_id,
                "parent_tool_call_id": parent_tool_call_id,
                "parent_thread_id": parent_thread_id,
            }
        )
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def result(kind: DelegateStatus, message: str | None = None) -> DelegateRunResult:
    return DelegateRunResult(
        agent_id="remote",
        status=DelegateRunStatus(kind, message),
        response="partial",
        output=DelegateOutput(text="partial", artifacts=[{"kind": "file"}]),
        steps=2,
        run_id="child-1",
    )


def context(sink: VecEventSink, resume: ToolCallResume | None = None) -> ToolCallContext:
    return ToolCallContext(
        "call-1",
        "agent_run_remote",
        RunIdentity(thread_id="th", run_id="run-1", agent_id="boss"),
        activity_sink=sink,
        resume_input=resume,
    )


def progress(sink: VecEventSink) -> list[tuple[str, str]]:
    return [
        (e.content["status"], e.content["message"])
        for e in sink.events
        if isinstance(e, ActivitySnapshot)
    ]


async def test_completed_result_and_lineage() -> None:
    backend = FakeBackend(result(DelegateStatus.COMPLETED))
    tool = AgentTool("remote", "A remote agent", backend)
    sink = VecEventSink()
    out = await tool.execute({"prompt": "  do it  "}, context(sink))
    assert out.status is ToolStatus.SUCCESS
    assert out.data == {
        "agent_id": "remote",
        "status": "completed",
        "response": "partial",
        "output": {"text": "partial", "artifacts": [{"kind": "file"}]},
        "steps": 2,
    }
    assert out.metadata == {"child_run_id": "child-1"}
    assert backend.calls == [
        {
            "agent_id": "remote",
            "prompt": "do it",
            "parent_run_id": "run-1",
            "parent_tool_call_id": "call-1",
            "parent_thread_id": "th",
        }
    ]
    assert progress(sink) == [
        ("running", "delegating to remote"),
        ("done", "delegation to remote completed"),
    ]


@pytest.mark.parametrize(
    ("kind", "message", "action", "text"),
    [
        (DelegateStatus.WAITING_INPUT, "name?", "input_required", "waiting for input: name?"),
        (DelegateStatus.WAITING_AUTH, None, "auth_required", "waiting for auth"),
        (DelegateStatus.SUSPENDED, None, "suspended", "suspended"),
    ],
)
async def test_waiting_delegates_make_the_call_pending(
    kind: DelegateStatus, message: str | None, action: str, text: str
) -> None:
    tool = AgentTool("remote", "d", FakeBackend(result(kind, message)))
    sink = VecEventSink()
    out = await tool.execute({"prompt": "go"}, context(sink))
    assert out.status is ToolStatus.PENDING
    assert out.message == f"delegation to remote {text}"
    ticket = out.suspension
    assert ticket is not None
    assert ticket.suspension.id == "delegate_run:child-1"
    assert ticket.suspension.action == f"agent_delegate:{action}"
    assert ticket.suspension.parameters == {
        "agent_id": "remote",
        "backend_status": str(DelegateRunStatus(kind, message)),
        "child_run_id": "child-1",
        "tool_call_id": "call-1",
    }
    assert ticket.pending.id == "call-1" and ticket.pending.name == "agent_run_remote"
    assert ticket.resume_mode is ToolCallResumeMode.USE_DECISION_AS_TOOL_RESULT
    assert progress(sink)[-1] == ("pending", f"delegation to remote {text}")


@pytest.mark.parametrize(
    ("kind", "message", "expected", "status"),
    [
        (DelegateStatus.FAILED, "boom", "delegation to remote failed: boom", "failed"),
        (DelegateStatus.CANCELLED, None, "delegation to remote cancelled", "cancelled"),
        (DelegateStatus.TIMEOUT, None, "delegation to remote timed out", "failed"),
    ],
)
async def test_unsuccessful_delegates_are_error_results(
    kind: DelegateStatus, message: str | None, expected: str, status: str
) -> None:
    tool = AgentTool("remote", "d", FakeBackend(result(kind, message)))
    sink = VecEventSink()
    out = await tool.execute({"prompt": "go"}, context(sink))
    assert out.status is ToolStatus.ERROR and out.message == expected
    assert progress(sink)[-1][0] == status


async def test_backend_errors() -> None:
    sink = VecEventSink()
    transport = AgentTool("remote", "d", FakeBackend(ProviderError("connection refused")))
    out = await transport.execute({"prompt": "go"}, context(sink))
    assert out.status is ToolStatus.ERROR
    assert out.message is not None and "connection refused" in out.message
    assert progress(sink)[-1][0] == "failed"
    missing = AgentTool("gone", "d", FakeBackend(ResolveAgentNotFound("gone")))
    with pytest.raises(ExecutionFailed, match="cannot resolve delegate 'gone'"):
        await missing.execute({"prompt": "go"}, context(VecEventSink()))


async def test_resumed_call_returns_the_decision() -> None:
    backend = FakeBackend(result(DelegateStatus.COMPLETED))
    tool = AgentTool("remote", "d", backend)
    approved = await tool.execute(
        {"prompt": "go"}, context(VecEventSink(), ToolCallResume.resume({"answer": 42}))
    )
    assert approved.status is ToolStatus.SUCCESS and approved.data == {"answer": 42}
    denied = await tool.execute(
        {"prompt": "go"}, context(VecEventSink(), ToolCallResume.cancel("not now"))
    )
    assert denied.message == "delegation to remote cancelled: not now"
    assert backend.calls == []
