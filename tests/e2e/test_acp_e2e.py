"""ACP end to end: the ``agent-client-protocol`` client drives ``awaken acp`` (a subprocess).

The agent runs the offline demo model (scripted, no network) with the permission extension
asking before every tool call: a prompt turn streams text, announces the tool call, asks the
client for permission, runs the tool once approved and ends with ``end_turn``. Its runs go to a
SQLite file (``--store``): once the agent process has exited, every finished run replays
identical with the agents ``awaken replay`` builds from the same config.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, text_block
from acp.schema import (
    AgentMessageChunk,
    AllowedOutcome,
    DeniedOutcome,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
)
from acp.stdio import spawn_agent_process
from awaken_runtime.testing import wait_until
from awaken_server.testing import assert_served_runs_replay

CONFIG = """\
providers:
  - id: demo
    adapter: demo
models:
  - id: demo
    provider: demo
    model: demo-scripted
agents:
  - id: default
    model: demo
    system_prompt: You are a demo.
    plugin_ids: [permission]
    sections:
      permission:
        default_behavior: ask
"""


class RecordingClient:
    """An ACP client that records updates and answers permission requests with ``choice``."""

    def __init__(self, choice: str | None) -> None:
        self.choice = choice
        self.updates: list[Any] = []
        self.permissions: list[Any] = []

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **_: Any
    ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, [o.option_id for o in options]))
        if self.choice is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(option_id=self.choice, outcome="selected")
        )

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)


def _command() -> list[str]:
    awaken = shutil.which("awaken")
    if awaken is not None:
        return [awaken]
    return [sys.executable, "-m", "awaken.cli"]


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "acp.yaml"
    path.write_text(CONFIG)
    return path


def _acp(config: Path) -> list[str]:
    """``awaken acp`` over a SQLite file next to ``config`` (see :func:`_replays`)."""
    return [*_command(), "acp", "--config", str(config), "--store", _store(config)]


def _store(config: Path) -> str:
    return f"sqlite:///{config.parent / 'acp.db'}"


async def _replays(config: Path, runs: int) -> None:
    """The agent process has exited: its ``runs`` finished runs replay identical."""
    assert await assert_served_runs_replay(_store(config), config) == runs


async def test_prompt_turn_with_tool_call_and_permission(config: Path, tmp_path: Path) -> None:
    client = RecordingClient("opt_allow_once")
    command = _acp(config)
    async with spawn_agent_process(client, *command) as (conn, _process):
        init = await conn.initialize(protocol_version=PROTOCOL_VERSION)
        assert init.protocol_version == PROTOCOL_VERSION
        assert init.agent_info is not None and init.agent_info.name == "awaken-acp"
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        assert session.session_id.startswith("sess_") and len(session.session_id) == 37
        response = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("weather in Paris")]
        )
        assert response.stop_reason == "end_turn"

    starts = [u for u in client.updates if isinstance(u, ToolCallStart)]
    assert [(s.title, s.kind, s.status) for s in starts] == [("get_weather", "other", "pending")]
    assert starts[0].raw_input == {"city": "Paris"}
    [(asked, options)] = client.permissions
    assert asked.tool_call_id == starts[0].tool_call_id
    assert options == ["opt_allow_once", "opt_allow_always", "opt_reject_once", "opt_reject_always"]
    progress = [u for u in client.updates if isinstance(u, ToolCallProgress)]
    assert progress[-1].status == "completed"
    assert progress[-1].tool_call_id == starts[0].tool_call_id
    text = "".join(u.content.text for u in client.updates if isinstance(u, AgentMessageChunk))
    assert "sunny in Paris" in text
    await _replays(config, 1)


async def test_rejected_permission_and_bad_requests(config: Path, tmp_path: Path) -> None:
    client = RecordingClient("opt_reject_once")
    command = _acp(config)
    async with spawn_agent_process(client, *command) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        with pytest.raises(RequestError) as relative:
            await conn.new_session(cwd="relative/dir", mcp_servers=[])
        assert relative.value.code == -32602
        with pytest.raises(RequestError) as unknown:
            await conn.prompt(session_id="sess_nope", prompt=[text_block("hi")])
        assert unknown.value.code == -32002
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        response = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("weather in Oslo")]
        )
        assert response.stop_reason == "end_turn"
    assert len(client.permissions) == 1
    progress = [u for u in client.updates if isinstance(u, ToolCallProgress)]
    assert progress and progress[-1].status == "failed"
    await _replays(config, 1)


async def test_cancel_ends_the_prompt_turn(config: Path, tmp_path: Path) -> None:
    client = RecordingClient("opt_allow_once")
    command = _acp(config)
    async with spawn_agent_process(client, *command) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        turn = asyncio.create_task(
            conn.prompt(session_id=session.session_id, prompt=[text_block("wait 30")])
        )
        await wait_until(lambda: client.permissions, message="a permission request")
        await asyncio.sleep(0.2)  # the approved demo_wait tool is now sleeping
        await conn.cancel(session_id=session.session_id)
        response = await asyncio.wait_for(turn, 20)
        assert response.stop_reason == "cancelled"
    await _replays(config, 1)
