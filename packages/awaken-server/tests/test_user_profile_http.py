"""Profile state kept per user, over HTTP on a real socket with a real SQLite file.

Two users of one agent each save a note (a tool that asks for approval first, then writes a
``ProfileKey`` kept per user) and read it back: each sees their own, a third user sees none.
The user comes from the API key (``user_api_keys``) or, with a plain backend key, from the
body's ``userId``; the run resumed after the approval keeps its user even though the decision
names none. The protocol routes take the user from their own fields.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from awaken_contract.contract.message import ToolCall
from awaken_contract.contract.storage import ProfileOwner
from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallResumeMode,
)
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.key_codec import ProfileOwnerKind
from awaken_contract.profile import ProfileKey
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_server.bootstrap import setup_from_file
from awaken_server.serve import prepare_app
from awaken_server.testing import serve_state, test_server_config
from awaken_stores import SqliteStore
from pydantic import ValidationError

YAML = """
models:
  - id: m
    provider_id: scripted
    upstream_model: scripted-1
agents:
  - id: notes
    model_id: m
    system_prompt: Keep notes.
"""

KEYS = {"alice": "alice-key", "bob": "bob-key"}
BACKEND = {"Authorization": "Bearer backend-key"}


class NoteKey(ProfileKey[str]):
    KEY = "test.note"
    PER = ProfileOwnerKind.USER


class SaveNote(Tool):
    """Asks for approval, then stores ``text`` as the run's user's note."""

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("save_note", "Save Note", "Save a note for the user")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        if ctx.resume_input is None:
            ticket = SuspendTicket(
                suspension=Suspension(id=f"s_{ctx.call_id}", action="confirm", parameters=args),
                pending=PendingToolCall(id=ctx.call_id, name="save_note", arguments=args),
                resume_mode=ToolCallResumeMode.REPLAY_TOOL_CALL,
            )
            return ToolResult.suspended_with("save_note", "approve the note", ticket)
        profile = ctx.profile
        assert profile is not None
        await profile.set(NoteKey, args["text"])
        return ToolResult.success("save_note", {"saved_for": ctx.run_identity.user_id})


class ReadNote(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("read_note", "Read Note", "The user's note")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        profile = ctx.profile
        assert profile is not None
        return ToolResult.success("read_note", {"note": await profile.get(NoteKey)})


async def _server(tmp_path: Path, llm: ScriptedLlm) -> Any:
    config = tmp_path / "awaken.yaml"
    config.write_text(YAML, encoding="utf-8")
    setup = setup_from_file(config)
    setup.tools["save_note"] = SaveNote()
    setup.tools["read_note"] = ReadNote()
    setup.executors["scripted"] = llm
    store = SqliteStore(tmp_path / "awaken.db")
    server = test_server_config(
        default_agent_id="notes", api_keys=["backend-key"], user_api_keys=KEYS
    )
    app, state = await prepare_app(setup, store, server)
    return await serve_state(app, state)


def _events(response: httpx.Response) -> list[dict[str, Any]]:
    return [
        json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")
    ]


async def _run(client: httpx.AsyncClient, headers: dict[str, str], **body: Any) -> Any:
    payload = {"agentId": "notes", "messages": [{"role": "user", "content": "go"}], **body}
    response = await client.post("/v1/runs", json=payload, headers=headers)
    assert response.status_code == 200, response.text
    return _events(response)


def _result(events: list[dict[str, Any]], tool: str) -> Any:
    done = [e for e in events if e["event_type"] == "tool_call_done" and e.get("result")]
    return next(e["result"]["data"] for e in done if e["result"]["tool_name"] == tool)


async def _save_and_approve(live: Any, until: Any, headers: dict[str, str], **body: Any) -> str:
    events = await _run(live.client, headers, **body)
    finish = events[-1]
    assert finish["termination"] == {"type": "suspended"}, finish
    run_id = finish["run_id"]
    call_id = next(e["id"] for e in events if e["event_type"] == "tool_call_done")
    decision = {"toolCallId": call_id, "action": "resume", "payload": {"approved": True}}
    # the decision comes from the backend, naming no user: the run keeps its own
    r = await live.client.post(f"/v1/runs/{run_id}/decision", json=decision, headers=BACKEND)
    assert r.status_code == 202, r.text

    async def done() -> bool:
        run = (await live.client.get(f"/v1/runs/{run_id}", headers=BACKEND)).json()
        return bool(run["status"] == "done")

    await until(done)
    return run_id


async def test_two_users_of_one_agent_keep_their_own_profile(tmp_path: Path, until: Any) -> None:
    def save(call: str, text: str) -> list[Any]:
        return [tool_step([ToolCall(call, "save_note", {"text": text})]), text_step("saved")]

    def read(call: str) -> list[Any]:
        return [tool_step([ToolCall(call, "read_note", {})]), text_step("read")]

    steps = [*save("s1", "alice's note"), *save("s2", "bob's note")]
    llm = ScriptedLlm([*steps, *read("r1"), *read("r2"), *read("r3")])
    live = await _server(tmp_path, llm)
    try:
        alice = {"Authorization": f"Bearer {KEYS['alice']}"}
        alice_run = await _save_and_approve(live, until, alice)
        await _save_and_approve(live, until, BACKEND, userId="bob")

        record = (await live.client.get(f"/v1/runs/{alice_run}", headers=BACKEND)).json()
        assert record["user_id"] == "alice"  # kept through the resume

        assert _result(await _run(live.client, alice), "read_note") == {"note": "alice's note"}
        bob = await _run(live.client, {"Authorization": f"Bearer {KEYS['bob']}"})
        assert _result(bob, "read_note") == {"note": "bob's note"}
        carol = await _run(live.client, BACKEND, user_id="carol")
        assert _result(carol, "read_note") == {"note": None}  # not alice's, not bob's

        profiles = live.state.store.profiles
        entry = await profiles.get(ProfileOwner.user("alice"), NoteKey.KEY)
        assert entry is not None and entry.value == "alice's note"
        assert await profiles.get(ProfileOwner.agent("notes"), NoteKey.KEY) is None
    finally:
        await live.close()


async def test_user_id_is_checked_at_the_edge(tmp_path: Path) -> None:
    live = await _server(tmp_path, ScriptedLlm([]))
    body = {"agentId": "notes", "messages": [{"role": "user", "content": "go"}]}
    try:
        alice = {"Authorization": f"Bearer {KEYS['alice']}"}
        r = await live.client.post("/v1/runs", json={**body, "userId": "bob"}, headers=alice)
        assert r.status_code == 403 and "authenticated user" in r.json()["error"]
        r = await live.client.post("/v1/runs", json={**body, "userId": "../x"}, headers=BACKEND)
        assert r.status_code == 400 and "user" in r.json()["error"]
        r = await live.client.post("/v1/runs", json={**body, "userId": 7}, headers=BACKEND)
        assert r.status_code == 422
        r = await live.client.post("/v1/runs", json=body, headers={"Authorization": "Bearer no"})
        assert r.status_code == 401
    finally:
        await live.close()


def test_user_api_keys_need_valid_user_ids() -> None:
    with pytest.raises(ValidationError, match="user id"):
        test_server_config(user_api_keys={"../root": "k"})


async def test_protocol_routes_take_the_user_from_their_own_fields(tmp_path: Path) -> None:
    llm = ScriptedLlm([text_step("one"), text_step("two"), text_step("three")])
    live = await _server(tmp_path, llm)

    async def user_of_run(path: str, body: dict[str, Any], thread_id: str) -> str | None:
        r = await live.client.post(path, json=body, headers=BACKEND)
        assert r.status_code == 200, r.text
        run = await live.state.store.latest_run(thread_id)
        assert run is not None
        return run.user_id

    try:
        parts = [{"type": "text", "text": "hi"}]
        chat = {
            "threadId": "t-ai",
            "userId": "dora",
            "messages": [{"id": "m1", "role": "user", "parts": parts}],
        }
        assert await user_of_run("/v1/ai-sdk/agents/notes/runs", chat, "t-ai") == "dora"
        ag_ui = {
            "threadId": "t-ag",
            "runId": "r-ag",
            "messages": [{"id": "m2", "role": "user", "content": "hi"}],
            "tools": [],
            "context": [],
            "state": {},
            "forwardedProps": {"userId": "eve"},
        }
        assert await user_of_run("/v1/ag-ui/agents/notes/runs", ag_ui, "t-ag") == "eve"
        message = {
            "messageId": "m3",
            "role": "ROLE_USER",
            "contextId": "t-a2a",
            "parts": [{"text": "hi"}],
            "metadata": {"userId": "finn"},
        }
        a2a = "/v1/a2a/notes/message:send"
        assert await user_of_run(a2a, {"message": message}, "t-a2a") == "finn"
        bad = {**message, "messageId": "m4", "contextId": "t-a2b", "metadata": {"userId": "a/b"}}
        r = await live.client.post(a2a, json={"message": bad}, headers=BACKEND)
        assert r.status_code == 400, r.text
    finally:
        await live.close()
