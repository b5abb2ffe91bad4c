"""The registry manager against real MCP servers spawned over stdio."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.event import ActivitySnapshot
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.tool import ToolCallContext, ToolStatus
from awaken_contract.errors import ExecutionFailed, InvalidArguments
from awaken_contract.registry_spec import McpServerSpec
from awaken_ext_mcp import (
    McpConnection,
    McpError,
    McpServerConnectionConfig,
    McpServerState,
    McpToolRegistryManager,
)

Factory = Callable[..., McpServerConnectionConfig]
Until = Callable[..., Awaitable[None]]


def ctx(sink: VecEventSink | None = None, tool: str = "t") -> ToolCallContext:
    return ToolCallContext("call-1", tool, RunIdentity.for_test(), activity_sink=sink)


async def call(manager: McpToolRegistryManager, tool_id: str, args: dict[str, Any]) -> Any:
    tool = manager.registry().get(tool_id)
    assert tool is not None, tool_id
    return await tool.execute(args, ctx(tool=tool_id))


async def server_pid(manager: McpToolRegistryManager, server: str = "local") -> int:
    return int((await call(manager, f"mcp__{server}__pid", {})).data)


async def test_connect_lists_tools_with_sanitised_ids(
    stdio_manager: McpToolRegistryManager,
) -> None:
    registry = stdio_manager.registry()
    assert stdio_manager.version == 1
    assert "mcp__local__echo" in registry.ids()
    assert "mcp__local__my_dotted_tool" in registry  # raw name "my.dotted-tool"
    assert registry.ids() == sorted(registry.ids())
    dotted = registry.get("mcp__local__my_dotted_tool")
    assert dotted is not None
    desc = dotted.descriptor()
    assert desc.name == "Dotted Tool" and desc.description == "A tool with a dotted name."
    assert desc.metadata["mcp.tool"] == "my.dotted-tool"
    assert desc.metadata["mcp.transport"] == "stdio"
    echo = registry.get("mcp__local__echo")
    assert echo is not None
    assert echo.descriptor().parameters["required"] == ["text"]
    assert stdio_manager.servers() == [("local", "stdio")]
    health = stdio_manager.server_health("local")
    assert health.state is McpServerState.CONNECTED and health.last_success_at is not None


async def test_call_converts_results_with_metadata(stdio_manager: McpToolRegistryManager) -> None:
    echo = await call(stdio_manager, "mcp__local__echo", {"text": "hello"})
    assert echo.status is ToolStatus.SUCCESS and echo.data == "hello"
    assert echo.tool_name == "mcp__local__echo"
    assert echo.metadata["mcp.server"] == "local" and echo.metadata["mcp.tool"] == "echo"

    dotted = await call(stdio_manager, "mcp__local__my_dotted_tool", {})
    assert dotted.data == "dotted" and dotted.metadata["mcp.tool"] == "my.dotted-tool"

    picture = await call(stdio_manager, "mcp__local__picture", {})
    kinds = [item["type"] for item in picture.data["content"]]
    assert kinds == ["text", "image"]
    assert picture.data["content"][1]["mimeType"] == "image/png"

    document = await call(stdio_manager, "mcp__local__document", {})
    resource = document.data["content"][0]
    assert resource["type"] == "resource" and resource["resource"]["text"] == "release notes"


async def test_is_error_becomes_a_tool_error(stdio_manager: McpToolRegistryManager) -> None:
    with pytest.raises(ExecutionFailed, match=r"Server error: .*boom"):
        await call(stdio_manager, "mcp__local__fail", {"msg": "boom"})
    tool = stdio_manager.registry().get("mcp__local__echo")
    assert tool is not None
    with pytest.raises(InvalidArguments):
        await tool.execute(["not", "an", "object"], ctx())
    # server-side failures do not count toward a reconnect
    assert stdio_manager.server_health("local").consecutive_failures == 0


async def test_ui_resource_enrichment(stdio_manager: McpToolRegistryManager) -> None:
    card = await call(stdio_manager, "mcp__local__card", {})
    assert card.metadata["mcp.ui.resourceUri"] == "ui://card"
    assert card.metadata["mcp.ui.content"] == "<b>card</b>"
    assert card.metadata["mcp.ui.mimeType"] == "text/html"


async def test_progress_notifications_become_tool_progress(
    stdio_manager: McpToolRegistryManager,
) -> None:
    sink = VecEventSink()
    tool = stdio_manager.registry().get("mcp__local__work")
    assert tool is not None
    result = await tool.execute({"steps": 4}, ctx(sink, "mcp__local__work"))
    assert result.data == "worked 4 steps"
    progress = [e for e in sink.take() if isinstance(e, ActivitySnapshot)]
    assert [p.content["progress"] for p in progress] == [0.25, 0.5, 0.75, 1.0]
    assert progress[-1].content["message"] == "step 4/4"
    assert {p.content["tool_name"] for p in progress} == {"mcp__local__work"}


async def test_prompts_and_resources(stdio_manager: McpToolRegistryManager) -> None:
    prompts = await stdio_manager.list_prompts()
    assert [(p.server, p.name) for p in prompts] == [("local", "greet")]
    got = await stdio_manager.get_prompt("local", "greet", {"name": "Ada"})
    assert "Ada" in got["messages"][0]["content"]["text"]
    resources = await stdio_manager.list_resources()
    assert ("local", "file:///readme.txt") in [(r.server, r.uri) for r in resources]
    read = await stdio_manager.read_resource("local", "file:///readme.txt")
    assert read["contents"][0]["text"] == "read me"
    with pytest.raises(McpError, match="unknown mcp server: nope"):
        await stdio_manager.read_resource("nope", "x")


async def test_one_broken_server_does_not_fail_the_others(make_stdio_config: Factory) -> None:
    broken = McpServerConnectionConfig.stdio(
        "broken", "/nonexistent/mcp-server", restart_policy={"enabled": False}
    )
    crashing = McpServerConnectionConfig.stdio(
        "crashing",
        sys.executable,
        ["-c", "import sys; print('missing API key', file=sys.stderr); sys.exit(3)"],
        timeout_secs=5,
    ).with_restart_policy(make_stdio_config().restart_policy.model_copy(update={"enabled": False}))
    manager = await McpToolRegistryManager.connect([broken, make_stdio_config(), crashing])
    try:
        errors = manager.connect_errors()
        assert set(errors) == {"broken", "crashing"}
        assert "/nonexistent/mcp-server" in errors["broken"]
        assert "stderr: missing API key" in errors["crashing"]
        assert manager.server_state("broken") is McpServerState.DISCONNECTED
        assert manager.server_state("local") is McpServerState.CONNECTED
        assert all(i.startswith("mcp__local__") for i in manager.registry().ids())
        assert (await call(manager, "mcp__local__echo", {"text": "ok"})).data == "ok"
    finally:
        await manager.close()


async def test_invalid_configurations_are_rejected(make_stdio_config: Factory) -> None:
    with pytest.raises(McpError, match="duplicate server name: local"):
        await McpToolRegistryManager.connect([make_stdio_config(), make_stdio_config()])
    with pytest.raises(McpError, match="tool id already registered: mcp__a_b__"):
        await McpToolRegistryManager.connect([make_stdio_config("a-b"), make_stdio_config("a_b")])


async def test_a_killed_server_is_reconnected(
    stdio_manager: McpToolRegistryManager, until: Until, gone: Callable[[int], bool]
) -> None:
    first = await server_pid(stdio_manager)
    os.kill(first, signal.SIGKILL)
    await until(lambda: gone(first))
    # the next call finds the session closed, reconnects and is retried on the new process
    second = await server_pid(stdio_manager)
    assert second != first
    assert stdio_manager.server_state("local") is McpServerState.CONNECTED
    assert (await call(stdio_manager, "mcp__local__echo", {"text": "back"})).data == "back"


async def test_a_dead_server_is_revived_in_the_background(
    stdio_manager: McpToolRegistryManager, until: Until, gone: Callable[[int], bool]
) -> None:
    first = await server_pid(stdio_manager)
    os.kill(first, signal.SIGKILL)
    await until(lambda: gone(first))
    await stdio_manager.refresh()  # discovery sees the closed session and reconnects
    await until(lambda: stdio_manager.server_state("local") is McpServerState.CONNECTED)
    assert await server_pid(stdio_manager) != first


async def test_periodic_refresh_reflects_added_and_removed_tools(
    stdio_manager: McpToolRegistryManager, until: Until
) -> None:
    registry = stdio_manager.registry()
    assert "mcp__local__fresh_tool" not in registry
    with pytest.raises(McpError, match="must be > 0"):
        stdio_manager.start_periodic_refresh(0)
    stdio_manager.start_periodic_refresh(0.05)
    with pytest.raises(McpError, match="already running"):
        stdio_manager.start_periodic_refresh(1)
    assert stdio_manager.periodic_refresh_running()
    before = stdio_manager.version
    await call(stdio_manager, "mcp__local__add_tool", {"name": "fresh-tool"})
    await until(lambda: "mcp__local__fresh_tool" in registry)
    assert stdio_manager.version > before
    assert (await call(stdio_manager, "mcp__local__fresh_tool", {})).data == "dynamic fresh-tool"
    await call(stdio_manager, "mcp__local__remove_tool", {"name": "fresh-tool"})
    await until(lambda: "mcp__local__fresh_tool" not in registry)
    await stdio_manager.stop_periodic_refresh()
    assert not stdio_manager.periodic_refresh_running()


async def test_toggle_disables_and_revives_a_server(
    stdio_manager: McpToolRegistryManager, gone: Callable[[int], bool], until: Until
) -> None:
    pid = await server_pid(stdio_manager)
    await stdio_manager.toggle("local", False)
    assert stdio_manager.server_state("local") is McpServerState.DISABLED
    assert stdio_manager.registry().is_empty
    await until(lambda: gone(pid))
    with pytest.raises(ExecutionFailed, match="server 'local' is disabled"):
        await stdio_manager.call_tool("local", "echo", {"text": "x"})
    await stdio_manager.toggle("local", True)
    assert stdio_manager.server_state("local") is McpServerState.CONNECTED
    assert (await call(stdio_manager, "mcp__local__echo", {"text": "again"})).data == "again"


async def test_manual_reconnect_replaces_the_process(
    stdio_manager: McpToolRegistryManager, gone: Callable[[int], bool], until: Until
) -> None:
    pid = await server_pid(stdio_manager)
    await stdio_manager.reconnect("local")
    await until(lambda: gone(pid))
    assert await server_pid(stdio_manager) != pid
    with pytest.raises(McpError, match="unknown mcp server: other"):
        await stdio_manager.reconnect("other")


async def test_request_timeout(make_stdio_config: Factory) -> None:
    # ``timeout_secs`` also bounds the handshake, and starting the demo server (a Python
    # process importing the MCP SDK) took over 5 s on a loaded 2-core machine, so the bound
    # is generous: the test waits for it once, on the sleepy call.
    manager = await McpToolRegistryManager.connect([make_stdio_config(timeout_secs=15)])
    try:
        assert manager.connect_errors() == {}
        with pytest.raises(ExecutionFailed, match="timeout: Request timed out after 15s"):
            await call(manager, "mcp__local__sleepy", {"seconds": 120})
        assert manager.server_health("local").consecutive_failures == 1
        assert (await call(manager, "mcp__local__echo", {"text": "still"})).data == "still"
        assert manager.server_health("local").consecutive_failures == 0
    finally:
        await manager.close()


async def test_unreachable_server_becomes_permanently_failed(until: Until) -> None:
    config = McpServerConnectionConfig.stdio(
        "ghost",
        "/nonexistent/mcp-server",
        restart_policy={"enabled": True, "max_attempts": 3, "delay_ms": 10, "max_delay_ms": 20},
    )
    manager = await McpToolRegistryManager.connect([config])
    try:
        await until(lambda: manager.server_state("ghost") is McpServerState.PERMANENTLY_FAILED)
        health = manager.server_health("ghost")
        assert health.permanently_failed and health.reconnect_attempts == 3
        with pytest.raises(ExecutionFailed, match="permanently failed"):
            await manager.call_tool("ghost", "echo", {})
    finally:
        await manager.close()


async def test_close_terminates_stdio_children(
    make_stdio_config: Factory, gone: Callable[[int], bool], until: Until
) -> None:
    manager = await McpToolRegistryManager.connect(
        [make_stdio_config("one"), make_stdio_config("two")]
    )
    pids = [await server_pid(manager, "one"), await server_pid(manager, "two")]
    await manager.close()
    await until(lambda: all(gone(p) for p in pids))


async def test_connection_env_and_cwd_reach_the_child(tmp_path: Any) -> None:
    script = tmp_path / "env_server.py"
    script.write_text(
        "import os\n"
        "from mcp.server.mcpserver import MCPServer\n"
        "server = MCPServer('env', log_level='WARNING')\n"
        "@server.tool()\n"
        "def where() -> str:\n"
        "    return os.getcwd() + '|' + os.environ.get('AWAKEN_TEST_VALUE', '')\n"
        "server.run('stdio')\n"
    )
    workdir = tmp_path / "work"
    workdir.mkdir()
    config = McpServerConnectionConfig.stdio(
        "env", sys.executable, [str(script)], env={"AWAKEN_TEST_VALUE": "42"}, cwd=str(workdir)
    )
    connection = McpConnection(config)
    await connection.open()
    try:
        result = await connection.call_tool("where", {})
        assert result["content"][0]["text"] == f"{workdir}|42"
        assert connection.supports("tools")
    finally:
        await connection.close()


async def test_a_server_that_never_answers_times_out(
    tmp_path: Any, until: Until, gone: Callable[[int], bool]
) -> None:
    marker = tmp_path / "pid"
    script = f"import os, time; open({str(marker)!r}, 'w').write(str(os.getpid())); time.sleep(120)"
    config = McpServerConnectionConfig.stdio(
        "mute", sys.executable, ["-c", script], timeout_secs=1, restart_policy={"enabled": False}
    )
    manager = await McpToolRegistryManager.connect([config])
    try:
        assert "timeout: handshake timed out after 1s" in manager.connect_errors()["mute"]
        assert manager.registry().is_empty
    finally:
        await manager.close()
    if marker.exists():  # absent only when the child was stopped before it got that far
        pid = int(marker.read_text())
        await until(lambda: gone(pid))


async def test_manager_connects_a_managed_contract_spec() -> None:
    script = str(Path(__file__).with_name("mcp_demo_server.py"))
    spec = McpServerSpec.stdio("managed", sys.executable, [script])
    async with await McpToolRegistryManager.connect([spec]) as manager:
        assert "mcp__managed__echo" in manager.registry()
        assert manager.servers() == [("managed", "stdio")]
