"""Golden tests: AgentEvent sequences → AI SDK v6 UI-message-stream parts."""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.event import (
    ActivityDelta,
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
from awaken_contract.contract.inference import TokenUsage
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallOutcome,
    ToolCallResumeMode,
)
from awaken_contract.contract.tool import ToolResult, ToolStatus
from awaken_server.protocols.ai_sdk_v6 import AiSdkEncoder

T, R = "thread-42", "run-9"


def encode_all(events: list[AgentEvent]) -> list[dict[str, Any]]:
    encoder = AiSdkEncoder()
    return [part for event in events for part in encoder.encode(event)]


def done(call_id: str, result: ToolResult) -> ToolCallDone:
    return ToolCallDone(id=call_id, result=result, outcome=result.outcome(), message_id="m-tool")


OPENING = [
    {"type": "start", "messageId": R},
    {"type": "data-run-info", "data": {"runId": R, "threadId": T}},
]
"""The two parts every stream of run ``R`` on thread ``T`` opens with."""

WAITING = {"revision": 5, "extensions": {"__runtime.run_lifecycle": {"status": "waiting"}}}


def test_text_only_run() -> None:
    events: list[AgentEvent] = [
        RunStart(thread_id=T, run_id=R),
        StepStart(message_id="msg-1"),
        TextDelta(delta="Hello"),
        TextDelta(delta=" world"),
        InferenceComplete(model="m", duration_ms=12, usage=TokenUsage(prompt_tokens=3)),
        StepEnd(),
        RunFinish(thread_id=T, run_id=R, termination=TerminationReason.natural_end()),
    ]
    assert encode_all(events) == [
        *OPENING,
        {"type": "start-step"},
        {"type": "text-start", "id": "txt_0"},
        {"type": "text-delta", "id": "txt_0", "delta": "Hello"},
        {"type": "text-delta", "id": "txt_0", "delta": " world"},
        {
            "type": "data-inference-complete",
            "data": {"model": "m", "usage": {"prompt_tokens": 3}, "durationMs": 12},
        },
        {"type": "text-end", "id": "txt_0"},
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "stop"},
    ]


def test_tool_call_run() -> None:
    events: list[AgentEvent] = [
        RunStart(thread_id=T, run_id=R),
        StepStart(message_id="msg-1"),
        TextDelta(delta="Checking."),
        ToolCallStart(id="c1", name="get_weather"),
        ToolCallDelta(id="c1", args_delta='{"city":'),
        ToolCallDelta(id="c1", args_delta='"Tokyo"}'),
        ToolCallReady(id="c1", name="get_weather", arguments={"city": "Tokyo"}),
        ToolCallStreamDelta(id="c1", name="get_weather", delta="fetch"),
        ToolCallStreamDelta(id="c1", name="get_weather", delta="ing"),
        done("c1", ToolResult.success("get_weather", {"forecast": "sunny"})),
        StepEnd(),
        StepStart(message_id="msg-2"),
        TextDelta(delta="Sunny."),
        StepEnd(),
        RunFinish(thread_id=T, run_id=R, termination=TerminationReason.natural_end()),
    ]
    assert encode_all(events) == [
        *OPENING,
        {"type": "start-step"},
        {"type": "text-start", "id": "txt_0"},
        {"type": "text-delta", "id": "txt_0", "delta": "Checking."},
        {"type": "text-end", "id": "txt_0"},
        {"type": "tool-input-start", "toolCallId": "c1", "toolName": "get_weather"},
        {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"city":'},
        {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '"Tokyo"}'},
        {
            "type": "tool-input-available",
            "toolCallId": "c1",
            "toolName": "get_weather",
            "input": {"city": "Tokyo"},
        },
        {
            "type": "tool-output-available",
            "toolCallId": "c1",
            "output": "fetch",
            "preliminary": True,
            "providerExecuted": True,
        },
        {
            "type": "tool-output-available",
            "toolCallId": "c1",
            "output": "fetching",
            "preliminary": True,
            "providerExecuted": True,
        },
        {
            "type": "tool-output-available",
            "toolCallId": "c1",
            "output": {"forecast": "sunny"},
            "providerExecuted": True,
        },
        {"type": "finish-step"},
        {"type": "start-step"},
        {"type": "text-start", "id": "txt_1"},
        {"type": "text-delta", "id": "txt_1", "delta": "Sunny."},
        {"type": "text-end", "id": "txt_1"},
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "stop"},
    ]


