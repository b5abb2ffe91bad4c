"""``AgentTool``: a delegate agent exposed to the model as the tool ``agent_run_<agent_id>``.

The model passes ``{"prompt": "..."}``; the delegate runs through an :class:`AgentBackend`
(in-process via the resolver for local agents) and its final answer becomes the tool result:
``{"agent_id", "status", "response", "output", "steps"}`` with metadata ``child_run_id``.
A delegate that ends waiting (suspended, input or auth required) makes this call pending with
resume mode ``use_decision_as_tool_result``; failures become error results. A remote backend
that continues remote tasks (A2A) is the exception: the remote task it used is stored in the
parent's state (``DelegateRemoteTasksKey``), the pending call is resumed by replaying it, and
the replay hands the decision to the same remote task — also from a fresh runtime.
"""

from __future__ import annotations

import contextvars
import logging
from typing import Any

import msgspec
from awaken_contract.contract.message import Message
from awaken_contract.contract.progress import ProgressStatus
from awaken_contract.contract.suspension import (
    PendingToolCall,
    ResumeDecisionAction,
    SuspendTicket,
    Suspension,
    ToolCallResume,
    ToolCallResumeMode,
)
from awaken_contract.contract.tool import (
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolOutput,
    ToolResult,
)
from awaken_contract.errors import AwakenError, ExecutionFailed, InvalidArguments, ResolveError
from awaken_contract.state import StateCommand

from awaken_runtime.extensions.delegation.backend import AgentBackend, LocalBackend
from awaken_runtime.extensions.delegation.sink import (
    ProgressForwardingSink,
    current_sub_run_observer,
)
from awaken_runtime.extensions.delegation.types import DelegateRunResult, DelegateStatus
from awaken_runtime.registry.resolved import AgentResolver
from awaken_runtime.state.remote_tasks import DelegateRemoteTasksKey, RemoteTaskRef, RemoteTasks

__all__ = [
    "AGENT_TOOL_PREFIX",
    "MAX_DELEGATION_DEPTH",
    "AgentTool",
    "agent_tool_id",
    "delegate_description",
]

_log = logging.getLogger(__name__)

AGENT_TOOL_PREFIX = "agent_run_"
#: How deep delegated runs may nest (guards against an agent delegating to itself forever).
MAX_DELEGATION_DEPTH = 8

_DEPTH: contextvars.ContextVar[int] = contextvars.ContextVar("awaken_delegation_depth", default=0)

_PARAMETERS = {
    "type": "object",
    "properties": {"prompt": {"type": "string", "description": "The task for the delegate agent."}},
    "required": ["prompt"],
}


def agent_tool_id(agent_id: str) -> str:
    """``agent_run_<agent_id>``."""
    return f"{AGENT_TOOL_PREFIX}{agent_id}"


def delegate_description(agent_id: str, system_prompt: str) -> str:
    """The tool description of a delegate: the first 100 characters of its system prompt."""
    text = system_prompt.strip()[:100]
    return text or f"Delegate a task to the agent '{agent_id}'."


