"""``useChat`` v6 request bodies → messages, decisions and frontend context; history encoding."""

from __future__ import annotations

import pytest
from awaken_contract.contract.content import (
    AudioBlock,
    Base64Source,
    DocumentBlock,
    ImageBlock,
    TextBlock,
    UrlSource,
)
from awaken_contract.contract.message import Message, Role, ToolCall, Visibility
from awaken_contract.contract.suspension import ResumeDecisionAction
from awaken_server.protocols.ai_sdk_v6 import (
    ChatRequest,
    convert_ui_messages,
    decode_chat_input,
    encode_history,
    extract_decisions,
)
from awaken_server.protocols.errors import ProtocolRequestError
from awaken_server.protocols.frontend_context import frontend_context_message

SPEC_BODY = {
    "id": "chat-1",
    "trigger": "submit-message",
    "threadId": " thread-42 ",
    "agentId": "assistant",
    "state": {"cart": ["apple"]},
    "messages": [
        {
            "id": "u-1",
            "role": "user",
            "parts": [
                {"type": "text", "text": "Plan a trip"},
                {"type": "file", "url": "data:image/png;base64,iVBOR", "mediaType": "image/png"},
            ],
        },
        {
            "id": "a-1",
            "role": "assistant",
            "parts": [
                {
                    "type": "tool-bash",
                    "toolCallId": "call_7",
                    "state": "approval-responded",
                    "approvalId": "perm_call_7",
                    "approval": {"id": "perm_call_7", "approved": True},
                }
            ],
        },
    ],
}


def test_spec_body_decodes() -> None:
    request = ChatRequest.from_json(SPEC_BODY)
    assert request.thread_id == "thread-42"
    assert request.agent_id == "assistant"
    chat = decode_chat_input(request, waiting_targets={"perm_call_7", "call_7"})
    [user] = chat.messages
    assert user.id == "u-1" and user.role is Role.USER
    assert user.content == [
        TextBlock(text="Plan a trip"),
        ImageBlock(source=Base64Source(media_type="image/png", data="iVBOR")),
    ]
    [(target, decision)] = chat.decisions
    assert target == "perm_call_7"
    assert decision.action is ResumeDecisionAction.RESUME
    assert decision.result == {"id": "perm_call_7", "approved": True}
    assert decision.decision_id and decision.updated_at > 0
    assert chat.has_interaction_responses


def test_snake_case_aliases_and_blank_thread() -> None:
    request = ChatRequest.from_json({"thread_id": "  ", "agent_id": "a", "messages": []})
    assert request.thread_id is None and request.agent_id == "a"


def test_plain_content_string_is_accepted() -> None:
    request = ChatRequest.from_json({"messages": [{"role": "user", "content": "Hello"}]})
    [message] = decode_chat_input(request).messages
    assert message.text() == "Hello" and message.id


def test_known_ids_and_assistant_history_are_dropped() -> None:
    messages = [
        {"id": "u-1", "role": "user", "parts": [{"type": "text", "text": "old"}]},
        {"id": "a-1", "role": "assistant", "parts": [{"type": "text", "text": "hi"}]},
        {"id": "s-1", "role": "system", "parts": [{"type": "text", "text": "be brief"}]},
        {"id": "u-2", "role": "user", "parts": [{"type": "reasoning", "text": "x"}]},
        {"role": "user", "parts": [{"type": "text", "text": "new"}]},
    ]
    converted = convert_ui_messages(messages, known_ids={"u-1"})
    assert [(m.role, m.text()) for m in converted] == [
        (Role.SYSTEM, "be brief"),
        (Role.USER, "new"),
    ]
    kept = convert_ui_messages(messages, keep_assistant=True)
    assert [m.role for m in kept] == [Role.USER, Role.ASSISTANT, Role.SYSTEM, Role.USER]


def test_file_parts_pick_block_kinds() -> None:
    parts = [
        {"type": "file", "url": "data:audio/wav;base64,AAA", "mediaType": "audio/wav"},
        {"type": "file", "url": "https://x/doc.pdf", "mediaType": "application/pdf"},
        {"type": "file", "url": "https://x/a.png", "mediaType": "image/png"},
    ]
    [message] = convert_ui_messages([{"role": "user", "parts": parts}])
    assert message.content == [
        AudioBlock(source=Base64Source(media_type="audio/wav", data="AAA")),
        DocumentBlock(source=UrlSource(url="https://x/doc.pdf")),
        ImageBlock(source=UrlSource(url="https://x/a.png")),
    ]