def test_tool_errors_and_metadata() -> None:
    with_meta = ToolResult.success("t", [1]).with_metadata("ms", 4)
    events: list[AgentEvent] = [
        RunStart(thread_id=T, run_id=R),
        done("a", with_meta),
        done("b", ToolResult.error("t", "boom")),
        done("c", ToolResult(tool_name="t", status=ToolStatus.ERROR, data=None)),
    ]
    assert encode_all(events)[2:] == [
        {
            "type": "tool-output-available",
            "toolCallId": "a",
            "output": {"data": [1], "metadata": {"ms": 4}},
            "providerExecuted": True,
        },
        {
            "type": "tool-output-error",
            "toolCallId": "b",
            "errorText": "boom",
            "providerExecuted": True,
        },
        {
            "type": "tool-output-error",
            "toolCallId": "c",
            "errorText": "tool execution error",
            "providerExecuted": True,
        },
    ]


def test_reasoning_run() -> None:
    events: list[AgentEvent] = [
        RunStart(thread_id=T, run_id=R),
        StepStart(message_id="msg-1"),
        ReasoningDelta(delta="Let me think"),
        ReasoningDelta(delta="..."),
        ReasoningEncryptedValue(encrypted_value="opaque"),
        TextDelta(delta="42"),
        StepEnd(),
        StepStart(message_id="msg-2"),
        ReasoningDelta(delta="again"),
        RunFinish(thread_id=T, run_id=R, termination=TerminationReason.natural_end()),
    ]
    assert encode_all(events) == [
        *OPENING,
        {"type": "start-step"},
        {"type": "reasoning-start", "id": "reasoning_msg-1"},
        {"type": "reasoning-delta", "id": "reasoning_msg-1", "delta": "Let me think"},
        {"type": "reasoning-delta", "id": "reasoning_msg-1", "delta": "..."},
        {
            "type": "data-reasoning-encrypted",
            "id": "reasoning_msg-1",
            "data": {"encryptedValue": "opaque"},
            "transient": True,
        },
        {"type": "text-start", "id": "txt_0"},
        {"type": "text-delta", "id": "txt_0", "delta": "42"},
        {"type": "text-end", "id": "txt_0"},
        {"type": "reasoning-end", "id": "reasoning_msg-1"},
        {"type": "finish-step"},
        # the first non-empty step message id names reasoning for the whole stream
        {"type": "start-step"},
        {"type": "reasoning-start", "id": "reasoning_msg-1"},
        {"type": "reasoning-delta", "id": "reasoning_msg-1", "delta": "again"},
        {"type": "reasoning-end", "id": "reasoning_msg-1"},
        {"type": "finish", "finishReason": "stop"},
    ]


def _permission_ticket(call_id: str) -> SuspendTicket:
    return SuspendTicket(
        suspension=Suspension(id=f"perm_{call_id}", action="tool:PermissionConfirm"),
        pending=PendingToolCall(id=call_id, name="bash", arguments={"cmd": "ls"}),
        resume_mode=ToolCallResumeMode.REPLAY_TOOL_CALL,
    )


def test_suspended_run_with_permission_request() -> None:
    pending = ToolResult.suspended_with("bash", "needs approval", _permission_ticket("call_7"))
    events: list[AgentEvent] = [
        RunStart(thread_id=T, run_id=R),
        StepStart(),
        ToolCallStart(id="call_7", name="bash"),
        ToolCallDelta(id="call_7", args_delta='{"cmd":"ls"}'),
        ToolCallReady(id="call_7", name="bash", arguments={"cmd": "ls"}),
        ToolCallDone(id="call_7", result=pending, outcome=ToolCallOutcome.SUSPENDED),
        StateSnapshot(snapshot=WAITING),
        StepEnd(),
        StateSnapshot(snapshot=WAITING),
        RunFinish(thread_id=T, run_id=R, termination=TerminationReason.suspended()),
    ]
    assert encode_all(events) == [
        *OPENING,
        {"type": "start-step"},
        {"type": "tool-input-start", "toolCallId": "call_7", "toolName": "bash"},
        {"type": "tool-input-delta", "toolCallId": "call_7", "inputTextDelta": '{"cmd":"ls"}'},
        {
            "type": "tool-input-available",
            "toolCallId": "call_7",
            "toolName": "bash",
            "input": {"cmd": "ls"},
        },
        {"type": "tool-approval-request", "approvalId": "perm_call_7", "toolCallId": "call_7"},
        {"type": "data-state-snapshot", "data": WAITING},
        {"type": "finish-step"},
        {"type": "data-state-snapshot", "data": WAITING},
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "tool-calls"},
    ]


