"""The replayed loop's outside world, answered from the journal: model, tools, control inputs.

* :class:`RecordedModel` — an ``LlmExecutor`` that streams the recorded deltas of the next
  recorded inference and checks the request digest; never touches the network.
* :class:`RecordedTool` — wraps a tool; answers with the call's recorded result and state
  command (re-emitting what the tool emitted meanwhile); never executes it.
* :class:`ReplaySink` — collects the replayed events and, at each position, feeds the control
  inputs the original loop took there into the :class:`ReplayChannel`.
* :class:`RecordedResolver` — resolves agents as the real resolver does, with those swaps.

Whatever the replayed loop asks for that the journal cannot answer is a divergence, noted on
the :class:`ReplayState` (the first one wins) and surfaced as an error to the loop.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, NoReturn

import msgspec
from awaken_contract.contract.cancellation import CancellationToken
from awaken_contract.contract.event import (
    AgentEvent,
    Error,
    ReasoningDelta,
    RunFinish,
    TextDelta,
    ToolCallDelta,
    ToolCallStart,
)
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import (
    LlmStreamEvent,
    ReasoningDeltaChunk,
    StopChunk,
    StreamResult,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    ToolCallStartChunk,
    UsageChunk,
)
from awaken_contract.contract.journal import DIGEST_VERSION, request_digest
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolOutput
from awaken_contract.errors import AwakenError, ExecutionFailed, InferenceExecutionError

from awaken_runtime.loop_runner.control import ControlChannel
from awaken_runtime.loop_runner.journal_inputs import control_messages
from awaken_runtime.loop_runner.params import ControlMessage
from awaken_runtime.registry.resolved import AgentResolver, ResolvedAgent
from awaken_runtime.replay.timeline import RecordedAttempt, RecordedRun
from awaken_runtime.state.command_codec import decode_command
from awaken_runtime.state.store import StateStore

__all__ = [
    "CancelPlan",
    "RecordedModel",
    "RecordedResolver",
    "RecordedTool",
    "ReplayChannel",
    "ReplayDiverged",
    "ReplaySink",
    "ReplayState",
]


class ReplayDiverged(InferenceExecutionError):
    """The replayed loop asked for something the journal does not hold."""


class RecordedFailure(AwakenError):
    """The recorded inference failed: the replay fails it with the same message."""

    def __init__(self, message: str) -> None:
        Exception.__init__(self, message)


_FAILED = "inference failed: "  # InferenceFailed's prefix, added again by the loop


@dataclass(frozen=True, slots=True)
class CancelPlan:
    """Cancel attempt ``attempt`` at the ``skip``-th token check once ``position`` of its
    events were replayed (a cancellation the journal does not time precisely)."""

    attempt: int
    position: int
    skip: int


class ScheduledCancel(CancellationToken):
    """A token that cancels itself as a :class:`CancelPlan` says."""

    __slots__ = ("_position", "_sink", "_skip")

    def __init__(self, sink: ReplaySink, position: int, skip: int) -> None:
        super().__init__()
        self._sink = sink
        self._position = position
        self._skip = skip

    @property
    def is_cancelled(self) -> bool:
        if not super().is_cancelled and len(self._sink.events) >= self._position:
            if self._skip == 0:
                self.cancel("the recorded run was cancelled here")
            else:
                self._skip -= 1
        return super().is_cancelled


class ReplayState:
    """The replay of one run: the recording, the attempt being replayed, the first divergence."""

    def __init__(self, run: RecordedRun, cancel: CancelPlan | None = None) -> None:
        self.run = run
        self.cancel = cancel
        self.attempt: RecordedAttempt = run.attempts[0]
        self.offset = 0
        """Events of the run before the current attempt."""
        self.sink = ReplaySink(self)
        self.store: StateStore | None = None
        self.divergence: tuple[int, int | None, str] | None = None
        """``(event index, seq, reason)`` of the first divergence the journal could not answer."""
        self.cut: dict[int, int] = {}
        """Attempt number → events compared (the original attempt ended there)."""
        self.channel = ReplayChannel()
        self.token = CancellationToken()
        self.number = 0

    def begin(self, number: int, store: StateStore) -> None:
        """Start replaying attempt ``number`` (0-based) over the loop state ``store``."""
        self.attempt = self.run.attempts[number]
        self.number = number
        self.offset = sum(len(a.events) for a in self.run.attempts[:number])
        self.store = store
        self.sink.events = []
        self.sink.wants_state_snapshots = self.attempt.start.wants_state_snapshots
        self.channel = ReplayChannel()
        plan = self.cancel
        self.token = (
            ScheduledCancel(self.sink, plan.position, plan.skip)
            if plan is not None and plan.attempt == number
            else CancellationToken()
        )

    def diverge(self, reason: str, seq: int | None) -> ReplayDiverged:
        """Note a divergence at the current position (the first one is kept; none once the
        attempt is past where the recorded one ended)."""
        if self.divergence is None and self.number not in self.cut:
            self.divergence = (self.offset + len(self.sink.events), seq, reason)
        return ReplayDiverged(f"replay diverged: {reason}")

    async def cancelled_here(self) -> NoReturn:
        """The original run was cancelled while awaiting this (a stream, a tool): cancel the
        replay too and wait for the cancellation to interrupt the awaiting task."""
        self.token.cancel("the recorded run was cancelled here")
        await asyncio.Event().wait()
        raise AssertionError("unreachable: the cancellation interrupts the wait")

    def after_event(self, event: AgentEvent) -> None:
        """The replayed loop emitted its next event: feed the inputs the original took here;
        a parked run the original left here (it ended, or never waited) is stopped."""
        position = len(self.sink.events)
        attempt = self.attempt
        inputs = attempt.inputs.get(position)
        if inputs:
            self.channel.stage([control_messages(record.entries) for record in inputs])
            return
        if attempt.interrupted and position == len(attempt.events):
            self.cut[self.number] = position  # the recorded attempt was cut off here
            self.token.cancel("the recorded attempt was cut off here")
            return
        parked = (
            isinstance(event, RunFinish) and event.termination.type is TerminationKind.SUSPENDED
        )
        if not parked:
            return
        # No input here: the original was cancelled while parked, or left the attempt here
        # (it did not wait, or its process ended) — then only this far is compared.
        if position >= len(attempt.events):
            self.cut[self.number] = position
        self.token.cancel("the recorded attempt took no input here")


class ReplaySink(EventSink):
    """Collects the replayed events of the current attempt."""

    def __init__(self, state: ReplayState) -> None:
        self.state = state
        self.events: list[AgentEvent] = []

    async def emit(self, event: AgentEvent) -> None:
        self.events.append(event)
        self.state.after_event(event)


class ReplayChannel(ControlChannel[ControlMessage]):
    """The replayed run's control channel: batches staged by the sink, one batch per read."""

    _staged: deque[list[ControlMessage]] = msgspec.field(default_factory=deque)

    def stage(self, batches: list[list[ControlMessage]]) -> None:
        """Queue ``batches``; the first is readable now, each next one once the previous one
        was read (as the original loop read them, one wake-up each)."""
        self._staged.extend(batches)
        self._release()

    def _release(self) -> None:
        if self.empty() and self._staged:
            for entry in self._staged.popleft():
                self.put_nowait(entry)

    async def get(self) -> ControlMessage:
        self._release()
        return await super().get()


