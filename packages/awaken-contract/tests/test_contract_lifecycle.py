"""Status transition tables and small lifecycle behaviours."""

from __future__ import annotations

import asyncio

import pytest
from awaken_contract import errors
from awaken_contract.codec import encode_json
from awaken_contract.contract.cancellation import CancellationToken
from awaken_contract.contract.content import ContentBlock
from awaken_contract.contract.event import TextDelta
from awaken_contract.contract.event_sink import ChannelEventSink, VecEventSink
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import (
    StopChunk,
    StopReason,
    StreamResult,
    TextDeltaChunk,
    TokenUsage,
    ToolCallDeltaChunk,
    ToolCallStartChunk,
    UsageChunk,
)
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind, TerminationReason
from awaken_contract.contract.message import ToolCall
from awaken_contract.contract.suspension import ToolCallStatus as S


@pytest.mark.parametrize(
    ("src", "allowed"),
    [
        (S.NEW, set(S)),
        (S.RUNNING, {S.RUNNING, S.SUSPENDED, S.SUCCEEDED, S.FAILED, S.CANCELLED}),
        (S.SUSPENDED, {S.SUSPENDED, S.RESUMING, S.CANCELLED}),
        (S.RESUMING, {S.RESUMING, S.RUNNING, S.SUSPENDED, S.SUCCEEDED, S.FAILED, S.CANCELLED}),
        (S.SUCCEEDED, {S.SUCCEEDED}),
        (S.FAILED, {S.FAILED}),
        (S.CANCELLED, {S.CANCELLED}),
    ],
)
def test_tool_call_status_transitions(src: S, allowed: set[S]) -> None:
    assert {t for t in S if src.can_transition_to(t)} == allowed


def test_run_status_transitions() -> None:
    assert RunStatus.CREATED.can_transition_to(RunStatus.RUNNING)
    assert RunStatus.WAITING.can_transition_to(RunStatus.RUNNING)
    assert not RunStatus.DONE.can_transition_to(RunStatus.RUNNING)
    assert not RunStatus.CREATED.can_transition_to(RunStatus.WAITING)
    assert RunStatus.DONE.is_terminal and not RunStatus.WAITING.is_terminal


class Collected(LlmExecutor):
    async def execute(self, request: InferenceRequest) -> StreamResult:
        return StreamResult(
            content=[ContentBlock.text("hi")],
            tool_calls=[ToolCall("c1", "f", {"a": 1})],
            usage=TokenUsage(total_tokens=3),
            stop_reason=StopReason.TOOL_USE,
        )


async def test_default_stream_wraps_execute() -> None:
    request = InferenceRequest(upstream_model="m", messages=[])
    events = [e async for e in Collected().stream(request)]
    assert events == [
        TextDeltaChunk("hi"),
        ToolCallStartChunk("c1", "f"),
        ToolCallDeltaChunk("c1", '{"a":1}'),
        UsageChunk(TokenUsage(total_tokens=3)),
        StopChunk(StopReason.TOOL_USE),
    ]


def test_truncation_recovery_rule() -> None:
    cut = StreamResult(content=[ContentBlock.text("x")], stop_reason=StopReason.MAX_TOKENS)
    assert cut.needs_truncation_recovery
    assert not StreamResult(stop_reason=StopReason.MAX_TOKENS).needs_truncation_recovery
    assert StreamResult(
        stop_reason=StopReason.MAX_TOKENS, has_incomplete_tool_calls=True
    ).needs_truncation_recovery


async def test_cancellation_token_race_cancels_the_work() -> None:
    token = CancellationToken()
    child = token.child()
    started = asyncio.Event()
    cleaned = asyncio.Event()

    async def slow() -> int:
        started.set()
        try:
            await asyncio.sleep(10)
        finally:
            cleaned.set()
        return 1

    task = asyncio.ensure_future(child.race(slow()))
    await started.wait()
    token.cancel("user")
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned.is_set() and child.is_cancelled and child.reason == "user"
    assert await CancellationToken().race(asyncio.sleep(0, result=5)) == 5


async def test_sinks() -> None:
    vec = VecEventSink()
    await vec.emit(TextDelta(delta="a"))
    assert len(vec) == 1 and vec.take() == [TextDelta(delta="a")] and vec.take() == []
    chan = ChannelEventSink()
    await chan.emit(TextDelta(delta="x"))
    await chan.close()
    await chan.emit(TextDelta(delta="ignored"))
    assert [e async for e in chan] == [TextDelta(delta="x")]


def test_error_display_templates() -> None:
    assert str(errors.InvalidArguments("city missing")) == "Invalid arguments: city missing"
    assert str(errors.ToolError.NotFound("x")) == "Not found: x"  # type: ignore[attr-defined]
    assert str(errors.RevisionConflict(1, 2)) == "revision conflict: expected 1, actual 2"
    assert str(errors.PhaseRunLoopExceeded("before_inference", 16)) == (
        "phase before_inference did not converge after 16 rounds"
    )
    assert str(errors.VersionConflict(0, 1)) == "version conflict: expected 0, actual 1"
    assert str(errors.ToolIdConflict("t", "global", "plugin")) == (
        'tool ID conflict: "t" registered by both global and plugin'
    )
    assert str(errors.ValidationFailed({"a": "model not found: m"})) == (
        "agent validation failed: a: model not found: m"
    )
    assert str(errors.RateLimited("slow down", retry_after=2.0)) == "rate limited: slow down"
    assert not errors.ProviderAuthError("401").retryable and errors.ProviderError("x").retryable
    for family in (errors.StateError, errors.ToolError, errors.StorageError, errors.BuildError):
        assert issubclass(family, errors.AwakenError)


def test_the_valueless_reasons_are_shared_constants_equal_to_fresh_ones() -> None:
    for make, kind in [
        (TerminationReason.natural_end, TerminationKind.NATURAL_END),
        (TerminationReason.behavior_requested, TerminationKind.BEHAVIOR_REQUESTED),
        (TerminationReason.cancelled, TerminationKind.CANCELLED),
        (TerminationReason.suspended, TerminationKind.SUSPENDED),
    ]:
        assert make() is make()  # frozen: shared safely
        assert make() == TerminationReason(kind)
        assert encode_json(make()) == encode_json(TerminationReason(kind))
