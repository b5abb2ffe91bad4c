"""Generative UI enabled from ``awaken serve`` YAML, over HTTP: the exact AI SDK v6 and AG-UI
frames a frontend receives for a ``render_a2ui`` call (golden).

The app is the one ``awaken serve`` builds (``prepare_app``, plugins found through the
``awaken.plugins`` entry points) on a real SQLite file; the only mock is the scripted model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from awaken_contract.contract.message import ToolCall
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.testing.pytest_plugin import ServeAsgi
from awaken_server.app import ServerConfig
from awaken_server.bootstrap import setup_from_file
from awaken_server.serve import prepare_app
from awaken_stores import SqliteStore

YAML = """
models:
  - id: m
    provider_id: scripted
    upstream_model: scripted-1
agents:
  - id: ui
    model_id: m
    system_prompt: Render UI when it helps.
    plugin_ids: [generative-ui]
    sections:
      generative-ui:
        catalog_id: https://example.com/catalog.json
"""

ARGS = {
    "messages": [
        {
            "surfaceUpdate": {
                "surfaceId": "s1",
                "components": [
                    {"id": "root", "component": {"Text": {"text": {"literalString": "Hi"}}}}
                ],
            }
        },
        {"beginRendering": {"surfaceId": "s1", "root": "root"}},
    ]
}
OPERATIONS = ARGS["messages"]
ARGS_TEXT = json.dumps(ARGS, separators=(",", ":"))
BAD = {"deleteSurface": {"surfaceId": ""}}
BAD_ERROR = (
    'Invalid arguments: A2UI validation failed: message[0]: "deleteSurface.surfaceId" '
    "must not be empty"
)


def script() -> list[Any]:
    return [
        tool_step([ToolCall("bad", "render_a2ui", BAD)]),
        tool_step([ToolCall("ok", "render_a2ui", ARGS)]),
        text_step("Shown."),
    ]


def sse_data(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]


async def serve_ui(tmp_path: Path, serve: ServeAsgi, llm: ScriptedLlm) -> tuple[str, SqliteStore]:
    config = tmp_path / "awaken.yaml"
    config.write_text(YAML, encoding="utf-8")
    setup = setup_from_file(config)
    setup.executors["scripted"] = llm
    store = SqliteStore(tmp_path / "awaken.db")
    app, _ = await prepare_app(setup, store, ServerConfig())
    return await serve(app), store


async def test_ai_sdk_frames(tmp_path: Path, serve: ServeAsgi) -> None:
    llm = ScriptedLlm(script())
    url, store = await serve_ui(tmp_path, serve, llm)
    body = {
        "id": "chat-1",
        "threadId": "ui-ai-sdk",
        "agentId": "ui",
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "show"}]}],
    }
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        response = await client.post("/v1/ai-sdk/chat", json=body)
    assert response.status_code == 200, response.text
    parts = sse_data(response.text)
    ui = [p for p in parts if p.get("toolCallId") in ("bad", "ok") or "activity" in p["type"]]
    assert ui == [
        {"type": "tool-input-start", "toolCallId": "bad", "toolName": "render_a2ui"},
        {
            "type": "tool-input-delta",
            "toolCallId": "bad",
            "inputTextDelta": json.dumps(BAD, separators=(",", ":")),
        },
        {
            "type": "tool-input-available",
            "toolCallId": "bad",
            "toolName": "render_a2ui",
            "input": BAD,
        },
        {
            "type": "tool-output-error",
            "toolCallId": "bad",
            "errorText": BAD_ERROR,
            "providerExecuted": True,
        },
        {"type": "tool-input-start", "toolCallId": "ok", "toolName": "render_a2ui"},
        {"type": "tool-input-delta", "toolCallId": "ok", "inputTextDelta": ARGS_TEXT},
        {
            "type": "tool-input-available",
            "toolCallId": "ok",
            "toolName": "render_a2ui",
            "input": ARGS,
        },
        {
            "type": "data-activity-snapshot",
            "data": {
                "messageId": "a2ui-surface-ok",
                "activityType": "a2ui-surface",
                "content": {"a2ui_operations": OPERATIONS},
                "replace": True,
            },
        },
        {
            "type": "tool-output-available",
            "toolCallId": "ok",
            "output": {"rendered": True, "count": 2},
            "providerExecuted": True,
        },
    ]
    instructions = [m.text() for m in llm.requests[0].messages if "render_a2ui" in m.text()]
    assert len(instructions) == 1 and "https://example.com/catalog.json" in instructions[0]
    await store.close()


async def test_ag_ui_frames(tmp_path: Path, serve: ServeAsgi) -> None:
    llm = ScriptedLlm(script())
    url, store = await serve_ui(tmp_path, serve, llm)
    body = {
        "threadId": "ui-ag-ui",
        "runId": "r-1",
        "agentId": "ui",
        "messages": [{"id": "u1", "role": "user", "content": "show"}],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
    }
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        response = await client.post("/v1/ag-ui/run", json=body)
    assert response.status_code == 200, response.text
    events = sse_data(response.text)
    ui = [e for e in events if e.get("toolCallId") in ("bad", "ok") or "ACTIVITY" in e["type"]]
    for event in ui:  # message ids of tool starts/results are run-specific
        event.pop("parentMessageId", None)
        if event["type"] == "TOOL_CALL_RESULT":
            assert event.pop("messageId")
    assert ui == [
        {"type": "TOOL_CALL_START", "toolCallId": "bad", "toolCallName": "render_a2ui"},
        {
            "type": "TOOL_CALL_ARGS",
            "toolCallId": "bad",
            "delta": json.dumps(BAD, separators=(",", ":")),
        },
        {"type": "TOOL_CALL_END", "toolCallId": "bad"},
        {"type": "TOOL_CALL_RESULT", "toolCallId": "bad", "content": BAD_ERROR, "role": "tool"},
        {"type": "TOOL_CALL_START", "toolCallId": "ok", "toolCallName": "render_a2ui"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "ok", "delta": ARGS_TEXT},
        {"type": "TOOL_CALL_END", "toolCallId": "ok"},
        {
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": "a2ui-surface-ok",
            "activityType": "a2ui-surface",
            "content": {"a2ui_operations": OPERATIONS},
            "replace": True,
        },
        {
            "type": "TOOL_CALL_RESULT",
            "toolCallId": "ok",
            "content": '{"rendered":true,"count":2}',
            "role": "tool",
        },
    ]
    await store.close()
