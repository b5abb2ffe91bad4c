"""The server's agents as MCP tools: one tool per local agent, ``{"message": str}`` in,
the agent's final text out; progress is reported as MCP logging notifications."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from awaken_contract.contract.event import (
    AgentEvent,
    Error,
    InferenceComplete,
    RunFinish,
    StepStart,
    TextDelta,
    ToolCallDone,
    ToolCallStart,
)
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import ToolStatus
from awaken_contract.errors import AwakenError
from awaken_contract.ids import new_id
from awaken_contract.runtime import AgentRuntimeApi

from awaken_server.protocols.agent_directory import agent_spec, local_agent_ids

__all__ = [
    "MESSAGE_REQUIRED",
    "AgentCallResult",
    "AgentToolInfo",
    "Log",
    "agent_tools",
    "call_agent",
    "tool_description",
]

MESSAGE_REQUIRED = "'message' parameter is required and must be non-empty"
_DESCRIPTION_LIMIT = 200

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "message": {"type": "string", "description": "The user message to send to the agent"}
    },
    "required": ["message"],
}

Log = Callable[[str, str], Awaitable[None]]
"""``log(level, text)``: send one logging notification."""


class AgentToolInfo:
    """Name, description and input schema of one agent tool."""

    __slots__ = ("description", "name")

    def __init__(self, name: str, description: str) -> None:
        self.name = name
        self.description = description

    @property
    def input_schema(self) -> dict[str, Any]:
        """``{"message": string}`` (required)."""
        return INPUT_SCHEMA


def tool_description(agent_id: str, system_prompt: str | None) -> str:
    """The agent's system prompt (cut to 200 characters + ``…``), else ``Awaken agent: <id>``."""
    prompt = (system_prompt or "").strip()
    if not prompt:
        return f"Awaken agent: {agent_id}"
    if len(prompt) > _DESCRIPTION_LIMIT:
        return prompt[:_DESCRIPTION_LIMIT] + "\u2026"
    return prompt


def agent_tools(runtime: AgentRuntimeApi) -> list[AgentToolInfo]:
    """One tool per local agent of ``runtime``, sorted by id."""
    tools = []
    for agent_id in local_agent_ids(runtime):
        spec = agent_spec(runtime, agent_id)
        tools.append(
            AgentToolInfo(
                agent_id, tool_description(agent_id, spec.system_prompt if spec else None)
            )
        )
    return tools


class AgentCallResult:
    """Text of a tool call and whether it is an error."""

    __slots__ = ("is_error", "text")

    def __init__(self, text: str, is_error: bool) -> None:
        self.text = text
        self.is_error = is_error


class _LoggingSink(EventSink):
    """Collects the run's text and reports its progress through ``log``."""

    def __init__(self, log: Log) -> None:
        self.log = log
        self.text: list[str] = []
        self.steps = 0
        self.error: str | None = None

    async def emit(self, event: AgentEvent) -> None:
        if isinstance(event, TextDelta):
            self.text.append(event.delta)
        elif isinstance(event, StepStart):
            self.steps += 1
            await self.log("info", f"step {self.steps}")
        elif isinstance(event, ToolCallStart):
            await self.log("info", f"calling tool: {event.name}")
        elif isinstance(event, ToolCallDone):
            outcome = "success" if event.result.status is ToolStatus.SUCCESS else "error"
            await self.log("info", f"tool {event.result.tool_name} completed: {outcome}")
        elif isinstance(event, InferenceComplete):
            await self.log(
                "debug", f"inference complete: model={event.model} duration={event.duration_ms}ms"
            )
        elif isinstance(event, Error):
            self.error = event.message
        elif isinstance(event, RunFinish) and event.termination.type is TerminationKind.ERROR:
            self.error = self.error or event.termination.message or "run failed"


async def call_agent(
    runtime: AgentRuntimeApi, name: str, arguments: Any, log: Log
) -> AgentCallResult:
    """Run agent ``name`` on ``arguments["message"]`` in a new thread ``mcp-<uuid v7>``."""
    message = arguments.get("message") if isinstance(arguments, dict) else None
    if not isinstance(message, str) or not message.strip():
        return AgentCallResult(MESSAGE_REQUIRED, True)
    if name not in local_agent_ids(runtime):
        return AgentCallResult(f"unknown tool: {name}", True)
    sink = _LoggingSink(log)
    request = RunRequest(f"mcp-{new_id()}", [Message.user(message)]).with_agent_id(name)
    await log("info", "starting agent run")
    failure: str | None = None
    try:
        await runtime.run(request, sink, wait_for_decisions=False)
    except AwakenError as exc:
        failure = str(exc)
    failure = failure or sink.error
    text = "".join(sink.text)
    if failure is not None:
        await log("error", f"agent run failed: {failure}")
        if not text:
            return AgentCallResult(f"agent run failed: {failure}", True)
        return AgentCallResult(text, False)
    await log("notice", "completed")
    return AgentCallResult(text or "(no response)", False)