class AgentTool(Tool):
    """Runs the delegate ``agent_id`` with the model's prompt and returns its answer."""

    def __init__(self, agent_id: str, description: str, backend: AgentBackend) -> None:
        self.agent_id = agent_id
        self.tool_id = agent_tool_id(agent_id)
        self.description = description
        self.backend = backend

    @classmethod
    def local(cls, agent_id: str, description: str, resolver: AgentResolver) -> AgentTool:
        """A delegate run in-process, resolved by ``resolver``."""
        return cls(agent_id, description, LocalBackend(resolver))

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(self.tool_id, self.tool_id, self.description).with_parameters(
            _PARAMETERS
        )

    def validate_args(self, args: Any) -> None:
        if not isinstance(args, dict) or "prompt" not in args:
            raise InvalidArguments("missing required field 'prompt'", "prompt")
        if not isinstance(args["prompt"], str):
            raise InvalidArguments("'prompt' must be a string", "prompt")

    def remote_task(self, ctx: ToolCallContext) -> RemoteTaskRef | None:
        """The remote task this delegate used earlier in the current parent run (from state)."""
        if not self.backend.continues_remote_tasks:
            return None
        tasks: RemoteTasks = ctx.state(DelegateRemoteTasksKey) or {}
        ref = tasks.get(self.agent_id)
        if ref is None or ref.parent_run_id != ctx.run_identity.run_id:
            return None
        return ref

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult | ToolOutput:
        resume = ctx.resume_input
        remote = self.remote_task(ctx)
        if resume is not None and remote is not None:
            return await self._delegate(args, ctx, remote=remote, decision=resume)
        if resume is not None:
            if resume.action is ResumeDecisionAction.CANCEL:
                reason = f": {resume.reason}" if resume.reason else ""
                message = f"delegation to {self.agent_id} cancelled{reason}"
                return ToolResult.error(self.tool_id, message)
            return ToolResult.success(self.tool_id, resume.result)
        self.validate_args(args)
        prompt = args["prompt"].strip()
        if not prompt:
            raise InvalidArguments("prompt must not be empty", "prompt")
        return await self._delegate(args, ctx, remote=remote, prompt=prompt)

    async def _delegate(
        self,
        args: Any,
        ctx: ToolCallContext,
        *,
        remote: RemoteTaskRef | None,
        prompt: str | None = None,
        decision: ToolCallResume | None = None,
    ) -> ToolResult | ToolOutput:
        """Run the delegate on ``prompt``, or hand ``decision`` to the interrupted ``remote``
        task; the remote task the backend reports is written to the parent's state."""
        depth = _DEPTH.get()
        if depth >= MAX_DELEGATION_DEPTH:
            raise ExecutionFailed(
                f"delegation depth limit ({MAX_DELEGATION_DEPTH}) reached; "
                f"not delegating to '{self.agent_id}'"
            )
        await ctx.report_progress(ProgressStatus.RUNNING, f"delegating to {self.agent_id}")
        sink = ProgressForwardingSink(ctx.activity_sink, current_sub_run_observer())
        identity = ctx.run_identity
        token = _DEPTH.set(depth + 1)
        try:
            if decision is not None and remote is not None:
                result = await self.backend.resume(
                    self.agent_id, remote, decision, sink, cancellation_token=ctx.cancellation_token
                )
            else:
                # Only backends that continue remote tasks take ``remote_task``.
                continuing = {"remote_task": remote} if self.backend.continues_remote_tasks else {}
                result = await self.backend.execute(
                    self.agent_id,
                    [Message.user(prompt or "")],
                    sink,
                    identity.run_id,
                    ctx.call_id,
                    parent_thread_id=identity.thread_id,
                    cancellation_token=ctx.cancellation_token,
                    **continuing,
                )
        except ResolveError as exc:
            await self._progress(ctx, ProgressStatus.FAILED, f"failed: {exc}")
            raise ExecutionFailed(f"cannot resolve delegate '{self.agent_id}': {exc}") from exc
        except AwakenError as exc:
            await self._progress(ctx, ProgressStatus.FAILED, f"failed: {exc}")
            return ToolResult.error(self.tool_id, f"delegation to {self.agent_id} failed: {exc}")
        finally:
            _DEPTH.reset(token)
        tool_result = await self._to_tool_result(result, args, ctx)
        ref = result.remote_task
        if ref is None or not self.backend.continues_remote_tasks:
            return tool_result
        if ref.parent_run_id != identity.run_id:
            ref = msgspec.structs.replace(ref, parent_run_id=identity.run_id)
        command = StateCommand().update(DelegateRemoteTasksKey, (self.agent_id, ref))
        return ToolOutput.with_command(tool_result, command)

    async def _progress(self, ctx: ToolCallContext, status: ProgressStatus, what: str) -> None:
        await ctx.report_progress(status, f"delegation to {self.agent_id} {what}")

    async def _to_tool_result(
        self, result: DelegateRunResult, args: Any, ctx: ToolCallContext
    ) -> ToolResult:
        status = result.status
        kind = status.kind
        if kind is DelegateStatus.COMPLETED:
            await self._progress(ctx, ProgressStatus.DONE, "completed")
            return ToolResult.success(self.tool_id, result.tool_data()).with_metadata(
                "child_run_id", result.run_id
            )
        if status.is_waiting:
            return await self._pending(result, args, ctx)
        if kind is DelegateStatus.CANCELLED:
            await self._progress(ctx, ProgressStatus.CANCELLED, "cancelled")
            message = f"delegation to {self.agent_id} cancelled"
        elif kind is DelegateStatus.TIMEOUT:
            await self._progress(ctx, ProgressStatus.FAILED, "timed out")
            message = f"delegation to {self.agent_id} timed out"
        else:
            failure = status.message or "unknown error"
            await self._progress(ctx, ProgressStatus.FAILED, f"failed: {failure}")
            message = f"delegation to {self.agent_id} failed: {failure}"
        _log.info("delegate %s ended %s", self.agent_id, status)
        error = ToolResult.error(self.tool_id, message)
        return error.with_metadata("child_run_id", result.run_id)

    async def _pending(
        self, result: DelegateRunResult, args: Any, ctx: ToolCallContext
    ) -> ToolResult:
        status = result.status
        kind = status.kind
        label = {
            DelegateStatus.WAITING_INPUT: ("input_required", "waiting for input"),
            DelegateStatus.WAITING_AUTH: ("auth_required", "waiting for auth"),
        }.get(kind, ("suspended", "suspended"))
        detail = f"{label[1]}: {status.message}" if status.message else label[1]
        await self._progress(ctx, ProgressStatus.PENDING, detail)
        message = f"delegation to {self.agent_id} {detail}"
        suspension_id = (
            f"delegate_run:{result.run_id}" if result.run_id else f"delegate_tool:{ctx.call_id}"
        )
        ticket = SuspendTicket(
            suspension=Suspension(
                id=suspension_id,
                action=f"agent_delegate:{label[0]}",
                message=message,
                parameters={
                    "agent_id": self.agent_id,
                    "backend_status": str(status),
                    "child_run_id": result.run_id,
                    "tool_call_id": ctx.call_id,
                },
            ),
            pending=PendingToolCall(id=ctx.call_id, name=self.tool_id, arguments=args),
            resume_mode=(
                ToolCallResumeMode.REPLAY_TOOL_CALL
                if result.remote_task is not None and self.backend.continues_remote_tasks
                else ToolCallResumeMode.USE_DECISION_AS_TOOL_RESULT
            ),
        )
        pending = ToolResult.suspended_with(self.tool_id, message, ticket)
        pending.data = result.tool_data()
        return pending.with_metadata("child_run_id", result.run_id)

    def __repr__(self) -> str:
        return f"AgentTool({self.tool_id!r}, backend={type(self.backend).__name__})"
