"""Shared e2e fixtures: a live Awaken server on a loopback port and the Node client harness.

The server is the real thing — runtime, SQLite store (a real file), mailbox, Starlette app and
uvicorn on a real socket — with one mock: a scripted model. It calls ``get_weather`` (a server
tool) for weather questions and the client's ``pick_color`` frontend tool when one is offered,
then answers in text once it has a tool result.

When a module's servers have stopped, every finished run in their SQLite files is replayed from
its journal (:func:`~awaken_runtime.testing.assert_runs_replay`, the agents rebuilt by the same
app factory): a run that does not replay identical fails the module.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.message import Role, ToolCall
from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallResumeMode,
)
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.ids import new_id
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntime, AgentRuntimeBuilder
from awaken_runtime.testing import assert_runs_replay, parse_sse_text, text_step, tool_step
from awaken_runtime.testing.asgi import AppLifespan, ThreadedServer
from awaken_server.app import AppState, ServerConfig, create_app
from awaken_server.protocols import protocol_routes
from awaken_stores import SqliteStore

JS_DIR = Path(__file__).parent / "js"
AGENT_ID = "assistant"


class WeatherTool(Tool):
    """A server-side tool with a deterministic answer."""

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("get_weather", "Get Weather", "Weather for a city").with_parameters(
            {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        )

    async def execute(self, args: dict[str, Any], ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("get_weather", {"forecast": f"sunny in {args['city']}"})


class DeployTool(Tool):
    """Needs a human's approval: suspends (replay mode) until a decision replays the call.
    ``deployed`` counts the approved executions (the side effect)."""

    def __init__(self) -> None:
        self.deployed = 0

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("deploy", "Deploy", "Deploy the app (asks for approval)")

    async def execute(self, args: dict[str, Any], ctx: ToolCallContext) -> ToolResult:
        if ctx.resume_input is not None:
            self.deployed += 1
            return ToolResult.success("deploy", {"deployed": True})
        ticket = SuspendTicket(
            suspension=Suspension(id=f"perm_{ctx.call_id}", action="tool:PermissionConfirm"),
            pending=PendingToolCall(id=ctx.call_id, name="deploy", arguments=args),
            resume_mode=ToolCallResumeMode.REPLAY_TOOL_CALL,
        )
        return ToolResult.suspended_with("deploy", "approve the deployment", ticket)


class ScriptedModel(LlmExecutor):
    """The only mock: decides from the request what a model would do next."""

    async def execute(self, request: InferenceRequest) -> StreamResult:
        last = request.messages[-1] if request.messages else None
        if last is not None and last.role is Role.TOOL:
            text = f"Done: {last.text()}"
            return text_step(text)
        offered = {tool.id for tool in request.tools}
        asked = last.text() if last is not None else ""
        if "deploy" in asked:
            call = ToolCall(f"call_{new_id()}", "deploy", {})
        elif "pick_color" in offered:
            call = ToolCall(f"call_{new_id()}", "pick_color", {"hint": "wall"})
        else:
            call = ToolCall(f"call_{new_id()}", "get_weather", {"city": "Tokyo"})
        return tool_step([call], "Let me check.")

    def name(self) -> str:
        return "scripted"


AppFactory = Callable[[SqliteStore], Any]
"""Builds the ASGI app on the server's own event loop, given the server's SQLite store."""

ServeApp = Callable[[Path, AppFactory], ThreadedServer]


def _over_sqlite(db_path: Path, make_app: AppFactory) -> AppLifespan:
    """Open the SQLite store at ``db_path`` on the server's loop, close it after the server."""

    @contextlib.asynccontextmanager
    async def lifespan() -> AsyncIterator[Any]:
        store = SqliteStore(db_path)
        try:
            yield make_app(store)
        finally:
            await store.close()

    return lifespan


