"""The offline demo model: a scripted, clearly labelled stand-in used when no provider key is set.

``awaken serve`` with no configuration and no API key serves the agent ``assistant`` on this
model so that every route works offline. It is NOT a language model: it reads the last message
and follows a fixed script, always calling one of the demo tools first:

- "wait 3" / "sleep 3"        → ``demo_wait`` (sleeps reporting progress; watch heartbeats, cancel)
- "poll 3"                    → ``demo_poll`` (the same wait, declared idempotent: after a crash
  mid-call it is simply run again instead of parking for a human)
- "approve …" / "confirm …"   → ``demo_approval`` (suspends until a human decision arrives)
- "weather in Paris"          → ``get_weather`` (canned forecast)
- anything else               → ``word_count``

then answers from the tool result, every text prefixed with ``[offline demo model]``. A
"think 2" anywhere in the latest user message makes every answer take that long (a slow model).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from awaken_contract.contract.content import ContentBlock
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StopReason, StreamResult, TokenUsage
from awaken_contract.contract.message import Role, ToolCall
from awaken_contract.contract.progress import ProgressStatus
from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallResumeMode,
)
from awaken_contract.contract.tool import (
    InvalidArguments,
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolResult,
)
from awaken_contract.ids import new_id

__all__ = [
    "DEMO_LABEL",
    "DEMO_MODEL_ID",
    "DEMO_PROVIDER_ID",
    "DemoApprovalTool",
    "DemoLlm",
    "DemoPollTool",
    "DemoWaitTool",
    "GetWeatherTool",
    "WordCountTool",
    "demo_tools",
]

DEMO_LABEL = "[offline demo model]"
DEMO_PROVIDER_ID = "demo"
DEMO_MODEL_ID = "demo"
_HINT = (
    "Set OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY, GEMINI_API_KEY or LLM_BASE_URL "
    "to use a real model."
)
_WAIT = re.compile(r"\b(?:wait|sleep)\s+(\d+(?:\.\d+)?)")
_POLL = re.compile(r"\bpoll\s+(\d+(?:\.\d+)?)")
_THINK = re.compile(r"\bthink\s+(\d+(?:\.\d+)?)")
_CITY = re.compile(r"\b(?:in|for|at)\s+([A-Za-z][A-Za-z .'-]{0,40})")


def _usage() -> TokenUsage:
    return TokenUsage(prompt_tokens=0, completion_tokens=0, total_tokens=0)


class DemoLlm(LlmExecutor):
    """A scripted executor: first a demo tool call, then an answer built from its result."""

    def name(self) -> str:
        """``"demo"``."""
        return "demo"

    async def execute(self, request: InferenceRequest) -> StreamResult:
        """Follow the script for the last message of the prompt."""
        last = next((m for m in reversed(request.messages) if m.role is not Role.SYSTEM), None)
        user = next((m for m in reversed(request.messages) if m.role is Role.USER), None)
        think = _THINK.search(user.text().lower()) if user is not None else None
        if think is not None:
            await asyncio.sleep(float(think.group(1)))
        if last is None or last.role is Role.TOOL or last.role is Role.ASSISTANT:
            return self._answer(last.text() if last is not None else "")
        return self._tool_call(last.text())

    def _answer(self, tool_text: str) -> StreamResult:
        text = f"{DEMO_LABEL} The demo tool answered: {tool_text} {_HINT}"
        return StreamResult(
            content=[ContentBlock.text(text)],
            usage=_usage(),
            stop_reason=StopReason.END_TURN,
        )

    def _tool_call(self, prompt: str) -> StreamResult:
        lowered = prompt.lower()
        name: str
        arguments: dict[str, Any]
        if match := _WAIT.search(lowered):
            name, arguments = "demo_wait", {"seconds": float(match.group(1))}
        elif match := _POLL.search(lowered):
            name, arguments = "demo_poll", {"seconds": float(match.group(1))}
        elif "approv" in lowered or "confirm" in lowered:
            name, arguments = "demo_approval", {"action": prompt.strip()[:200]}
        elif "weather" in lowered:
            city_match = _CITY.search(prompt)
            city = city_match.group(1).strip(" .?!") if city_match else "Tokyo"
            name, arguments = "get_weather", {"city": city}
        else:
            name, arguments = "word_count", {"text": prompt}
        intro = f"{DEMO_LABEL} Calling the demo tool `{name}`. "
        return StreamResult(
            content=[ContentBlock.text(intro)],
            tool_calls=[ToolCall(f"call_{new_id()}", name, arguments)],
            usage=_usage(),
            stop_reason=StopReason.TOOL_USE,
        )


def _object_schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


class GetWeatherTool(Tool):
    """A canned weather report (demo)."""

    def descriptor(self) -> ToolDescriptor:
        return (
            ToolDescriptor("get_weather", "Get Weather", "Weather for a city (demo, canned)")
            .with_parameters(_object_schema({"city": {"type": "string"}}, ["city"]))
            .with_idempotent()
        )

    def validate_args(self, args: Any) -> None:
        if not isinstance(args, dict) or not isinstance(args.get("city"), str):
            raise InvalidArguments("expected {'city': string}")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        city = args["city"]
        return ToolResult.success("get_weather", {"city": city, "forecast": f"sunny in {city}"})


class WordCountTool(Tool):
    """Counts the words of a text (demo)."""

    def descriptor(self) -> ToolDescriptor:
        return (
            ToolDescriptor("word_count", "Word Count", "Count the words of a text")
            .with_parameters(_object_schema({"text": {"type": "string"}}, ["text"]))
            .with_idempotent()
        )

    def validate_args(self, args: Any) -> None:
        if not isinstance(args, dict) or not isinstance(args.get("text"), str):
            raise InvalidArguments("expected {'text': string}")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("word_count", {"words": len(args["text"].split())})


class DemoWaitTool(Tool):
    """Sleeps for ``seconds`` (demo; cancellable). Shows heartbeats, cancel and durability."""

    max_seconds = 3600.0

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("demo_wait", "Wait", "Wait for a number of seconds").with_parameters(
            _object_schema({"seconds": {"type": "number", "minimum": 0}}, ["seconds"])
        )

    def validate_args(self, args: Any) -> None:
        seconds = args.get("seconds") if isinstance(args, dict) else None
        if not isinstance(seconds, int | float) or not 0 <= seconds <= self.max_seconds:
            raise InvalidArguments(f"expected {{'seconds': 0..{self.max_seconds:g}}}")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        seconds = float(args["seconds"])
        token = ctx.cancellation_token
        if token is not None:
            try:
                await token.race(self._wait(seconds, ctx))
            except asyncio.CancelledError:
                if not token.is_cancelled:
                    raise  # the task itself is being cancelled (e.g. shutdown)
                return ToolResult.error("demo_wait", "cancelled")
        else:
            await self._wait(seconds, ctx)
        return ToolResult.success("demo_wait", {"waited_seconds": seconds})

    @staticmethod
    async def _wait(seconds: float, ctx: ToolCallContext) -> None:
        """Sleep ``seconds``, reporting progress about once a second (UIs show a bar)."""
        waited = 0.0
        await ctx.report_progress(ProgressStatus.RUNNING, f"waiting {seconds:g}s", 0.0)
        while waited < seconds:
            step = min(1.0, seconds - waited)
            await asyncio.sleep(step)
            waited += step
            fraction = waited / seconds
            message = f"waited {waited:g} of {seconds:g}s"
            await ctx.report_progress(ProgressStatus.RUNNING, message, fraction)


class DemoPollTool(DemoWaitTool):
    """``demo_wait`` declared idempotent (waiting twice is harmless): re-run after a crash."""

    def descriptor(self) -> ToolDescriptor:
        return (
            ToolDescriptor("demo_poll", "Poll", "Wait for a number of seconds (idempotent)")
            .with_parameters(
                _object_schema({"seconds": {"type": "number", "minimum": 0}}, ["seconds"])
            )
            .with_idempotent()
        )


class DemoApprovalTool(Tool):
    """Suspends until a human approves or denies (demo of HITL over HTTP).

    Decide with ``POST /v1/runs/:id/decision`` ``{"toolCallId": ..., "action": "resume",
    "payload": {"approved": true}}``; the decision's payload becomes the tool result.
    """

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(
            "demo_approval", "Ask Approval", "Ask a human to approve an action"
        ).with_parameters(_object_schema({"action": {"type": "string"}}, ["action"]))

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        if ctx.resume_input is not None:
            return ToolResult.success("demo_approval", {"decision": ctx.resume_input.result})
        ticket = SuspendTicket(
            suspension=Suspension(
                id=f"approve_{ctx.call_id}",
                action="confirm",
                message=f"Approve: {args.get('action', '') if isinstance(args, dict) else ''}",
                parameters=args,
            ),
            pending=PendingToolCall(id=ctx.call_id, name="demo_approval", arguments=args),
            resume_mode=ToolCallResumeMode.REPLAY_TOOL_CALL,
        )
        return ToolResult.suspended_with("demo_approval", "waiting for approval", ticket)


def demo_tools() -> dict[str, Tool]:
    """The demo tools by id."""
    tools: list[Tool] = [
        GetWeatherTool(),
        WordCountTool(),
        DemoWaitTool(),
        DemoPollTool(),
        DemoApprovalTool(),
    ]
    return {t.descriptor().id: t for t in tools}
