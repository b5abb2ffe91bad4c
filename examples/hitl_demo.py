"""Human in the loop, end to end, without an LLM account.

A stand-in model asks to deploy a service. The ``deploy`` tool parks the call until a human
decides. The run is checkpointed ``waiting`` in a SQLite file; a *fresh* runtime over the same
file (as an approval service in another process would) approves it and the run finishes under
the same run id. Then the same agent runs with ``run_to_completion``, which answers approvals
inline, and a rejected deployment shows what the model reads after a cancel decision.

Run: ``uv run python examples/hitl_demo.py``
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from awaken import AgentRuntime, AgentRuntimeBuilder, AgentSpec, ModelSpec, RunRequest
from awaken.contract.event import ToolCallDone
from awaken.contract.executor import InferenceRequest, LlmExecutor
from awaken.contract.inference import StreamResult
from awaken.contract.lifecycle import RunStatus, TerminationKind
from awaken.contract.message import Message, Role, ToolCall
from awaken.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallResume,
    ToolCallResumeMode,
)
from awaken.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken.engine import text_step, tool_step
from awaken.stores import SqliteStore


class Deploy(Tool):
    """Asks a human before deploying; deploys when replayed with an approval."""

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("deploy", "Deploy", "Deploy a service").with_parameters(
            {
                "type": "object",
                "properties": {"service": {"type": "string"}},
                "required": ["service"],
            }
        )

    async def execute(self, args: dict[str, Any], ctx: ToolCallContext) -> ToolResult:
        if ctx.resume_input is None:
            ticket = SuspendTicket(
                suspension=Suspension(
                    id=f"approve-{ctx.call_id}",
                    action="confirm",
                    message=f"Deploy {args['service']} to production?",
                    parameters=args,
                ),
                pending=PendingToolCall(ctx.call_id, "deploy", args),
                resume_mode=ToolCallResumeMode.REPLAY_TOOL_CALL,
            )
            return ToolResult.suspended_with("deploy", "waiting for approval", ticket)
        print(f"    [deploy] deploying {args['service']}")
        return ToolResult.success("deploy", {"deployed": args["service"]})


class StandInModel(LlmExecutor):
    """Stands in for an LLM: asks for a deployment, then reports the tool's answer."""

    async def execute(self, request: InferenceRequest) -> StreamResult:
        last = request.messages[-1]
        if last.role is Role.TOOL:
            return text_step(f"Tool said: {last.text()}")
        return tool_step([ToolCall("c1", "deploy", {"service": last.text().split()[-1]})])

    def name(self) -> str:
        return "stand-in"


def build(store: SqliteStore) -> AgentRuntime:
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("ops").with_model("m").with_system_prompt("You deploy."))
        .with_tool("deploy", Deploy())
        .with_provider("stand-in", StandInModel())
        .with_model("m", ModelSpec(id="m", provider="stand-in", model="stand-in-1"))
        .with_thread_run_store(store)
        .build()
    )


async def main() -> None:
    db = Path(tempfile.mkdtemp()) / "hitl.db"

    print("1. the model asks to deploy; the run parks and returns")
    async with SqliteStore(db) as store:
        result = await build(store).run(
            RunRequest("t1", [Message.user("please deploy api")]), wait_for_decisions=False
        )
        record = await store.load_run(result.run_id)
        assert record is not None and record.waiting is not None
        assert result.termination.type is TerminationKind.SUSPENDED
        assert record.status is RunStatus.WAITING
        ticket = record.waiting.tickets[0]
        print(f"   -> {result.termination.type}; run {record.status} on {ticket.ticket_id}")
        print(f"      the human sees: {ticket.tool_name}({ticket.arguments})")

    print("2. a fresh runtime over the same file approves; the same run finishes")
    async with SqliteStore(db) as store:
        resumed = await build(store).run(
            RunRequest("t1", []).with_decision(ticket.ticket_id, ToolCallResume.resume(True))
        )
        assert resumed.run_id == result.run_id
        assert resumed.termination.type is TerminationKind.NATURAL_END
        print(f"   -> {resumed.termination.type}: {resumed.response}")

        print("3. run_to_completion answers approvals inline (here: reject web)")

        def decide(done: ToolCallDone) -> ToolCallResume:
            suspension = done.result.suspension
            service = suspension.suspension.parameters["service"] if suspension else ""
            if service == "web":
                return ToolCallResume.cancel("web is frozen this week")
            return ToolCallResume.resume(True)

        runtime = build(store)
        for service in ("worker", "web"):
            final = await runtime.run_to_completion(
                RunRequest(f"t-{service}", [Message.user(f"please deploy {service}")]),
                decide=decide,
            )
            print(f"   -> {service}: {final.response}")
        assert "cancelled" in final.response


if __name__ == "__main__":
    asyncio.run(main())
