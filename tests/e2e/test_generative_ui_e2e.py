"""Generative UI with the protocols' official clients: the ``ai`` v6 package rebuilds the
assistant message (tool part + ``data-activity-snapshot`` part) and every AG-UI event of a
``render_a2ui`` run validates against ``@ag-ui/core``'s schemas.

The plugin is enabled from YAML (entry-point discovery); the only mock is the scripted model.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.message import ToolCall
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_server.app import AppState, ServerConfig, create_app
from awaken_server.bootstrap import build_runtime, setup_from_file
from awaken_server.protocols import protocol_routes
from awaken_stores import SqliteStore

YAML = """
models:
  - id: m
    provider_id: scripted
    upstream_model: scripted-1
agents:
  - id: ui
    model_id: m
    plugin_ids: [generative-ui]
"""
OPERATIONS = [
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


def one_turn() -> list[Any]:
    return [
        tool_step([ToolCall("bad", "render_a2ui", {"beginRendering": {"surfaceId": "s1"}})]),
        tool_step([ToolCall("ok", "render_a2ui", {"messages": OPERATIONS})]),
        text_step("Shown."),
    ]


@pytest.fixture(scope="module")
def ui_server(tmp_path_factory: pytest.TempPathFactory, serve_app: Any) -> Any:
    folder = tmp_path_factory.mktemp("awaken-gen-ui")
    config = folder / "awaken.yaml"
    config.write_text(YAML, encoding="utf-8")
    setup = setup_from_file(config)
    llm = ScriptedLlm(one_turn() + one_turn())

    def make_app(store: SqliteStore) -> Any:
        runtime = build_runtime(setup.system, store=store, executors={"scripted": llm})
        state = AppState.build(runtime, store, config=ServerConfig(default_agent_id="ui"))
        return create_app(state, extra_routes=protocol_routes())

    return serve_app(Path(folder) / "awaken.db", make_app)


def test_ai_sdk_client_rebuilds_tool_and_activity_parts(
    ui_server: Any, run_node: Callable[..., dict[str, Any]]
) -> None:
    report = run_node("ai-sdk.mjs", ui_server.base_url, "gen-ui-ai-sdk")
    assert report["errors"] == [] and report["status"] == 200
    parts = report["message"]["parts"]
    tools = [p for p in parts if p["type"] == "tool-render_a2ui"]
    assert [(t["toolCallId"], t["state"]) for t in tools] == [
        ("bad", "output-error"),
        ("ok", "output-available"),
    ]
    assert '"beginRendering.root" is required' in tools[0]["errorText"]
    assert tools[1]["input"] == {"messages": OPERATIONS}
    assert tools[1]["output"] == {"rendered": True, "count": 2}
    [activity] = [p for p in parts if p["type"] == "data-activity-snapshot"]
    assert activity["data"] == {
        "messageId": "a2ui-surface-ok",
        "activityType": "a2ui-surface",
        "content": {"a2ui_operations": OPERATIONS},
        "replace": True,
    }


def test_ag_ui_events_validate_against_the_official_schemas(
    ui_server: Any, run_node: Callable[..., dict[str, Any]]
) -> None:
    report = run_node("ag-ui-events.mjs", ui_server.base_url, "gen-ui-ag-ui", "show")
    assert "error" not in report, report.get("error")
    assert report["status"] == 200 and report["invalid"] == []
    events = report["events"]
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED"
    [snapshot] = [e for e in events if e["type"] == "ACTIVITY_SNAPSHOT"]
    assert snapshot == {
        "type": "ACTIVITY_SNAPSHOT",
        "messageId": "a2ui-surface-ok",
        "activityType": "a2ui-surface",
        "content": {"a2ui_operations": OPERATIONS},
        "replace": True,
    }
    results = [e for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert [r["toolCallId"] for r in results] == ["bad", "ok"]
