"""Golden tests: AgentEvent sequences → AG-UI events (``@ag-ui/core`` 1.0 shapes)."""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.event import (
    ActivitySnapshot,
    AgentEvent,
    Error,
    InferenceComplete,
    MessagesSnapshot,
    ReasoningDelta,
    ReasoningEncryptedValue,
    RunFinish,
    RunStart,
    StateDelta,
    StateSnapshot,
    StepEnd,
    StepStart,
    TextDelta,
    ToolCallDelta,
    ToolCallDone,
    ToolCallReady,
    ToolCallResumed,
    ToolCallStart,
    ToolCallStreamDelta,
)
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallOutcome,
    ToolCallResumeMode,
)
from awaken_contract.contract.tool import ToolResult
from awaken_server.protocols.ag_ui import AgUiEncoder

T, R = "thread-1", "run-5"


def encode_all(events: list[AgentEvent]) -> list[dict[str, Any]]:
    encoder = AgUiEncoder()
    return [out for event in events for out in encoder.encode(event)]


def text_message(message_id: str, *deltas: str) -> list[dict[str, Any]]:
    """The AG-UI events of one complete assistant text message."""
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": d} for d in deltas),
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
    ]


def test_text_only_run() -> None:
    events: list[AgentEvent] = [
        RunStart(thread_id=T, run_id=R),
        StepStart(message_id="msg-a"),
        TextDelta(delta="Hello"),
        TextDelta(delta="!"),
        InferenceComplete(model="m", duration_ms=3),
        StepEnd(),
        RunFinish(
            thread_id=T,
            run_id=R,
            termination=TerminationReason.natural_end(),
            result={"response": "Hello!"},
        ),
    ]
    assert encode_all(events) == [
        {"type": "RUN_STARTED", "threadId": T, "runId": R},
        {"type": "STEP_STARTED", "stepName": "step_1"},
        *text_message("msg-a", "Hello", "!"),
        {"type": "STEP_FINISHED", "stepName": "step_1"},
        {
            "type": "RUN_FINISHED",
            "threadId": T,
            "runId": R,
            "result": {"response": "Hello!"},
            "outcome": {"type": "success"},
        },
    ]


def test_tool_call_run() -> None:
    result = ToolResult.success("get_weather", {"forecast": "sunny"})
    events: list[AgentEvent] = [
        RunStart(thread_id=T, run_id=R, parent_run_id="parent"),
        StepStart(message_id="msg-a"),
        TextDelta(delta="Checking."),
        ToolCallStart(id="c1", name="get_weather"),
        ToolCallDelta(id="c1", args_delta='{"city":"Tokyo"}'),
        ToolCallReady(id="c1", name="get_weather", arguments={"city": "Tokyo"}),
        ToolCallStreamDelta(id="c1", name="get_weather", delta="fetch"),
        ToolCallStreamDelta(id="c1", name="get_weather", delta="ing"),
        ToolCallDone(id="c1", result=result, outcome=result.outcome(), message_id="tool-msg"),
        StepEnd(),
        StepStart(message_id="msg-b"),
        TextDelta(delta="Sunny."),
        StepEnd(),
        RunFinish(thread_id=T, run_id=R, termination=TerminationReason.natural_end()),
    ]
    assert encode_all(events) == [
        {"type": "RUN_STARTED", "threadId": T, "runId": R, "parentRunId": "parent"},
        {"type": "STEP_STARTED", "stepName": "step_1"},
        *text_message("msg-a", "Checking."),
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "c1",
            "toolCallName": "get_weather",
            "parentMessageId": "msg-a",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"city":"Tokyo"}'},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": "c1",
            "activityType": "tool-stream-output",
            "content": {"toolName": "get_weather", "output": "fetch"},
        },
        {
            "type": "ACTIVITY_DELTA",
            "messageId": "c1",
            "activityType": "tool-stream-output",
            "patch": [{"op": "replace", "path": "/output", "value": "fetching"}],
        },
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "tool-msg",
            "toolCallId": "c1",
            "content": '{"forecast":"sunny"}',
            "role": "tool",
        },
        {"type": "STEP_FINISHED", "stepName": "step_1"},
        {"type": "STEP_STARTED", "stepName": "step_2"},
        *text_message("msg-b", "Sunny."),
        {"type": "STEP_FINISHED", "stepName": "step_2"},
        {"type": "RUN_FINISHED", "threadId": T, "runId": R, "outcome": {"type": "success"}},
    ]


