"""Pure units of the MCP extension: config, tool ids, result conversion, progress."""

from __future__ import annotations

import json

import pytest
from awaken_contract.contract.event import ActivitySnapshot
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.tool import ToolCallContext, ToolStatus
from awaken_contract.errors import ExecutionFailed, ToolNotFound
from awaken_contract.registry_spec import McpServerSpec
from awaken_ext_mcp import (
    McpError,
    McpServerConnectionConfig,
    McpTransport,
    McpTransportKind,
    ProgressForwarder,
    call_result_to_tool_result,
    descriptor_from_definition,
    mcp_tool_id,
    normalize_progress,
    sanitize_component,
)
from pydantic import ValidationError


@pytest.mark.parametrize(
    ("server", "tool", "expected"),
    [
        ("my_server", "my_tool", "mcp__my_server__my_tool"),
        ("my-server", "my.tool", "mcp__my_server__my_tool"),
        ("a--b", "c..d", "mcp__a_b__c_d"),
        ("-server-", "-tool-", "mcp__server__tool"),
        ("srv", "tool_😀", "mcp__srv__tool"),
        ("my server", "my  tool", "mcp__my_server__my_tool"),
        ("Srv", "CamelTool", "mcp__Srv__CamelTool"),
    ],
)
def test_tool_id_sanitising(server: str, tool: str, expected: str) -> None:
    assert mcp_tool_id(server, tool) == expected


@pytest.mark.parametrize("raw", ["---", "", "😀", "__"])
def test_tool_id_component_that_sanitises_to_nothing_is_an_error(raw: str) -> None:
    with pytest.raises(McpError, match="invalid tool id component after sanitization"):
        sanitize_component(raw)


def test_config_constructors_and_json() -> None:
    stdio = McpServerConnectionConfig.stdio("fs", "npx", ["-y", "@mcp/fs"])
    assert stdio.transport is McpTransportKind.STDIO and stdio.args == ["-y", "@mcp/fs"]
    assert stdio.timeout_secs == 30
    http = McpServerConnectionConfig.http("remote", " http://localhost:8080/mcp ")
    assert http.url == "http://localhost:8080/mcp"
    sse = McpServerConnectionConfig.sse("legacy", "http://localhost:8080/sse").with_header(
        "Authorization", "Bearer t"
    )
    assert sse.headers == {"Authorization": "Bearer t"}
    parsed = McpServerConnectionConfig.model_validate_json(
        json.dumps(
            {
                "name": "fs",
                "transport": "stdio",
                "command": "npx",
                "env": {"LOG": "warn"},
                "cwd": "/tmp",
                "timeout_secs": 0,
            }
        )
    )
    assert parsed.env == {"LOG": "warn"} and parsed.cwd == "/tmp" and parsed.timeout_secs == 1


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "  ", "transport": "stdio", "command": "x"}, "server name must be non-empty"),
        ({"name": "a", "transport": "stdio"}, "requires a non-blank 'command'"),
        ({"name": "a", "transport": "http"}, "requires a non-blank 'url'"),
        ({"name": "a", "transport": "http", "url": "ftp://x"}, "http:// or https://"),
        ({"name": "a", "transport": "carrier-pigeon", "url": "http://x"}, "transport"),
        ({"name": "a", "transport": "stdio", "command": "x", "bogus": 1}, "bogus"),
    ],
)
def test_config_validation_errors(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        McpServerConnectionConfig.model_validate(data)


def test_reconnect_backoff_follows_the_restart_policy() -> None:
    config = McpServerConnectionConfig.stdio("a", "x")
    assert [config.reconnect_delay(n) for n in range(6)] == [1, 2, 4, 8, 16, 30]
    assert config.max_reconnect_attempts == 5


def test_config_from_managed_spec() -> None:
    spec = McpServerSpec.stdio("files", "python", ["server.py"])
    config = McpServerConnectionConfig.from_spec(spec)
    assert config.name == "files" and config.command == "python"
    assert config.transport is McpTransportKind.STDIO


def test_descriptor_from_definition() -> None:
    desc = descriptor_from_definition(
        "my-server",
        {"name": "read.file", "title": "Read File", "inputSchema": {"type": "object"}},
        McpTransportKind.HTTP,
    )
    assert desc.id == "mcp__my_server__read_file" and desc.name == "Read File"
    assert desc.description == "MCP tool read.file"
    assert desc.metadata == {
        "mcp.server": "my-server",
        "mcp.tool": "read.file",
        "mcp.transport": "http",
    }
    bare = descriptor_from_definition("s", {"name": "t", "group": "files"}, McpTransportKind.STDIO)
    assert bare.parameters == {"type": "object"} and bare.category == "files"


def _convert(result: dict[str, object]):  # type: ignore[no-untyped-def]
    return call_result_to_tool_result(result, tool_id="mcp__s__t", server="s", tool="t")


def test_plain_text_results_are_joined() -> None:
    out = _convert({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]})
    assert out.status is ToolStatus.SUCCESS and out.data == "a\nb"
    assert out.tool_name == "mcp__s__t"
    assert out.metadata["mcp.server"] == "s" and out.metadata["mcp.tool"] == "t"
    assert out.metadata["mcp.result.content"][0]["text"] == "a"
    assert _convert({"content": []}).data == ""
    assert "mcp.result.content" not in _convert({"content": []}).metadata


