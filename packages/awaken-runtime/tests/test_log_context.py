"""Every log line of a run carries its run_id, thread_id and agent_id (JSON formatter)."""

import io
import json
import logging
from typing import Any

from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.log_context import JsonLogFormatter, RunContextFilter, current_run_ids
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, tool_step

_log = logging.getLogger("test.log_context.tool")


class Chatty(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("chatty", "chatty", "Logs a line")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        _log.warning("working on %s", args["what"], extra={"step": "tool"})
        return ToolResult.success("chatty", "ok")


async def test_log_lines_of_a_run_carry_its_ids() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RunContextFilter())
    handler.setFormatter(JsonLogFormatter())
    _log.addHandler(handler)
    try:
        runtime = (
            AgentRuntimeBuilder()
            .with_agent_spec(AgentSpec("helper").with_model("m"))
            .with_tool("chatty", Chatty())
            .with_provider(
                "llm", ScriptedLlm([tool_step([ToolCall("c1", "chatty", {"what": "x"})])])
            )
            .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
            .build()
        )
        result = await runtime.run(
            RunRequest("thread-9", [Message.user("go")]).with_agent_id("helper")
        )
        _log.warning("after the run")
    finally:
        _log.removeHandler(handler)
    inside, outside = (json.loads(line) for line in stream.getvalue().splitlines())
    assert inside["message"] == "working on x" and inside["level"] == "WARNING"
    assert (inside["run_id"], inside["thread_id"], inside["agent_id"]) == (
        result.run_id,
        "thread-9",
        "helper",
    )
    assert inside["step"] == "tool" and inside["logger"] == "test.log_context.tool"
    assert "run_id" not in outside
    assert current_run_ids() == ("", "", "")
