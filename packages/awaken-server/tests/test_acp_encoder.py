"""Golden tests: AgentEvent sequences → ACP outputs (session updates, permission requests,
prompt results and failures)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from awaken_contract.contract.event import (
    AgentEvent,
    Error,
    InferenceComplete,
    ReasoningDelta,
    RunFinish,
    RunStart,
    StepEnd,
    StepStart,
    TextDelta,
    ToolCallDelta,
    ToolCallDone,
    ToolCallReady,
    ToolCallResumed,
    ToolCallStart,
)
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallOutcome,
)
from awaken_contract.contract.tool import ToolResult
from awaken_server.protocols.acp import (
    AcpEncoder,
    PermissionRequest,
    PromptFailed,
    PromptFinished,
    SessionUpdate,
    tool_kind,
)


def _encode(events: list[AgentEvent]) -> list[dict[str, Any]]:
    encoder = AcpEncoder()
    out = []
    for event in events:
        for item in encoder.encode(event):
            out.append({"kind": type(item).__name__, **asdict(item)})
    return out


def _text_chunk(update: str, text: str) -> dict[str, Any]:
    """An encoded ``SessionUpdate`` carrying one text chunk (message or thought)."""
    return {
        "kind": "SessionUpdate",
        "update": {"sessionUpdate": update, "content": {"type": "text", "text": text}},
    }


def _frame(events: list[AgentEvent]) -> list[AgentEvent]:
    return [RunStart(thread_id="t", run_id="r"), StepStart(), *events]


def test_text_only_run() -> None:
    events = _frame(
        [
            TextDelta(delta="Hel"),
            TextDelta(delta="lo"),
            InferenceComplete(model="m", duration_ms=3),
            StepEnd(),
            RunFinish(thread_id="t", run_id="r", termination=TerminationReason.natural_end()),
        ]
    )
    assert _encode(events) == [
        _text_chunk("agent_message_chunk", "Hel"),
        _text_chunk("agent_message_chunk", "lo"),
        {"kind": "PromptFinished", "stop_reason": "end_turn"},
    ]


def test_reasoning_run() -> None:
    events = _frame(
        [
            ReasoningDelta(delta="thinking"),
            TextDelta(delta="ok"),
            RunFinish(thread_id="t", run_id="r", termination=TerminationReason.cancelled()),
        ]
    )
    assert _encode(events) == [
        _text_chunk("agent_thought_chunk", "thinking"),
        _text_chunk("agent_message_chunk", "ok"),
        {"kind": "PromptFinished", "stop_reason": "cancelled"},
    ]


def test_tool_call_run() -> None:
    result = ToolResult.success("read_file", {"content": "x"})
    failed = ToolResult.error("grep_files", "boom")
    events = _frame(
        [
            ToolCallStart(id="c1", name="read_file"),
            ToolCallDelta(id="c1", args_delta='{"path":'),
            ToolCallReady(id="c1", name="read_file", arguments={"path": "a.txt"}),
            ToolCallDone(id="c1", result=result, outcome=ToolCallOutcome.SUCCEEDED),
            ToolCallReady(id="c2", name="grep_files", arguments={}),
            ToolCallDone(id="c2", result=failed, outcome=ToolCallOutcome.FAILED),
            RunFinish(
                thread_id="t",
                run_id="r",
                termination=TerminationReason.stopped("max_rounds_reached"),
            ),
        ]
    )
    assert _encode(events) == [
        {
            "kind": "SessionUpdate",
            "update": {
                "sessionUpdate": "tool_call",
                "toolCallId": "c1",
                "title": "read_file",
                "kind": "read",
                "status": "pending",
                "rawInput": {"path": "a.txt"},
            },
        },
        {
            "kind": "SessionUpdate",
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c1",
                "status": "completed",
                "rawOutput": {
                    "tool_name": "read_file",
                    "status": "success",
                    "data": {"content": "x"},
                    "message": None,
                },
            },
        },
        {
            "kind": "SessionUpdate",
            "update": {
                "sessionUpdate": "tool_call",
                "toolCallId": "c2",
                "title": "grep_files",
                "kind": "search",
                "status": "pending",
                "rawInput": {},
            },
        },
        {
            "kind": "SessionUpdate",
            "update": {"sessionUpdate": "tool_call_update", "toolCallId": "c2", "status": "failed"},
        },
        {"kind": "PromptFinished", "stop_reason": "max_tokens"},
    ]


def _suspended(action: str) -> ToolResult:
    ticket = SuspendTicket(
        suspension=Suspension(id="perm_c1", action=action),
        pending=PendingToolCall(id="perm_c1", name="permission_confirm", arguments={"cmd": "ls"}),
    )
    return ToolResult.suspended_with("bash", "needs approval", ticket)


def test_suspended_run_asks_for_permission_and_resumes() -> None:
    events = _frame(
        [
            ToolCallReady(id="c1", name="bash", arguments={"cmd": "ls"}),
            ToolCallDone(
                id="c1",
                result=_suspended("tool:PermissionConfirm"),
                outcome=ToolCallOutcome.SUSPENDED,
            ),
            RunFinish(thread_id="t", run_id="r", termination=TerminationReason.suspended()),
            ToolCallResumed(target_id="c1", result={"approved": True, "policy": "allow_once"}),
            ToolCallResumed(target_id="c2", result={"approved": False}),
            RunFinish(thread_id="t", run_id="r", termination=TerminationReason.blocked("no")),
        ]
    )
    encoded = _encode(events)
    assert encoded[1] == {
        "kind": "PermissionRequest",
        "tool_call": {
            "toolCallId": "c1",
            "kind": "execute",
            "status": "pending",
            "title": "bash",
            "rawInput": {"cmd": "ls"},
        },
    }
    assert encoded[2:] == [
        {
            "kind": "SessionUpdate",
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c1",
                "status": "completed",
                "rawOutput": {"approved": True, "policy": "allow_once"},
            },
        },
        {
            "kind": "SessionUpdate",
            "update": {"sessionUpdate": "tool_call_update", "toolCallId": "c2", "status": "failed"},
        },
        {"kind": "PromptFinished", "stop_reason": "refusal"},
    ]


def test_unsupported_suspension_fails_the_prompt() -> None:
    [failure] = AcpEncoder().encode(
        ToolCallDone(id="c1", result=_suspended("confirm"), outcome=ToolCallOutcome.SUSPENDED)
    )
    assert failure == PromptFailed(
        -32603,
        "ACP stdio only supports suspended tool action 'tool:PermissionConfirm'; got 'confirm'",
    )


def test_error_run() -> None:
    events = _frame(
        [
            TextDelta(delta="partial"),
            Error(message="provider down", code="PROVIDER"),
            RunFinish(
                thread_id="t", run_id="r", termination=TerminationReason.error("provider down")
            ),
        ]
    )
    encoded = _encode(events)
    assert encoded[1] == {
        "kind": "PromptFailed",
        "code": -32603,
        "message": "provider down",
        "data": {"code": "PROVIDER"},
    }
    assert encoded[2] == {
        "kind": "PromptFailed",
        "code": -32603,
        "message": "provider down",
        "data": None,
    }


def test_output_types_and_tool_kinds() -> None:
    assert isinstance(AcpEncoder().encode(TextDelta(delta="x"))[0], SessionUpdate)
    assert PermissionRequest({"toolCallId": "c9"}).tool_call_id == "c9"
    assert PromptFinished("end_turn").stop_reason == "end_turn"
    cases = {
        "read_file": "read",
        "Edit": "edit",
        "remove_dir": "delete",
        "rename": "move",
        "web_search": "search",
        "bash": "execute",
        "plan_steps": "think",
        "http_get": "fetch",
        "get_weather": "other",
    }
    assert {name: tool_kind(name) for name in cases} == cases


def test_permission_outcomes_become_decisions() -> None:
    import pytest
    from acp import RequestError
    from acp.schema import AllowedOutcome, DeniedOutcome
    from awaken_contract.contract.suspension import ResumeDecisionAction
    from awaken_server.protocols.acp import decision_for

    allow = decision_for(AllowedOutcome(option_id="opt_allow_always", outcome="selected"))
    assert allow.action is ResumeDecisionAction.RESUME
    assert allow.result == {
        "kind": "permission_decision",
        "approved": True,
        "policy": "allow_always",
    }
    reject = decision_for(AllowedOutcome(option_id="opt_reject_once", outcome="selected"))
    assert reject.action is ResumeDecisionAction.CANCEL
    assert reject.result == {
        "kind": "permission_decision",
        "approved": False,
        "policy": "reject_once",
    }
    cancelled = decision_for(DeniedOutcome(outcome="cancelled"))
    assert cancelled.action is ResumeDecisionAction.CANCEL
    assert cancelled.result == {"kind": "permission_decision", "approved": False, "cancelled": True}
    with pytest.raises(RequestError) as unknown:
        decision_for(AllowedOutcome(option_id="opt_maybe", outcome="selected"))
    assert unknown.value.code == -32602