def test_frontend_tool_suspension_emits_nothing_and_resume_outputs() -> None:
    ticket = SuspendTicket(
        suspension=Suspension(id="suspend_c3", action="tool:pick_color"),
        pending=PendingToolCall(id="c3", name="pick_color", arguments={}),
        resume_mode=ToolCallResumeMode.USE_DECISION_AS_TOOL_RESULT,
    )
    encoder = AiSdkEncoder()
    encoder.encode(RunStart(thread_id=T, run_id=R))
    pending = ToolResult.suspended_with("pick_color", "waiting", ticket)
    assert encoder.encode(ToolCallDone(id="c3", result=pending, outcome=pending.outcome())) == []
    assert encoder.encode(ToolCallResumed(target_id="c3", result={"color": "blue"})) == [
        {
            "type": "tool-output-available",
            "toolCallId": "c3",
            "output": {"color": "blue"},
            "providerExecuted": True,
        }
    ]
    assert encoder.encode(ToolCallResumed(target_id="c3", result={"error": "nope"})) == [
        {
            "type": "tool-output-error",
            "toolCallId": "c3",
            "errorText": "nope",
            "providerExecuted": True,
        }
    ]
    assert encoder.encode(ToolCallResumed(target_id="c3", result={"approved": False})) == [
        {"type": "tool-output-denied", "toolCallId": "c3"}
    ]


def test_error_run_is_terminal() -> None:
    events: list[AgentEvent] = [
        RunStart(thread_id=T, run_id=R),
        StepStart(message_id="msg-1"),
        TextDelta(delta="Partial"),
        Error(message="provider exploded", code="INFERENCE"),
        RunFinish(thread_id=T, run_id=R, termination=TerminationReason.error("provider exploded")),
        TextDelta(delta="ignored"),
    ]
    assert encode_all(events) == [
        *OPENING,
        {"type": "start-step"},
        {"type": "text-start", "id": "txt_0"},
        {"type": "text-delta", "id": "txt_0", "delta": "Partial"},
        {"type": "error", "errorText": "provider exploded"},
    ]


def test_finish_reasons_and_resumed_run_resets_guard() -> None:
    encoder = AiSdkEncoder()
    encoder.encode(RunStart(thread_id=T, run_id=R))
    assert encoder.encode(
        RunFinish(thread_id=T, run_id=R, termination=TerminationReason.blocked("policy"))
    ) == [{"type": "finish", "finishReason": "content-filter"}]
    assert encoder.finished
    assert encoder.encode(StepStart()) == []
    assert encoder.encode(RunStart(thread_id=T, run_id=R))[0] == {"type": "start", "messageId": R}
    assert encoder.encode(
        RunFinish(thread_id=T, run_id=R, termination=TerminationReason.error("x"))
    ) == [{"type": "finish", "finishReason": "error"}]


def test_state_messages_and_activity_data_parts() -> None:
    encoder = AiSdkEncoder()
    patch = [{"op": "replace", "path": "/count", "value": 2}]
    assert encoder.encode(StateDelta(delta=patch)) == [{"type": "data-state-delta", "data": patch}]
    assert encoder.encode(MessagesSnapshot(messages=[{"role": "user"}])) == [
        {"type": "data-messages-snapshot", "data": [{"role": "user"}]}
    ]
    assert encoder.encode(
        ActivitySnapshot(
            message_id="act-1",
            activity_type="source-url",
            content={"url": "https://example.com", "title": "Example"},
        )
    ) == [
        {
            "type": "source-url",
            "sourceId": "act-1",
            "url": "https://example.com",
            "title": "Example",
        },
        {
            "type": "data-activity-snapshot",
            "data": {
                "messageId": "act-1",
                "activityType": "source-url",
                "content": {"url": "https://example.com", "title": "Example"},
                "replace": None,
            },
        },
    ]
    document = encoder.encode(
        ActivitySnapshot(
            message_id="d", activity_type="source-document", content={"filename": "a.pdf"}
        )
    )
    assert document[0] == {
        "type": "source-document",
        "sourceId": "d",
        "mediaType": "application/octet-stream",
        "title": "a.pdf",
        "filename": "a.pdf",
    }
    file = encoder.encode(ActivitySnapshot(message_id="f", activity_type="file", content={}))
    assert file[0] == {"type": "file", "url": "", "mediaType": "application/octet-stream"}
    assert encoder.encode(
        ActivityDelta(message_id="act-1", activity_type="progress", patch=patch)
    ) == [
        {
            "type": "data-activity-delta",
            "data": {"messageId": "act-1", "activityType": "progress", "patch": patch},
        }
    ]