def test_tool_error_result_is_plain_text() -> None:
    encoder = AgUiEncoder()
    failed = ToolResult.error("t", "boom")
    assert encoder.encode(ToolCallDone(id="c", result=failed, outcome=failed.outcome())) == [
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "result_c",
            "toolCallId": "c",
            "content": "boom",
            "role": "tool",
        }
    ]


def test_reasoning_run() -> None:
    events: list[AgentEvent] = [
        RunStart(thread_id=T, run_id=R),
        StepStart(message_id="msg-a"),
        ReasoningDelta(delta="Think"),
        ReasoningEncryptedValue(encrypted_value="opaque"),
        TextDelta(delta="42"),
        StepEnd(),
        RunFinish(thread_id=T, run_id=R, termination=TerminationReason.natural_end()),
    ]
    assert encode_all(events) == [
        {"type": "RUN_STARTED", "threadId": T, "runId": R},
        {"type": "STEP_STARTED", "stepName": "step_1"},
        {"type": "REASONING_START", "messageId": "reasoning_msg-a"},
        {"type": "REASONING_MESSAGE_START", "messageId": "reasoning_msg-a", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "reasoning_msg-a", "delta": "Think"},
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "message",
            "entityId": "reasoning_msg-a",
            "encryptedValue": "opaque",
        },
        {"type": "REASONING_MESSAGE_END", "messageId": "reasoning_msg-a"},
        {"type": "REASONING_END", "messageId": "reasoning_msg-a"},
        *text_message("msg-a", "42"),
        {"type": "STEP_FINISHED", "stepName": "step_1"},
        {"type": "RUN_FINISHED", "threadId": T, "runId": R, "outcome": {"type": "success"}},
    ]


def test_suspended_frontend_tool_run_finishes_with_interrupt() -> None:
    ticket = SuspendTicket(
        suspension=Suspension(id="suspend_call_3", action="tool:pick_color", message="Pick"),
        pending=PendingToolCall(id="call_3", name="pick_color", arguments={}),
        resume_mode=ToolCallResumeMode.USE_DECISION_AS_TOOL_RESULT,
    )
    pending = ToolResult.suspended_with("pick_color", "waiting", ticket)
    snapshot = {"revision": 3, "extensions": {}}
    events: list[AgentEvent] = [
        RunStart(thread_id=T, run_id=R),
        StepStart(message_id="msg-a"),
        TextDelta(delta="Let me ask."),
        ToolCallStart(id="call_3", name="pick_color"),
        ToolCallDelta(id="call_3", args_delta="{}"),
        ToolCallReady(id="call_3", name="pick_color", arguments={}),
        ToolCallDone(id="call_3", result=pending, outcome=ToolCallOutcome.SUSPENDED),
        StateSnapshot(snapshot=snapshot),
        StepEnd(),
        StateSnapshot(snapshot=snapshot),
        RunFinish(thread_id=T, run_id=R, termination=TerminationReason.suspended()),
    ]
    assert encode_all(events) == [
        {"type": "RUN_STARTED", "threadId": T, "runId": R},
        {"type": "STEP_STARTED", "stepName": "step_1"},
        *text_message("msg-a", "Let me ask."),
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "call_3",
            "toolCallName": "pick_color",
            "parentMessageId": "msg-a",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call_3", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "call_3"},
        {"type": "STATE_SNAPSHOT", "snapshot": snapshot},
        {"type": "STEP_FINISHED", "stepName": "step_1"},
        {"type": "STATE_SNAPSHOT", "snapshot": snapshot},
        {
            "type": "RUN_FINISHED",
            "threadId": T,
            "runId": R,
            "outcome": {
                "type": "interrupt",
                "interrupts": [
                    {
                        "id": "suspend_call_3",
                        "reason": "tool:pick_color",
                        "toolCallId": "call_3",
                        "message": "Pick",
                    }
                ],
            },
        },
    ]


def test_resumed_run_reports_tool_result_and_clears_interrupt() -> None:
    encoder = AgUiEncoder()
    encoder.encode(RunStart(thread_id=T, run_id=R))
    ticket = SuspendTicket(suspension=Suspension(id="perm_c9", action=""))
    pending = ToolResult.suspended_with("bash", "approve?", ticket)
    encoder.encode(ToolCallDone(id="c9", result=pending, outcome=pending.outcome()))
    assert [i.id for i in encoder.pending_interrupts] == ["perm_c9"]
    assert encoder.pending_interrupts[0].reason == "tool_approval"
    assert encoder.encode(ToolCallResumed(target_id="c9", result={"ok": True})) == [
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "result_c9",
            "toolCallId": "c9",
            "content": '{"ok":true}',
            "role": "tool",
        }
    ]
    assert encoder.pending_interrupts == []


