"""Tool executors: how a step's allowed tool calls run (one by one, or concurrently).

* :class:`SequentialToolExecutor` (default) — one call at a time; the loop refreshes the state
  snapshot between calls and stops at the first suspended result.
* :class:`ParallelToolExecutor` — every call concurrently on one frozen snapshot; never stops
  early. ``batch_approval()`` replays decisions once every suspended call has one
  (:attr:`DecisionReplayPolicy.BATCH_ALL_SUSPENDED`), ``streaming()`` replays each decision as
  it arrives (:attr:`DecisionReplayPolicy.IMMEDIATE`).

:func:`execute_single_tool` runs one call: lookup, ``validate_args``, ``execute``. It never
raises for tool failures — a missing tool, invalid arguments or a :class:`ToolError` become an
error :class:`ToolResult` the model sees.
"""

from __future__ import annotations

import abc
import asyncio
import enum
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from awaken_contract.contract.message import ToolCall
from awaken_contract.contract.tool import (
    Tool,
    ToolCallContext,
    ToolExecutionMode,
    ToolOutput,
    ToolResult,
)
from awaken_contract.errors import ToolError

__all__ = [
    "DecisionReplayPolicy",
    "ParallelToolExecutor",
    "SequentialToolExecutor",
    "ToolExecutionResult",
    "ToolExecutor",
    "execute_single_tool",
    "executor_for_mode",
]

_log = logging.getLogger(__name__)


class DecisionReplayPolicy(enum.StrEnum):
    """When decisions for suspended calls are replayed."""

    IMMEDIATE = "immediate"
    BATCH_ALL_SUSPENDED = "batch_all_suspended"


class ToolExecutionResult:
    """One executed call: the call and what the tool produced."""

    __slots__ = ("call", "output")

    def __init__(self, call: ToolCall, output: ToolOutput) -> None:
        self.call = call
        self.output = output

    @property
    def result(self) -> ToolResult:
        """The tool's result."""
        return self.output.result

    def __repr__(self) -> str:
        return f"ToolExecutionResult(call={self.call.id!r}, status={self.result.status})"


async def execute_single_tool(
    tools: Mapping[str, Tool], call: ToolCall, ctx: ToolCallContext, args: Any = None
) -> ToolOutput:
    """Look up, validate and execute one call; failures become error results.

    ``args`` replaces the call's arguments when given (a decision passed to the tool).
    """
    name = call.name
    tool = tools.get(name)
    if tool is None:
        return ToolOutput(ToolResult.error(name, f"tool '{name}' not found"))
    arguments = call.arguments if args is None else args
    try:
        tool.validate_args(arguments)
        return ToolOutput.of(await tool.execute(arguments, ctx))
    except ToolError as exc:
        return ToolOutput(ToolResult.error(name, str(exc)))
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        _log.exception("tool %s raised", name)
        return ToolOutput(ToolResult.error(name, f"Execution failed: {exc}"))


class ToolExecutor(abc.ABC):
    """Runs a batch of allowed tool calls (the book's ``ToolExecutor`` trait)."""

    mode: ToolExecutionMode = ToolExecutionMode.SEQUENTIAL

    @abc.abstractmethod
    async def execute(
        self,
        tools: Mapping[str, Tool],
        calls: Sequence[ToolCall],
        base_ctx: ToolCallContext,
    ) -> list[ToolExecutionResult]:
        """Execute ``calls``; each gets a copy of ``base_ctx`` with its call id and name."""

    @abc.abstractmethod
    def name(self) -> str:
        """``sequential``, ``parallel_batch_approval`` or ``parallel_streaming``."""

    def requires_incremental_state(self) -> bool:
        """True when each call must see the state left by the previous one."""
        return False

    def decision_replay_policy(self) -> DecisionReplayPolicy:
        """When decisions for this executor's suspended calls are replayed."""
        return DecisionReplayPolicy.IMMEDIATE


def _ctx_for(base: ToolCallContext, call: ToolCall) -> ToolCallContext:
    return ToolCallContext(
        call.id,
        call.name,
        base.run_identity,
        agent_spec=base.agent_spec,
        snapshot=base.snapshot,
        activity_sink=base.activity_sink,
        cancellation_token=base.cancellation_token,
        profile_store=base.profile_store,
    )


class SequentialToolExecutor(ToolExecutor):
    """One call at a time; stops after the first suspended result."""

    mode = ToolExecutionMode.SEQUENTIAL

    async def execute(
        self,
        tools: Mapping[str, Tool],
        calls: Sequence[ToolCall],
        base_ctx: ToolCallContext,
    ) -> list[ToolExecutionResult]:
        results: list[ToolExecutionResult] = []
        for call in calls:
            output = await execute_single_tool(tools, call, _ctx_for(base_ctx, call))
            results.append(ToolExecutionResult(call, output))
            if output.result.is_pending:
                break
        return results

    def name(self) -> str:
        return "sequential"

    def requires_incremental_state(self) -> bool:
        return True


class ParallelToolExecutor(ToolExecutor):
    """All calls concurrently on one frozen snapshot; results in call order."""

    def __init__(
        self, replay_policy: DecisionReplayPolicy = DecisionReplayPolicy.IMMEDIATE
    ) -> None:
        self._policy = replay_policy
        self.mode = (
            ToolExecutionMode.PARALLEL_BATCH_APPROVAL
            if replay_policy is DecisionReplayPolicy.BATCH_ALL_SUSPENDED
            else ToolExecutionMode.PARALLEL_STREAMING
        )

    @classmethod
    def batch_approval(cls) -> ParallelToolExecutor:
        """Replay decisions once every suspended call has one."""
        return cls(DecisionReplayPolicy.BATCH_ALL_SUSPENDED)

    @classmethod
    def streaming(cls) -> ParallelToolExecutor:
        """Replay each decision as soon as it arrives."""
        return cls(DecisionReplayPolicy.IMMEDIATE)

    async def execute(
        self,
        tools: Mapping[str, Tool],
        calls: Sequence[ToolCall],
        base_ctx: ToolCallContext,
    ) -> list[ToolExecutionResult]:
        if len(calls) == 1:
            call = calls[0]
            return [
                ToolExecutionResult(
                    call, await execute_single_tool(tools, call, _ctx_for(base_ctx, call))
                )
            ]
        outputs = await asyncio.gather(
            *(execute_single_tool(tools, call, _ctx_for(base_ctx, call)) for call in calls)
        )
        return [ToolExecutionResult(c, o) for c, o in zip(calls, outputs, strict=True)]

    def name(self) -> str:
        if self._policy is DecisionReplayPolicy.BATCH_ALL_SUSPENDED:
            return "parallel_batch_approval"
        return "parallel_streaming"

    def decision_replay_policy(self) -> DecisionReplayPolicy:
        return self._policy


def executor_for_mode(mode: ToolExecutionMode) -> ToolExecutor:
    """The executor implementing ``mode``."""
    if mode is ToolExecutionMode.PARALLEL_BATCH_APPROVAL:
        return ParallelToolExecutor.batch_approval()
    if mode is ToolExecutionMode.PARALLEL_STREAMING:
        return ParallelToolExecutor.streaming()
    return SequentialToolExecutor()