@pytest.fixture(scope="module")
def serve_app() -> Iterator[ServeApp]:
    """Start threaded servers (:class:`awaken_runtime.testing.asgi.ThreadedServer`) over a
    SQLite file for this module; all are stopped (newest first) after it, then every finished
    run they recorded must replay identical."""
    started: list[ThreadedServer] = []
    served: list[tuple[Path, AppFactory]] = []

    def serve(db_path: Path, make_app: AppFactory) -> ThreadedServer:
        server = ThreadedServer(_over_sqlite(db_path, make_app)).start()
        started.append(server)
        served.append((db_path, make_app))
        return server

    yield serve
    for server in reversed(started):
        server.stop()
    for db_path, make_app in served:
        replayed = asyncio.run(replay_recorded_runs(db_path, make_app))
        REPLAYED.append((db_path, replayed))


REPLAYED: list[tuple[Path, int]] = []
"""(database, finished runs replayed identical) of every e2e server so far."""


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say how many recorded runs the replay check covered."""
    if REPLAYED:
        runs = sum(count for _, count in REPLAYED)
        terminalreporter.write_line(
            f"replay: {runs} finished runs of {len(REPLAYED)} e2e servers replayed identical"
        )


async def replay_recorded_runs(db_path: Path, make_app: AppFactory) -> int:
    """Replay every finished run in ``db_path`` with the agents ``make_app`` serves."""
    store = SqliteStore(db_path)
    try:
        runtime = make_app(store).state.awaken.runtime
        assert isinstance(runtime, AgentRuntime)
        return await assert_runs_replay(runtime, store)
    finally:
        await store.close()


def _awaken_app(store: SqliteStore) -> Any:
    """The Awaken app (native + AI SDK + AG-UI routes) with the weather/deploy tools."""
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(
            AgentSpec(AGENT_ID).with_model("m").with_system_prompt("Be helpful.").with_max_rounds(5)
        )
        .with_tool("get_weather", WeatherTool())
        .with_tool("deploy", DeployTool())
        .with_provider("scripted", ScriptedModel())
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_thread_run_store(store)
        .build()
    )
    state = AppState.build(runtime, store, config=ServerConfig(default_agent_id=AGENT_ID))
    return create_app(state, extra_routes=protocol_routes())


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory, serve_app: ServeApp) -> ThreadedServer:
    """A running server with a fresh SQLite database."""
    return serve_app(tmp_path_factory.mktemp("awaken-e2e") / "awaken.db", _awaken_app)


@pytest.fixture(scope="session")
def node_harness() -> Path:
    """``tests/e2e/js`` with its dependencies installed by ``npm ci`` from the lockfile.

    Skips when Node/npm are absent, except under CI (``CI`` set), where that is a failure.
    """
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        if os.environ.get("CI"):
            pytest.fail("node and npm are required for the protocol e2e tests under CI")
        pytest.skip("node/npm not installed")
    lock = JS_DIR / "package-lock.json"
    marker = JS_DIR / "node_modules" / ".package-lock.json"
    if not marker.exists() or marker.stat().st_mtime < lock.stat().st_mtime:
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=JS_DIR, check=True, capture_output=True
        )
    return JS_DIR


@pytest.fixture(scope="session")
def run_node(node_harness: Path) -> Callable[..., dict[str, Any]]:
    """Run a harness script with arguments; its stdout is a JSON report."""

    def run(script: str, *args: str) -> dict[str, Any]:
        node = shutil.which("node")
        assert node is not None
        done = subprocess.run(
            [node, script, *args], cwd=node_harness, capture_output=True, text=True, timeout=90
        )
        assert done.returncode == 0, done.stderr
        report: dict[str, Any] = json.loads(done.stdout)
        return report

    return run


def _sse_data(response: httpx.Response) -> list[dict[str, Any]]:
    return [frame.data for frame in parse_sse_text(response.text) if frame.data is not None]


@pytest.fixture(scope="session")
def sse_data() -> Callable[[httpx.Response], list[dict[str, Any]]]:
    """The JSON payload of every ``data:`` line of a finished SSE response, in order."""
    return _sse_data
