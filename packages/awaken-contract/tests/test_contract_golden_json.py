"""Golden JSON of the wire types, pinned against spec/contract-data.md."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from awaken_contract.codec import decode_json, encode_json
from awaken_contract.contract.content import (
    Base64Source,
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    UrlSource,
)
from awaken_contract.contract.event import (
    ActivityDelta,
    ActivitySnapshot,
    AnyAgentEvent,
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
    decode_event,
)
from awaken_contract.contract.identity import AdapterKind, RunIdentity, RunMode, RunOrigin
from awaken_contract.contract.inference import TokenUsage
from awaken_contract.contract.lifecycle import (
    AnyStopConditionSpec,
    ContentMatch,
    LoopDetection,
    MaxRounds,
    RunStatus,
    StopOnTool,
    TerminationReason,
)
from awaken_contract.contract.message import Message, MessageMetadata, Role, ToolCall, Visibility
from awaken_contract.contract.suspension import (
    PendingToolCall,
    ResumeDecisionAction,
    SuspendTicket,
    Suspension,
    ToolCallOutcome,
    ToolCallResume,
    ToolCallResumeMode,
)
from awaken_contract.contract.tool import ToolDescriptor, ToolResult
from awaken_contract.errors import DecodeError


def as_json(value: Any) -> Any:
    return json.loads(encode_json(value))


IDENTITY = RunIdentity(thread_id="t1", run_id="r1", agent_id="assistant")
IDENTITY_JSON = {"thread_id": "t1", "run_id": "r1", "agent_id": "assistant", "origin": "user"}
WEATHER = ToolResult.success("get_weather", {"temp": 21})
WEATHER_JSON = {
    "tool_name": "get_weather",
    "status": "success",
    "data": {"temp": 21},
    "message": None,
}

EVENT_GOLDENS: list[tuple[Any, dict[str, Any]]] = [
    (
        RunStart(thread_id="t1", run_id="r1", identity=IDENTITY),
        {"event_type": "run_start", "thread_id": "t1", "run_id": "r1", "identity": IDENTITY_JSON},
    ),
    (
        RunStart(thread_id="t1", run_id="r2", parent_run_id="r1"),
        {"event_type": "run_start", "thread_id": "t1", "run_id": "r2", "parent_run_id": "r1"},
    ),
    (
        RunFinish(
            thread_id="t1",
            run_id="r1",
            identity=IDENTITY,
            result={"response": "Hi", "status": "done", "status_reason": "natural"},
            termination=TerminationReason.natural_end(),
        ),
        {
            "event_type": "run_finish",
            "thread_id": "t1",
            "run_id": "r1",
            "termination": {"type": "natural_end"},
            "identity": IDENTITY_JSON,
            "result": {"response": "Hi", "status": "done", "status_reason": "natural"},
        },
    ),
    (
        RunFinish(thread_id="t1", run_id="r1", termination=TerminationReason.suspended()),
        {
            "event_type": "run_finish",
            "thread_id": "t1",
            "run_id": "r1",
            "termination": {"type": "suspended"},
        },
    ),
    (TextDelta(delta="Hel"), {"event_type": "text_delta", "delta": "Hel"}),
    (ReasoningDelta(delta="hm"), {"event_type": "reasoning_delta", "delta": "hm"}),
    (
        ReasoningEncryptedValue(encrypted_value="xyz"),
        {"event_type": "reasoning_encrypted_value", "encrypted_value": "xyz"},
    ),
    (
        ToolCallStart(id="c1", name="get_weather"),
        {"event_type": "tool_call_start", "id": "c1", "name": "get_weather"},
    ),
    (
        ToolCallDelta(id="c1", args_delta='{"ci'),
        {"event_type": "tool_call_delta", "id": "c1", "args_delta": '{"ci'},
    ),
    (
        ToolCallReady(id="c1", name="get_weather", arguments={"city": "Tokyo"}),
        {
            "event_type": "tool_call_ready",
            "id": "c1",
            "name": "get_weather",
            "arguments": {"city": "Tokyo"},
        },
    ),
    (
        ToolCallDone(id="c1", result=WEATHER, outcome=ToolCallOutcome.SUCCEEDED),
        {
            "event_type": "tool_call_done",
            "id": "c1",
            "message_id": "",
            "result": WEATHER_JSON,
            "outcome": "succeeded",
        },
    ),
    (
        ToolCallStreamDelta(id="c1", name="sh", delta="out"),
        {"event_type": "tool_call_stream_delta", "id": "c1", "name": "sh", "delta": "out"},
    ),
    (
        ToolCallResumed(target_id="c1", result={"approved": True}),
        {"event_type": "tool_call_resumed", "target_id": "c1", "result": {"approved": True}},
    ),
    (
        MessagesSnapshot(messages=[{"role": "user"}]),
        {"event_type": "messages_snapshot", "messages": [{"role": "user"}]},
    ),
    (
        ActivitySnapshot(message_id="c1", activity_type="progress", content={"p": 1}, replace=True),
        {
            "event_type": "activity_snapshot",
            "message_id": "c1",
            "activity_type": "progress",
            "content": {"p": 1},
            "replace": True,
        },
    ),
    (
        ActivityDelta(message_id="c1", activity_type="progress", patch=[{"op": "add"}]),
        {
            "event_type": "activity_delta",
            "message_id": "c1",
            "activity_type": "progress",
            "patch": [{"op": "add"}],
        },
    ),
    (StepStart(message_id="0190"), {"event_type": "step_start", "message_id": "0190"}),
    (StepEnd(), {"event_type": "step_end"}),
    (
        InferenceComplete(
            model="gpt-4o-mini",
            usage=TokenUsage(prompt_tokens=10, completion_tokens=20, total_tokens=30),
            duration_ms=12,
        ),
        {
            "event_type": "inference_complete",
            "model": "gpt-4o-mini",
            "usage": {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30},
            "duration_ms": 12,
        },
    ),
    (
        StateSnapshot(snapshot={"revision": 7, "extensions": {}}),
        {"event_type": "state_snapshot", "snapshot": {"revision": 7, "extensions": {}}},
    ),
    (
        StateDelta(delta=[{"op": "replace", "path": "/a", "value": 1}]),
        {"event_type": "state_delta", "delta": [{"op": "replace", "path": "/a", "value": 1}]},
    ),
    (Error(message="boom"), {"event_type": "error", "message": "boom"}),
    (Error(message="boom", code="E1"), {"event_type": "error", "message": "boom", "code": "E1"}),
]


@pytest.mark.parametrize(("event", "golden"), EVENT_GOLDENS, ids=lambda v: type(v).__name__)
def test_event_json_is_exactly_the_spec_shape(event: Any, golden: dict[str, Any]) -> None:
    assert as_json(event) == golden
    assert decode_event(json.dumps(golden)) == event


def test_every_event_variant_has_a_golden() -> None:
    covered = {type(e) for e, _ in EVENT_GOLDENS}
    assert covered == set(AnyAgentEvent.__args__)


TERMINATIONS = [
    (TerminationReason.natural_end(), {"type": "natural_end"}, (RunStatus.DONE, "natural")),
    (
        TerminationReason.behavior_requested(),
        {"type": "behavior_requested"},
        (RunStatus.DONE, "behavior_requested"),
    ),
    (
        TerminationReason.stopped("max_rounds", "16 rounds"),
        {"type": "stopped", "value": {"code": "max_rounds", "detail": "16 rounds"}},
        (RunStatus.DONE, "stopped:max_rounds"),
    ),
    (TerminationReason.cancelled(), {"type": "cancelled"}, (RunStatus.DONE, "cancelled")),
    (
        TerminationReason.blocked("nope"),
        {"type": "blocked", "value": "nope"},
        (RunStatus.DONE, "blocked:nope"),
    ),
    (TerminationReason.suspended(), {"type": "suspended"}, (RunStatus.WAITING, None)),
    (TerminationReason.error("bad"), {"type": "error", "value": "bad"}, (RunStatus.DONE, "error")),
]


@pytest.mark.parametrize(("reason", "golden", "status"), TERMINATIONS)
def test_termination_reason_json_and_done_reason(
    reason: TerminationReason, golden: dict[str, Any], status: tuple[RunStatus, str | None]
) -> None:
    assert as_json(reason) == golden
    assert decode_json(json.dumps(golden), TerminationReason) == reason
    assert reason.to_run_status() == status


@pytest.mark.parametrize(
    ("done_reason", "expected"),
    [
        ("natural", TerminationReason.natural_end()),
        ("behavior_requested", TerminationReason.behavior_requested()),
        ("cancelled", TerminationReason.cancelled()),
        ("blocked:a:b", TerminationReason.blocked("a:b")),
        ("stopped:max_rounds", TerminationReason.stopped("max_rounds")),
        ("error:x", TerminationReason.error("x")),
        ("error", TerminationReason.error("error")),
        ("", TerminationReason.error("")),
    ],
)
def test_done_reason_codec(done_reason: str, expected: TerminationReason) -> None:
    assert TerminationReason.from_done_reason(done_reason) == expected


def test_tool_result_constructors_match_the_spec_table() -> None:
    assert as_json(ToolResult.success("calc", 42)) == {
        "tool_name": "calc",
        "status": "success",
        "data": 42,
        "message": None,
    }
    assert as_json(ToolResult.error("calc", "bad")) == {
        "tool_name": "calc",
        "status": "error",
        "data": None,
        "message": "bad",
    }
    coded = ToolResult.error_with_code("calc", "E42", "bad")
    assert as_json(coded)["data"] == {"error": {"code": "E42", "message": "bad"}}
    assert coded.message == "[E42] bad"
    ticket = SuspendTicket(
        suspension=Suspension(id="s1", action="confirm"),
        pending=PendingToolCall(id="c1", name="rm", arguments={"p": "/"}),
    )
    pending = as_json(ToolResult.suspended_with("rm", "waiting", ticket).with_metadata("k", 1))
    assert pending == {
        "tool_name": "rm",
        "status": "pending",
        "data": None,
        "message": "waiting",
        "suspension": {
            "suspension": {"id": "s1", "action": "confirm"},
            "pending": {"id": "c1", "name": "rm", "arguments": {"p": "/"}},
            "resume_mode": "replay_tool_call",
        },
        "metadata": {"k": 1},
    }
    decoded = decode_json(b'{"tool_name":"x","status":"success","data":1}', ToolResult)
    assert decoded.message is None and decoded.metadata == {}


def test_tool_result_llm_text_and_resume_payload() -> None:
    assert ToolResult.success("t", {"a": 1}).to_llm_text() == '{"a":1}'
    assert ToolResult.success_with_message("t", 1, "done").to_llm_text() == "done"
    assert ToolResult.success("t", 1).resume_payload() == 1
    assert ToolResult.success("t", 1).with_metadata("m", 2).resume_payload() == {
        "data": 1,
        "metadata": {"m": 2},
    }
    assert ToolResult.error("t", "x").resume_payload() == {"error": "x"}
    assert ToolResult.suspended("t", "x").resume_payload() is None


def test_tool_descriptor_shape() -> None:
    desc = ToolDescriptor("calc", "calculator", "adds")
    assert as_json(desc) == {
        "id": "calc",
        "name": "calculator",
        "description": "adds",
        "parameters": {"type": "object", "properties": {}},
        "category": None,
    }
    desc.with_metadata("internal", True).with_category("math")
    assert as_json(desc)["metadata"] == {"internal": True}
    assert as_json(desc)["category"] == "math"
    with pytest.raises(DecodeError, match="description"):
        decode_json(b'{"id":"a","name":"b","parameters":{}}', ToolDescriptor)


def test_message_shapes_and_factories() -> None:
    msg = Message(
        role=Role.ASSISTANT,
        content=[TextBlock(text="hi")],
        id="m1",
        tool_calls=[ToolCall("call_1", "search", {"q": "rust"})],
        visibility=Visibility.INTERNAL,
        metadata=MessageMetadata(run_id="r1", step_index=0),
    )
    assert as_json(msg) == {
        "role": "assistant",
        "content": [{"type": "text", "text": "hi"}],
        "id": "m1",
        "tool_calls": [{"id": "call_1", "name": "search", "arguments": {"q": "rust"}}],
        "visibility": "internal",
        "metadata": {"run_id": "r1", "step_index": 0},
    }
    user = Message.user("hello")
    assert as_json(user) == {
        "role": "user",
        "content": [{"type": "text", "text": "hello"}],
        "id": user.id,
    }
    assert user.id is not None and user.id[14] == "7"  # UUID v7
    assert Message.assistant_with_tool_calls("", []).tool_calls is None
    assert Message.internal_system("x").visibility is Visibility.INTERNAL
    tool_msg = Message.tool("c1", "42")
    assert tool_msg.role is Role.TOOL and tool_msg.tool_call_id == "c1"
    assert decode_json(b'{"role":"user","content":[]}', Message).visibility is Visibility.ALL


def test_mark_produced_by_never_overwrites() -> None:
    msg = Message.assistant("x")
    msg.mark_produced_by("r1", 2)
    msg.mark_produced_by("r2", 5)
    assert msg.metadata == MessageMetadata(run_id="r1", step_index=2)


def test_content_blocks_and_text_extraction() -> None:
    blocks = [
        ContentBlock.text("a"),
        ContentBlock.thinking("ignored"),
        ContentBlock.image_url("https://x/y.png"),
        ContentBlock.text("b"),
    ]
    assert Message.user_with_content(blocks).text() == "ab"
    assert as_json(ImageBlock(source=Base64Source(media_type="image/png", data="AAA"))) == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "AAA"},
    }
    assert as_json(ImageBlock(source=UrlSource(url="https://a"))) == {
        "type": "image",
        "source": {"type": "url", "url": "https://a"},
    }
    nested = ToolResultBlock(tool_use_id="c1", content=[TextBlock(text="r")])
    assert as_json(nested) == {
        "type": "tool_result",
        "tool_use_id": "c1",
        "content": [{"type": "text", "text": "r"}],
    }
    assert as_json(ThinkingBlock(thinking="t")) == {"type": "thinking", "thinking": "t"}


def test_run_identity_shape() -> None:
    ident = RunIdentity(
        thread_id="t1",
        run_id="r1",
        agent_id="a",
        dispatch_id="  ",
        run_mode=RunMode.SCHEDULED,
        adapter=AdapterKind.AI_SDK,
        origin=RunOrigin.SUBAGENT,
    )
    assert as_json(ident) == {
        "thread_id": "t1",
        "run_id": "r1",
        "agent_id": "a",
        "origin": "subagent",
        "run_mode": "scheduled",
        "adapter": "ai_sdk",
    }


def test_suspension_and_resume_shapes() -> None:
    assert as_json(Suspension()) == {"id": "", "action": ""}
    assert decode_json(b"{}", SuspendTicket) == SuspendTicket()
    assert as_json(SuspendTicket())["pending"] == {"id": "", "name": "", "arguments": None}
    resume = ToolCallResume(action=ResumeDecisionAction.RESUME, result={"ok": True})
    assert as_json(resume) == {
        "action": "resume",
        "decision_id": "",
        "result": {"ok": True},
        "updated_at": 0,
    }
    with pytest.raises(DecodeError):
        decode_json(b'{"decision_id":"d"}', ToolCallResume)
    assert ToolCallResumeMode("pass_decision_to_tool") is ToolCallResumeMode.PASS_DECISION_TO_TOOL


def test_token_usage_omits_nulls() -> None:
    assert as_json(TokenUsage()) == {}
    total = TokenUsage(prompt_tokens=1) + TokenUsage(prompt_tokens=2, completion_tokens=3)
    assert total == TokenUsage(prompt_tokens=3, completion_tokens=3)


@pytest.mark.parametrize(
    ("spec", "golden"),
    [
        (MaxRounds(rounds=10), {"type": "max_rounds", "rounds": 10}),
        (StopOnTool(tool_name="finish"), {"type": "stop_on_tool", "tool_name": "finish"}),
        (
            ContentMatch(pattern="(?i)complete"),
            {"type": "content_match", "pattern": "(?i)complete"},
        ),
        (LoopDetection(window=4), {"type": "loop_detection", "window": 4}),
    ],
)
def test_stop_condition_specs(spec: Any, golden: dict[str, Any]) -> None:
    assert as_json(spec) == golden
    assert decode_json(json.dumps(golden), AnyStopConditionSpec) == spec


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        (b"{not json", "AgentEvent"),
        (b'{"event_type":"text_delta"}', "delta"),
        (b'{"event_type":"bogus"}', "event_type"),
        (
            b'{"event_type":"run_finish","thread_id":"t","run_id":"r","termination":{"type":"stopped"}}',
            "requires a value",
        ),
    ],
)
def test_malformed_events_raise_a_typed_error(payload: bytes, fragment: str) -> None:
    with pytest.raises(DecodeError, match=fragment):
        decode_event(payload)


def test_decode_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        decode_json(b"[1]", Message)
    assert isinstance(msgspec.json.decode(b"1"), int)
