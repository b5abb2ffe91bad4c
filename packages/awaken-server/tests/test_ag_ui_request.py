"""AG-UI RunAgentInput → messages, frontend tools, context and resume decisions."""

from __future__ import annotations

import pytest
from awaken_contract.contract.content import Base64Source, ImageBlock, TextBlock, UrlSource
from awaken_contract.contract.message import Role
from awaken_contract.contract.suspension import ResumeDecisionAction
from awaken_server.protocols.ag_ui import RunAgentInput, decode_run_input
from awaken_server.protocols.errors import ProtocolRequestError

SPEC_BODY = {
    "threadId": "thread-1",
    "runId": "client-run",
    "agentId": "copilot",
    "messages": [
        {"id": "m1", "role": "user", "content": "Paint the wall"},
        {
            "id": "m2",
            "role": "user",
            "content": [
                {"type": "text", "text": "see photo"},
                {
                    "type": "image",
                    "source": {"type": "url", "value": "https://x/y.png", "mimeType": "image/png"},
                },
                {
                    "type": "image",
                    "source": {"type": "data", "value": "AAA", "mimeType": "image/png"},
                },
                {"type": "image", "source": {"type": "data", "value": "no mime"}},
            ],
        },
    ],
    "tools": [
        {
            "name": "pick_color",
            "description": "Ask user for a color",
            "parameters": {"type": "object", "properties": {"hint": {"type": "string"}}},
        },
        {"name": "bare"},
    ],
    "state": {"wall": "north"},
    "context": [{"description": "page", "value": "settings"}],
    "forwardedProps": {},
    "resume": {"interruptId": "suspend_call_3", "payload": {"color": "blue"}},
}


def test_spec_body_decodes() -> None:
    request = RunAgentInput.from_json(SPEC_BODY)
    assert request.thread_id == "thread-1" and request.agent_id == "copilot"
    run = decode_run_input(request)
    first, second = run.messages
    assert first.id == "m1" and first.text() == "Paint the wall"
    assert second.content == [
        TextBlock(text="see photo"),
        ImageBlock(source=UrlSource(url="https://x/y.png")),
        ImageBlock(source=Base64Source(media_type="image/png", data="AAA")),
    ]
    pick, bare = run.frontend_tools
    assert (pick.id, pick.name, pick.description) == (
        "pick_color",
        "pick_color",
        "Ask user for a color",
    )
    assert pick.parameters["properties"] == {"hint": {"type": "string"}}
    assert bare.description == "Frontend tool"
    assert bare.parameters == {"type": "object", "properties": {}}
    [(target, decision)] = run.decisions
    assert target == "suspend_call_3"
    assert decision.action is ResumeDecisionAction.RESUME and decision.result == {"color": "blue"}
    assert run.context == {
        "state": {"wall": "north"},
        "context": [{"description": "page", "value": "settings"}],
    }


def test_official_resume_entries() -> None:
    body = {
        "threadId": "t",
        "runId": "r",
        "messages": [],
        "resume": [
            {"interruptId": "perm_c1", "status": "resolved", "payload": {"approved": True}},
            {"interruptId": "perm_c2", "status": "resolved", "payload": {"approved": False}},
            {"interruptId": "perm_c3", "status": "cancelled"},
            {"status": "resolved"},
        ],
    }
    run = decode_run_input(RunAgentInput.from_json(body))
    assert [(t, d.action) for t, d in run.decisions] == [
        ("perm_c1", ResumeDecisionAction.RESUME),
        ("perm_c2", ResumeDecisionAction.CANCEL),
        ("perm_c3", ResumeDecisionAction.CANCEL),
    ]
    assert run.messages == []


def test_resent_history_is_deduplicated_and_tool_messages_answer_calls() -> None:
    body = {
        "threadId": "t",
        "messages": [
            {"id": "u1", "role": "user", "content": "hi"},
            {
                "id": "a1",
                "role": "assistant",
                "content": "calling",
                "toolCalls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            {"id": "t1", "role": "tool", "toolCallId": "c1", "content": '{"color":"red"}'},
            {"id": "t2", "role": "tool", "toolCallId": "other", "content": "x"},
            {"id": "d1", "role": "developer", "content": "be terse"},
        ],
    }
    run = decode_run_input(
        RunAgentInput.from_json(body), known_ids={"u1"}, has_history=True, waiting_targets={"c1"}
    )
    assert [(m.role, m.text()) for m in run.messages] == [(Role.SYSTEM, "be terse")]
    [(target, decision)] = run.decisions
    assert target == "c1" and decision.result == {"color": "red"}
    # a fresh thread may be seeded with assistant turns
    fresh = decode_run_input(RunAgentInput.from_json(body))
    assert [m.role for m in fresh.messages] == [Role.USER, Role.ASSISTANT, Role.SYSTEM]


def test_context_merging() -> None:
    def ctx(state: object, context: object) -> object:
        return RunAgentInput(state=state, context=context).frontend_context()

    assert ctx(None, None) is None
    assert ctx({}, []) is None
    assert ctx({"a": 1}, None) == {"a": 1}
    assert ctx(None, [{"description": "d", "value": "v"}]) == [{"description": "d", "value": "v"}]
    assert ctx({"a": 1, "b": 1}, {"b": 2}) == {"a": 1, "b": 2}


def test_no_message_and_no_resume_is_rejected() -> None:
    with pytest.raises(ProtocolRequestError) as info:
        decode_run_input(RunAgentInput.from_json({"messages": [{"role": "tool", "content": "x"}]}))
    assert str(info.value) == "at least one message is required"


@pytest.mark.parametrize(
    "body",
    [[], {"messages": {}}, {"tools": {}}, {"tools": [{"description": "no name"}]}, {"agentId": 1}],
)
def test_malformed_bodies(body: object) -> None:
    with pytest.raises(ProtocolRequestError):
        RunAgentInput.from_json(body)
