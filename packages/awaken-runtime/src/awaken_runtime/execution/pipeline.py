"""The per-step tool pipeline: interception, execution, completion, resume replay.

For every tool call, in model order:

1. **Interception** — tool-gate hooks run first; when none decides, the BeforeToolExecute phase
   runs (hooks may schedule :class:`ToolInterceptAction`). The winning decision follows the
   priority Block > Suspend > SetResult.
2. **Block** fails the call with the reason (the run then ends ``Blocked``; later calls are
   backfilled as interrupted). **Suspend** parks the call (``tool_call_done`` with outcome
   ``suspended``). **SetResult** completes the call with the given result without executing it.
3. **Execution** of allowed calls — one at a time with a fresh snapshot each (sequential;
   stops after the first suspended result) or concurrently on one frozen snapshot (parallel;
   the tools' state commands must not both write an Exclusive key). In parallel modes a call
   that a gate blocks or suspends while earlier calls of the step are still to run waits for
   them: once they have committed, its gate is re-checked on the state they left.
4. **Completion** — the call's :class:`ToolCallState` moves to its terminal status, the tool's
   command and the AfterToolExecute hooks' commands are submitted together, ``tool_call_done``
   (or ``tool_call_resumed`` for a replayed call) is emitted and the tool message appended.

Resume: :func:`~awaken_runtime.execution.resume.prepare_resume` turns decisions into
``resuming`` / ``cancelled`` states; :meth:`ToolPipeline.replay_resumed` reports cancelled
calls to the model and re-runs resuming calls according to their :class:`ToolCallResumeMode`.
The pipeline sees the run only through its :class:`ToolContext`; the interception decision
(step 1) is computed by :mod:`awaken_runtime.execution.intercept`.
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine, Sequence
from typing import Any

from awaken_contract.actions import (
    InterceptBlock,
    InterceptSetResult,
    InterceptSuspend,
    PutToolCallState,
    ToolCallStatesKey,
    ToolInterceptPayload,
)
from awaken_contract.contract.event import ToolCallDone, ToolCallResumed
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    ToolCallOutcome,
    ToolCallResumeMode,
    ToolCallState,
    ToolCallStatus,
)
from awaken_contract.contract.tool import ToolCallContext, ToolOutput, ToolResult
from awaken_contract.ids import now_ms
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext
from awaken_contract.state import MutationBatch, StateCommand

from awaken_runtime.cancellation import RunCancelled
from awaken_runtime.execution.context import ToolContext
from awaken_runtime.execution.executor import execute_single_tool
from awaken_runtime.execution.intercept import (
    before_execute,
    call_extra,
    gate,
    intercept,
    may_intercept,
    observe_before,
    observes_before,
)
from awaken_runtime.execution.resume import cancelled_text, prepare_resume, replace_tool_message
from awaken_runtime.run_journal import interrupted_ticket

__all__ = [
    "INTERRUPTED_MESSAGE",
    "ToolContext",
    "ToolPipeline",
    "prepare_resume",
    "replace_tool_message",
]

_log = logging.getLogger(__name__)

#: Result text of calls that never ran because an earlier call blocked or suspended the step.
INTERRUPTED_MESSAGE = "[Tool execution was interrupted]"
CANCELLED_MESSAGE = "Tool execution was cancelled"

# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_REPLAY_TOOL_CALL = ToolCallResumeMode.REPLAY_TOOL_CALL
_RESUMING = ToolCallStatus.RESUMING
_OUTCOME_SUSPENDED = ToolCallOutcome.SUSPENDED
_AFTER_TOOL_EXECUTE = Phase.AFTER_TOOL_EXECUTE
_BEFORE_TOOL_EXECUTE = Phase.BEFORE_TOOL_EXECUTE

_STATUS_OF = {
    ToolCallOutcome.SUCCEEDED: ToolCallStatus.SUCCEEDED,
    ToolCallOutcome.FAILED: ToolCallStatus.FAILED,
    _OUTCOME_SUSPENDED: ToolCallStatus.SUSPENDED,
}


class ToolPipeline(ToolContext, frozen=True, kw_only=True, eq=False):
    """Runs one step's tool calls (and resume replays): the :class:`ToolContext` they see,
    with the steps that run them (one object per activated agent, not two: ADR 0034)."""

    @classmethod
    def of(cls, ctx: ToolContext) -> ToolPipeline:
        """The pipeline over ``ctx``'s fields."""
        return cls(**{name: getattr(ctx, name) for name in ctx.__struct_fields__})

    @property
    def ctx(self) -> ToolContext:
        """The context the calls see (the pipeline itself)."""
        return self

    # ------------------------------------------------------------------ step batch
    def run_calls(self, calls: Sequence[ToolCall]) -> Coroutine[Any, Any, tuple[str | None, bool]]:
        """Run a step's calls (await it); ``(block reason or None, any call suspended)``.

        A plain method returning the sequential or the parallel coroutine: no dispatching
        coroutine of its own per step."""
        if self.executor.requires_incremental_state():
            return self._run_sequential(calls)
        return self._run_parallel(calls)

    async def _run_sequential(self, calls: Sequence[ToolCall]) -> tuple[str | None, bool]:
        suspended = False
        for index, call in enumerate(calls):
            if self.canceller.is_cancelled:
                await self._backfill(calls[index:], CANCELLED_MESSAGE)
                return None, suspended
            if self.journal is not None:
                resumed = await self._from_journal(call)
                if resumed is _OUTCOME_SUSPENDED:
                    await self._backfill(calls[index + 1 :])
                    return None, True
                if resumed is not None:
                    continue
            host = self
            if may_intercept(host):
                decision = await intercept(host, call, None)
            else:  # BeforeToolExecute's observers (if any) run in place
                observing = host.observing.get(_BEFORE_TOOL_EXECUTE)
                decision = (
                    None if observing is None else observe_before(host, observing, call, None)
                )
            if decision is not None:
                outcome = await self._apply(call, decision, None)
                if isinstance(decision, InterceptBlock):
                    await self._backfill(calls[index + 1 :])
                    return decision.reason, suspended
                suspended = suspended or outcome is _OUTCOME_SUSPENDED
                continue
            executed = await self._execute_one(call, None, last_of_step=index == len(calls) - 1)
            if executed is None:  # cancelled while running
                await self._backfill(calls[index + 1 :], CANCELLED_MESSAGE)
                return None, suspended
            if executed is _OUTCOME_SUSPENDED:
                await self._backfill(calls[index + 1 :])
                return None, True
        return None, suspended

    async def _run_parallel(self, calls: Sequence[ToolCall]) -> tuple[str | None, bool]:
        """Run the calls in rounds: each round executes the allowed calls concurrently.

        A call a gate blocks or suspends while earlier calls of the round are still to run
        ends the round there; once those calls have committed, the next round starts with it,
        so its gate is re-checked on the state they left.
        """
        suspended = False
        pending = list(calls)
        while pending:
            blocked, round_suspended, pending = await self._parallel_round(pending)
            suspended = suspended or round_suspended
            if blocked is not None:
                return blocked, suspended
        return None, suspended

    async def _parallel_round(
        self, calls: Sequence[ToolCall]
    ) -> tuple[str | None, bool, list[ToolCall]]:
        """One round: ``(block reason or None, any call suspended, calls left for next round)``."""
        host = self
        suspended = False
        blocked: str | None = None
        allowed: list[ToolCall] = []
        rest: list[ToolCall] = []
        for index, call in enumerate(calls):
            resumed = await self._from_journal(call)
            if resumed is not None:
                suspended = suspended or resumed is _OUTCOME_SUSPENDED
                continue
            decision = await gate(self, call, None)
            if allowed and isinstance(decision, InterceptBlock | InterceptSuspend):
                rest = list(calls[index:])  # re-checked once the allowed calls committed
                break
            if decision is None:
                observing = observes_before(host)
                decision = (
                    observe_before(host, observing, call, None)
                    if observing is not None
                    else await before_execute(host, call, None)
                )
            if decision is None:
                allowed.append(call)
                continue
            outcome = await self._apply(call, decision, None)
            if isinstance(decision, InterceptBlock):
                blocked = decision.reason
                await self._backfill(calls[index + 1 :])
                break
            suspended = suspended or outcome is _OUTCOME_SUSPENDED
        if not allowed:
            return blocked, suspended, rest
        base = self._tool_ctx(ToolCall("", "", None), None)
        await self._record_started(allowed)
        try:
            results = await host.canceller.race(host.executor.execute(host.tools, allowed, base))
        except RunCancelled:
            await self._backfill([*allowed, *rest], CANCELLED_MESSAGE)
            return blocked, suspended, []
        if host.journal is not None:
            await host.journal.finished(
                [(item.call, item.output) for item in results],
                last_of_step=not rest and blocked is None,
            )
        # One frozen snapshot for every call: their writes must merge (Exclusive keys conflict).
        conflicts = StateCommand()
        strategy = host.store.strategy
        for item in results:
            if item.output.command is not None:
                conflicts.merge_parallel(item.output.command, strategy)
        for item in results:
            outcome = await self._complete(item.call, item.output.result, item.output.command, None)
            suspended = suspended or outcome is _OUTCOME_SUSPENDED
        returned = {item.call.id for item in results}
        skipped = [call for call in allowed if call.id not in returned]
        if skipped:  # an executor that stopped early (e.g. at a suspension)
            await self._backfill(skipped)
        return blocked, suspended, rest

    # ------------------------------------------------------------------ resume
    async def replay_resumed(self) -> None:
        """Report cancelled decisions and re-run resuming calls (sorted by call id)."""
        host = self
        states = host.store.read(ToolCallStatesKey)
        if states is None or not states.calls:
            return
        for state in states.with_status(ToolCallStatus.CANCELLED):
            resume = state.resume_input
            if resume is None:
                continue
            payload = (
                resume.result
                if resume.result is not None
                else {"status": "cancelled", "reason": resume.reason}
            )
            await host.sink.emit(ToolCallResumed(target_id=state.call_id, result=payload))
            replace_tool_message(
                host.messages, Message.tool(state.call_id, cancelled_text(state.tool_name, resume))
            )
            host.store.commit(
                MutationBatch().update(
                    ToolCallStatesKey,
                    PutToolCallState(
                        ToolCallState(
                            call_id=state.call_id,
                            tool_name=state.tool_name,
                            arguments=state.arguments,
                            status=ToolCallStatus.CANCELLED,
                            updated_at=now_ms(),
                            resume_mode=state.resume_mode,
                            suspension_id=state.suspension_id,
                            suspension_reason=state.suspension_reason,
                        )
                    ),
                )
            )
        for state in states.with_status(_RESUMING):
            call = ToolCall(state.call_id, state.tool_name, state.arguments)
            resume = state.resume_input
            if state.resume_mode is ToolCallResumeMode.USE_DECISION_AS_TOOL_RESULT:
                result = ToolResult.success(
                    state.tool_name, resume.result if resume is not None else None
                )
                await self._complete(call, result, None, state)
                continue
            decision = await intercept(self, call, state)
            if decision is not None:
                await self._apply(call, decision, state)
                continue
            await self._execute_one(call, state)

    def suspended_calls(self) -> list[ToolCallState]:
        """Calls currently waiting for a decision."""
        states = self.store.read(ToolCallStatesKey)
        return [] if states is None else states.with_status(ToolCallStatus.SUSPENDED)

    # ------------------------------------------------------------------ journal
    async def _from_journal(self, call: ToolCall) -> ToolCallOutcome | None:
        """Complete a call an interrupted attempt already ran: its recorded result, or — when
        it was cut off mid-run and is not idempotent — a ticket for a human. ``None``: run it
        (normally, or again with the same call id when its tool is idempotent)."""
        journal = self.journal
        if journal is None:
            return None
        recorded = journal.recorded(call.id)
        if recorded is not None:  # its result and the state effects the tool returned
            return await self._complete(call, recorded[0], recorded[1], None)
        if not journal.interrupted(call.id) or self._idempotent(call):
            return None
        ticket = interrupted_ticket(call)
        _log.warning("tool call %s (%s) was interrupted; parked for a human", call.id, call.name)
        return await self._complete(
            call,
            ToolResult.suspended_with(call.name, ticket.suspension.message, ticket),
            None,
            None,
            run_after_hooks=False,
        )

    def _idempotent(self, call: ToolCall) -> bool:
        tool = self.tools.get(call.name)
        return tool is not None and tool.descriptor().idempotent

    async def _record_started(self, calls: Sequence[ToolCall]) -> None:
        journal = self.journal
        if journal is not None:
            await journal.started([(call, self._idempotent(call)) for call in calls])

    # ------------------------------------------------------------------ internals
    async def _apply(
        self, call: ToolCall, decision: ToolInterceptPayload, state: ToolCallState | None
    ) -> ToolCallOutcome:
        name = call.name
        if isinstance(decision, InterceptBlock):
            return await self._complete(call, ToolResult.error(name, decision.reason), None, state)
        if isinstance(decision, InterceptSuspend):
            ticket = decision.ticket
            if not ticket.pending.id:
                ticket = SuspendTicket(
                    suspension=ticket.suspension,
                    pending=PendingToolCall(id=call.id, name=name, arguments=call.arguments),
                    resume_mode=ticket.resume_mode,
                )
            result = ToolResult.suspended_with(
                name, f"Tool '{name}' suspended: awaiting approval", ticket
            )
            return await self._complete(
                call,
                result,
                None,
                state,
                run_after_hooks=False,
                message=f"Tool '{name}' suspended: awaiting decision",
            )
        assert isinstance(decision, InterceptSetResult)
        return await self._complete(call, decision.result, None, state)

    def _tool_ctx(self, call: ToolCall, state: ToolCallState | None) -> ToolCallContext:
        host = self
        resuming = state is not None and state.status is _RESUMING
        return ToolCallContext(
            call.id,
            call.name,
            host.identity,
            agent_spec=host.spec,
            snapshot=host.store.snapshot(),
            activity_sink=host.sink,
            cancellation_token=host.token,
            resume_input=state.resume_input if resuming and state is not None else None,
            suspension_id=state.suspension_id if resuming and state is not None else None,
            suspension_reason=state.suspension_reason if resuming and state is not None else None,
            profile_store=host.profile_store,
        )

    async def _execute_one(
        self, call: ToolCall, state: ToolCallState | None, *, last_of_step: bool = False
    ) -> ToolCallOutcome | None:
        """Execute one allowed call and complete it; ``None`` when cancelled mid-way."""
        host = self
        ctx = self._tool_ctx(call, state)
        if host.journal is not None:
            await self._record_started([call])
        canceller = host.canceller
        try:
            # ``canceller.race`` written in place: one coroutine less per tool call
            task = canceller.arm()
            try:
                output: ToolOutput = await execute_single_tool(host.tools, call, ctx)
            except BaseException as exc:
                canceller.disarm_failed(task, exc)
                raise
            if canceller.disarm(task):
                await canceller.absorb(task)
            if host.journal is not None:
                await host.journal.finished([(call, output)], last_of_step=last_of_step)
        except RunCancelled:
            await self._complete(
                call,
                ToolResult.error(call.name, CANCELLED_MESSAGE),
                None,
                state,
                status=ToolCallStatus.CANCELLED,
                run_after_hooks=False,
            )
            return None
        return await self._complete(call, output.result, output.command, state)

    async def _complete(
        self,
        call: ToolCall,
        result: ToolResult,
        tool_command: StateCommand | None,
        state: ToolCallState | None,
        *,
        status: ToolCallStatus | None = None,
        run_after_hooks: bool = True,
        message: str | None = None,
    ) -> ToolCallOutcome:
        host = self
        outcome = result.outcome()
        ticket = result.suspension
        resume_mode = (
            ticket.resume_mode
            if ticket is not None
            else (state.resume_mode if state is not None else _REPLAY_TOOL_CALL)
        )
        command = StateCommand(
            MutationBatch().update(
                ToolCallStatesKey,
                PutToolCallState(
                    ToolCallState(
                        call_id=call.id,
                        tool_name=call.name,
                        arguments=call.arguments,
                        status=status or _STATUS_OF[outcome],
                        updated_at=now_ms(),
                        resume_mode=resume_mode,
                        suspension_id=(
                            ticket.suspension.id
                            if ticket is not None
                            else (state.suspension_id if state is not None else None)
                        ),
                        suspension_reason=(
                            ticket.suspension.action
                            if ticket is not None
                            else (state.suspension_reason if state is not None else None)
                        ),
                    )
                ),
            )
        )
        if tool_command is not None and not tool_command.is_empty:
            command.extend(tool_command)
        env = host.env
        ctx: PhaseContext | None = None
        after_hooks = host.hooks.get(_AFTER_TOOL_EXECUTE) if run_after_hooks else None
        if after_hooks:
            ctx = host.phase_ctx(_AFTER_TOOL_EXECUTE, tool_result=result, **call_extra(call, state))
            observing = host.observing.get(_AFTER_TOOL_EXECUTE)
            if observing is not None:  # nothing to collect
                observing.observe(ctx)
            else:
                after = await host.phase.collect_commands(env, ctx, after_hooks)
                if not after.is_empty:
                    command.extend(after)
        resuming = state is not None and state.status is _RESUMING
        sink = host.sink
        if sink.wants_events:
            if resuming and outcome is not _OUTCOME_SUSPENDED:
                await sink.emit(ToolCallResumed(target_id=call.id, result=result.resume_payload()))
            else:
                await sink.emit(ToolCallDone(id=call.id, result=result, outcome=outcome))
        tool_message = Message.tool(
            call.id, message if message is not None else result.to_llm_text()
        )
        if state is not None:
            replace_tool_message(host.messages, tool_message)
        else:
            host.messages.append(tool_message)
        had_actions = command.has_actions
        if host.phase.submit_now(env, command) is None:
            await host.phase.submit_command(env, command)
        if had_actions:
            await host.phase.run_execute_loop(
                env, ctx or host.phase_ctx(_AFTER_TOOL_EXECUTE, tool_result=result)
            )
        return outcome

    async def _backfill(self, calls: Sequence[ToolCall], text: str = INTERRUPTED_MESSAGE) -> None:
        for call in calls:
            await self._complete(
                call,
                ToolResult.error(call.name, text),
                None,
                None,
                status=ToolCallStatus.FAILED,
                run_after_hooks=False,
            )