class RecordedModel(LlmExecutor):
    """Answers each inference with the next recorded one (see the module docstring)."""

    def __init__(self, state: ReplayState, original: LlmExecutor) -> None:
        self.state = state
        self.original = original

    def supports_response_format(self, request: InferenceRequest) -> bool:
        return self.original.supports_response_format(request)

    def name(self) -> str:
        return self.original.name()

    async def execute(self, request: InferenceRequest) -> StreamResult:
        raise self.state.diverge("the loop asked for a collected inference", None)

    async def stream(self, request: InferenceRequest) -> AsyncIterator[LlmStreamEvent]:
        state = self.state
        attempt = state.attempt
        position = len(state.sink.events)
        inference = attempt.next_inference(position)
        if inference is None and attempt.interrupted:  # cut off while streaming
            inference = len(attempt.events)
        if inference is None:
            failed = attempt.failed_inference(position)
            if failed is None:
                raise state.diverge("an inference the journal does not have", None)
            for index in range(position, failed):  # what it streamed, then the same failure
                chunk = _chunk(attempt.event(index))
                if chunk is not None:
                    yield chunk
            error = attempt.event(failed)
            assert isinstance(error, Error)
            raise RecordedFailure(error.message.removeprefix(_FAILED))
        if isinstance(inference, int):  # cancelled mid-stream: its deltas, then the cancel
            for index in range(position, inference):
                chunk = _chunk(attempt.event(index))
                if chunk is not None:
                    yield chunk
            await state.cancelled_here()
        inference.used = True
        record = inference.record
        if record.digest_version == DIGEST_VERSION:
            digest = request_digest(request)
            if digest != record.request_digest:
                raise state.diverge(
                    f"inference request differs from the recorded one (digest {digest[:12]} "
                    f"!= {record.request_digest[:12]}): different messages, tools or options",
                    inference.seq,
                )
        for index in range(position, inference.position):
            chunk = _chunk(attempt.event(index))
            if chunk is not None:
                yield chunk
        result = record.result
        if result.usage is not None:
            yield UsageChunk(result.usage)
        if result.stop_reason is not None:
            yield StopChunk(result.stop_reason)