def test_decision_states() -> None:
    parts = [
        {"type": "tool-a", "toolCallId": "c1", "state": "output-available", "output": {"v": 1}},
        {"type": "tool-b", "toolCallId": "c2", "state": "output-error", "errorText": "bad"},
        {"type": "tool-c", "toolCallId": "c3", "state": "output-denied"},
        {
            "type": "dynamic-tool",
            "toolCallId": "c4",
            "state": "output-available",
            "output": 1,
        },
        {
            "type": "tool-d",
            "toolCallId": "c5",
            "state": "approval-responded",
            "approval": {"id": "perm_c5", "approved": False, "reason": "no"},
        },
        {
            "type": "tool-e",
            "toolCallId": "c6",
            "state": "output-available",
            "output": 2,
            "providerExecuted": True,
        },
        {"type": "tool-f", "toolCallId": "c7", "state": "input-available"},
        {"type": "tool-a", "toolCallId": "c1", "state": "output-available", "output": {"v": 2}},
    ]
    decisions = dict(extract_decisions([{"role": "assistant", "parts": parts}]))
    assert list(decisions) == ["c2", "c3", "perm_c5", "c1"]
    assert decisions["c1"].result == {"v": 2}
    assert decisions["c2"].result == {"error": "bad"}
    assert decisions["c3"].action is ResumeDecisionAction.CANCEL
    assert decisions["c3"].result == {"approved": False}
    assert decisions["perm_c5"].action is ResumeDecisionAction.CANCEL
    # user messages never carry decisions
    assert extract_decisions([{"role": "user", "parts": parts}]) == []


def test_decisions_not_waited_on_are_filtered_but_count_as_responses() -> None:
    body = {
        "messages": [
            {
                "role": "assistant",
                "parts": [{"type": "tool-x", "toolCallId": "gone", "state": "output-available"}],
            }
        ]
    }
    chat = decode_chat_input(ChatRequest.from_json(body), waiting_targets=set())
    assert chat.decisions == [] and chat.has_interaction_responses and chat.messages == []


@pytest.mark.parametrize(
    "body",
    [
        {"messages": []},
        {},
        {"messages": [{"id": "a", "role": "assistant", "parts": [{"type": "text", "text": "x"}]}]},
    ],
)
def test_empty_requests_are_rejected(body: dict[str, object]) -> None:
    with pytest.raises(ProtocolRequestError) as info:
        decode_chat_input(ChatRequest.from_json(body))
    assert str(info.value) == "no new messages or interaction responses"
    assert info.value.status == 400


@pytest.mark.parametrize(
    "body", [[], "x", {"messages": {}}, {"messages": [{"parts": []}]}, {"threadId": 3}]
)
def test_malformed_bodies_are_rejected(body: object) -> None:
    with pytest.raises(ProtocolRequestError):
        ChatRequest.from_json(body)


def test_frontend_context_message() -> None:
    assert frontend_context_message(None) is None
    assert frontend_context_message({}) is None
    message = frontend_context_message({"cart": ["apple"]})
    assert message is not None
    assert message.visibility is Visibility.INTERNAL and message.role is Role.SYSTEM
    assert message.text() == '<frontend-context>\n{"cart":["apple"]}\n</frontend-context>'


def test_history_encoding() -> None:
    user = Message.user("hi")
    user.id = "u-1"
    assistant = Message.assistant_with_tool_calls(
        "Looking", [ToolCall("c1", "search", {"q": "x"}), ToolCall("c2", "ask", {})]
    )
    assistant.id = "a-1"
    result = Message.tool("c1", '{"hits":1}')
    pending = Message.tool("c2", "Tool call suspended, waiting for a decision")
    orphan = Message.tool("zz", "plain")
    orphan.id = "t-9"
    history = encode_history([user, assistant, result, pending, orphan])
    assert history == [
        {"id": "u-1", "role": "user", "parts": [{"type": "text", "text": "hi"}]},
        {
            "id": "a-1",
            "role": "assistant",
            "parts": [
                {"type": "text", "text": "Looking"},
                {
                    "type": "tool-search",
                    "toolName": "search",
                    "toolCallId": "c1",
                    "state": "output-available",
                    "input": {"q": "x"},
                    "providerExecuted": True,
                    "output": {"hits": 1},
                },
                {
                    "type": "tool-ask",
                    "toolName": "ask",
                    "toolCallId": "c2",
                    "state": "input-available",
                    "input": {},
                    "providerExecuted": True,
                },
            ],
        },
        {"id": "t-9", "role": "tool", "parts": [{"type": "text", "text": "plain"}]},
    ]