def test_structured_content_is_kept_in_metadata() -> None:
    out = _convert(
        {"content": [{"type": "text", "text": '{"n": 1}'}], "structuredContent": {"n": 1}}
    )
    assert out.data == '{"n": 1}'
    assert out.metadata["mcp.result.structuredContent"] == {"n": 1}


def test_non_text_results_keep_the_mcp_json() -> None:
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    resource = {"type": "resource", "resource": {"uri": "file:///a", "text": "x"}}
    out = _convert({"content": [{"type": "text", "text": "cap"}, image, resource]})
    assert out.data == {
        "content": [{"type": "text", "text": "cap"}, image, resource],
    }
    annotated = _convert(
        {"content": [{"type": "text", "text": "x", "annotations": {"priority": 1}}]}
    )
    assert isinstance(annotated.data, dict)


def test_is_error_results_raise_tool_errors() -> None:
    with pytest.raises(ExecutionFailed, match="Server error: bad\nworse"):
        _convert(
            {
                "content": [{"type": "text", "text": "bad"}, {"type": "text", "text": "worse"}],
                "isError": True,
            }
        )
    with pytest.raises(ExecutionFailed, match=r'Server error: \{"code":7\}'):
        _convert({"content": [], "structuredContent": {"code": 7}, "isError": True})
    with pytest.raises(ExecutionFailed, match="Server error: Unknown error"):
        _convert({"content": [], "isError": True})
    with pytest.raises(ToolNotFound):
        _convert({"content": [{"type": "text", "text": "Unknown tool: t"}], "isError": True})


def test_normalize_progress() -> None:
    assert normalize_progress(5, 10) == 0.5
    assert normalize_progress(15, 10) == 1.0
    assert normalize_progress(-1, 10) == 0.0
    assert normalize_progress(3, None) == 3
    assert normalize_progress(3, 0) == 3
    assert normalize_progress(float("nan"), 10) is None


async def test_progress_forwarder_reports_tool_progress_and_flushes_the_last_update() -> None:
    sink = VecEventSink()
    ctx = ToolCallContext("call-1", "mcp__s__t", RunIdentity.for_test(), activity_sink=sink)
    forward = ProgressForwarder(ctx)
    await forward(1, 1000, "go")  # first update: always sent
    await forward(2, 1000, "go")  # tiny change, same message, right away: throttled
    await forward(float("inf"), 1000, "go")  # non-finite: dropped
    await forward.flush()  # the throttled one is delivered after the response
    events = [e for e in sink.take() if isinstance(e, ActivitySnapshot)]
    assert [e.content["progress"] for e in events] == [0.001, 0.002]
    assert events[0].content["status"] == "running" and events[0].content["call_id"] == "call-1"
    assert events[0].activity_type == "tool-call-progress"


def test_connection_config_is_the_contract_spec_with_reconnects_on() -> None:
    spec = McpServerSpec.sse("legacy", "http://localhost:9000/sse").with_header("X-Key", "k")
    config = McpServerConnectionConfig.from_spec(spec)
    assert isinstance(config, McpServerSpec) and McpTransportKind is McpTransport
    assert config.headers == {"X-Key": "k"} and config.transport is McpTransport.SSE
    assert not config.restart_policy.enabled  # a managed spec keeps its own policy
    assert McpServerConnectionConfig.sse("legacy", "http://x/sse").restart_policy.enabled
    with pytest.raises(ValidationError, match="http:// or https://"):
        McpServerSpec.http("remote", "localhost:8080/mcp")