def _chunk(event: AgentEvent) -> LlmStreamEvent | None:
    """The provider chunk a streamed event came from (``None``: not a streamed event)."""
    match event:
        case TextDelta(delta=delta):
            return TextDeltaChunk(delta)
        case ReasoningDelta(delta=delta):
            return ReasoningDeltaChunk(delta)
        case ToolCallStart(id=call_id, name=name):
            return ToolCallStartChunk(call_id, name)
        case ToolCallDelta(id=call_id, args_delta=delta):
            return ToolCallDeltaChunk(call_id, delta)
        case _:
            return None


class RecordedTool(Tool):
    """A tool answered from the journal (never executed)."""

    def __init__(self, state: ReplayState, inner: Tool) -> None:
        self.state = state
        self.inner = inner

    def descriptor(self) -> ToolDescriptor:
        return self.inner.descriptor()

    def validate_args(self, args: Any) -> None:
        self.inner.validate_args(args)

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolOutput:
        state = self.state
        recorded = state.run.take_tool(ctx.call_id)
        if recorded is None and (ctx.call_id in state.attempt.started or state.attempt.interrupted):
            # started, never finished: the run was cancelled meanwhile (after what the tool
            # had emitted so far), or cut off
            await _emit(ctx, state.attempt.emitted_until_cancelled(ctx.call_id))
            await state.cancelled_here()
        if recorded is None:
            state.diverge(f"tool call {ctx.call_id} ({ctx.tool_name}) has no recorded result", None)
            raise ExecutionFailed(f"replay: no recorded result for tool call {ctx.call_id}")
        await _emit(ctx, recorded.emitted)
        assert state.store is not None
        record = recorded.record
        return ToolOutput(record.result, decode_command(record.command, state.store))


async def _emit(ctx: ToolCallContext, events: list[AgentEvent]) -> None:
    """Re-emit what the recorded tool emitted while it ran."""
    if ctx.activity_sink is not None:
        for event in events:
            await ctx.activity_sink.emit(event)


class RecordedResolver(AgentResolver):
    """Resolves like ``inner``, with the model and every tool answered from the journal."""

    def __init__(self, state: ReplayState, inner: AgentResolver) -> None:
        self.state = state
        self.inner = inner

    def resolve(self, agent_id: str) -> ResolvedAgent:
        agent = self.inner.resolve(agent_id).copy()
        agent.llm_executor = RecordedModel(self.state, agent.llm_executor)
        agent.tools = {name: RecordedTool(self.state, tool) for name, tool in agent.tools.items()}
        return agent