def test_suspension_without_ticket_still_names_an_interrupt() -> None:
    out = encode_all(
        [
            RunStart(thread_id=T, run_id=R),
            RunFinish(thread_id=T, run_id=R, termination=TerminationReason.suspended()),
        ]
    )
    assert out[-1]["outcome"] == {
        "type": "interrupt",
        "interrupts": [{"id": R, "reason": "tool_approval"}],
    }


def test_error_runs() -> None:
    assert encode_all(
        [
            RunStart(thread_id=T, run_id=R),
            StepStart(message_id="msg-a"),
            TextDelta(delta="Partial"),
            Error(message="provider exploded", code="INFERENCE"),
            RunFinish(thread_id=T, run_id=R, termination=TerminationReason.error("x")),
        ]
    ) == [
        {"type": "RUN_STARTED", "threadId": T, "runId": R},
        {"type": "STEP_STARTED", "stepName": "step_1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "msg-a", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-a", "delta": "Partial"},
        {"type": "RUN_ERROR", "message": "provider exploded", "code": "INFERENCE"},
    ]
    # a run_finish{error} without a preceding error event closes open spans first
    assert encode_all(
        [
            RunStart(thread_id=T, run_id=R),
            StepStart(message_id="msg-a"),
            ToolCallStart(id="c1", name="t"),
            RunFinish(thread_id=T, run_id=R, termination=TerminationReason.error("boom")),
        ]
    )[-3:] == [
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {"type": "STEP_FINISHED", "stepName": "step_1"},
        {"type": "RUN_ERROR", "message": "boom"},
    ]


def test_cancelled_run_outcome() -> None:
    out = encode_all(
        [
            RunStart(thread_id=T, run_id=R),
            StepStart(message_id="m"),
            TextDelta(delta="x"),
            RunFinish(thread_id=T, run_id=R, termination=TerminationReason.cancelled()),
        ]
    )
    assert out[-3:] == [
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "STEP_FINISHED", "stepName": "step_1"},
        {"type": "RUN_FINISHED", "threadId": T, "runId": R, "outcome": {"type": "cancelled"}},
    ]


def test_state_activity_and_messages_snapshot() -> None:
    encoder = AgUiEncoder()
    patch = [{"op": "add", "path": "/cart/-", "value": "pear"}]
    assert encoder.encode(StateDelta(delta=patch)) == [{"type": "STATE_DELTA", "delta": patch}]
    assert encoder.encode(
        ActivitySnapshot(message_id="a", activity_type="progress", content=0.5, replace=True)
    ) == [
        {
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": "a",
            "activityType": "progress",
            "content": {"value": 0.5},
            "replace": True,
        }
    ]
    assistant = Message.assistant_with_tool_calls("", [ToolCall("c1", "search", {"q": "x"})])
    assistant.id = "m2"
    tool = Message.tool("c1", '{"hits":1}')
    tool.id = "m3"
    user = Message.user("hi")
    user.id = "m1"
    internal = Message.internal_system("hidden")
    out = encoder.encode(MessagesSnapshot(messages=[user, assistant, tool, internal]))
    assert out == [
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {"id": "m1", "role": "user", "content": "hi"},
                {
                    "id": "m2",
                    "role": "assistant",
                    "toolCalls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "search", "arguments": '{"q":"x"}'},
                        }
                    ],
                },
                {"id": "m3", "role": "tool", "content": '{"hits":1}', "toolCallId": "c1"},
            ],
        }
    ]


def test_joining_a_live_run_starts_with_run_started() -> None:
    encoder = AgUiEncoder(thread_id=T, run_id=R)
    assert encoder.encode(ToolCallResumed(target_id="c1", result={"color": "blue"})) == [
        {"type": "RUN_STARTED", "threadId": T, "runId": R},
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "result_c1",
            "toolCallId": "c1",
            "content": '{"color":"blue"}',
            "role": "tool",
        },
    ]
    assert encoder.encode(StepStart(message_id="m"))[0] == {
        "type": "STEP_STARTED",
        "stepName": "step_1",
    }
    # a run that does announce itself is not announced twice
    fresh = AgUiEncoder(thread_id=T, run_id=R)
    assert fresh.encode(RunStart(thread_id=T, run_id=R)) == [
        {"type": "RUN_STARTED", "threadId": T, "runId": R}
    ]
