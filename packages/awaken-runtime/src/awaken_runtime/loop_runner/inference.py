"""The inference phase of a step: BeforeInference → inference → AfterInference.

:func:`inference_phase` returns the model's :class:`StreamResult` when the step goes on to its
tool calls (or ends naturally), else the step's end (cancelled, or terminated by a hook).
Streamed deltas become events on the way; a truncated output is continued up to the agent's
``max_continuation_retries``.
"""

from __future__ import annotations

import time

from awaken_contract.actions import (
    ContextMessageStoreKey,
    ContextMessageStoreState,
    InferenceOverrideKey,
    InferenceOverrideState,
    RemoveContextMessages,
    ToolFilterKey,
    ToolFilterState,
)
from awaken_contract.contract.event import InferenceComplete
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.message import Message
from awaken_contract.errors import (
    AwakenError,
    InferenceExecutionError,
    InferenceFailed,
    StateCancelled,
)
from awaken_contract.model import PendingScheduledActions, Phase
from awaken_contract.plugin import apply_transforms
from awaken_contract.state import MutationBatch

from awaken_runtime.cancellation import RunCancelled
from awaken_runtime.loop_runner.output import shape_request
from awaken_runtime.loop_runner.request import (
    effective_overrides,
    filter_tools,
    place_context_messages,
)
from awaken_runtime.loop_runner.run_context import LoopContext, StepOutcome, StepResult
from awaken_runtime.loop_runner.stream import StreamCollector, collected_result, consume_stream

__all__ = ["CONTINUATION_PROMPT", "inference_phase"]

_PENDING_ACTIONS = PendingScheduledActions.KEY
_TOOL_FILTER = ToolFilterKey.KEY
_INFERENCE_OVERRIDE = InferenceOverrideKey.KEY
_CONTEXT_MESSAGES = ContextMessageStoreKey.KEY

# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_BEFORE_INFERENCE = Phase.BEFORE_INFERENCE
_AFTER_INFERENCE = Phase.AFTER_INFERENCE

#: Sent (as an internal user message) when the model's output was cut by the token limit.
CONTINUATION_PROMPT = (
    "Your previous reply was cut off because it reached the output token limit. "
    "Continue exactly where you stopped; if the remaining work is large, split it into "
    "smaller pieces (for example several smaller tool calls) instead of one long output."
)


async def inference_phase(run: LoopContext) -> StreamResult | StepResult:
    """Run the step's inference; its result, or the step's end when it stops here."""
    store = run.store
    phase = run.phase
    env = run.env
    # BeforeInference: hooks (no conflict fallback; observers alone: nothing to collect), then
    # this phase's actions.
    before = run.hooks.get(_BEFORE_INFERENCE)
    if before:
        ctx = run.pipeline.phase_ctx(_BEFORE_INFERENCE)
        observing = run.pipeline.observing.get(_BEFORE_INFERENCE)
        if observing is not None:
            observing.observe(ctx)
        else:
            command = await phase.collect_commands(env, ctx, before)
            if not command.is_empty:
                await phase.submit_command(env, command)
    if store.values.get(_PENDING_ACTIONS):
        await phase.run_execute_loop(env, run.pipeline.phase_ctx(_BEFORE_INFERENCE))
    termination = run.check_termination()
    values = store.values  # (read in place: no call per key)
    tool_filter: ToolFilterState | None = values.get(_TOOL_FILTER)
    step_overrides: InferenceOverrideState | None = values.get(_INFERENCE_OVERRIDE)
    if tool_filter is not None or step_overrides is not None:
        clear = MutationBatch()
        if tool_filter is not None:
            clear.clear(ToolFilterKey)
        if step_overrides is not None:
            clear.clear(InferenceOverrideKey)
        store.commit(clear)
    if termination is not None:
        return StepOutcome.TERMINATED, termination

    # Inference.
    spec = run.spec
    upstream_model, overrides = effective_overrides(
        spec, run.params.overrides, step_overrides, run.agent.upstream_model
    )
    request = InferenceRequest(
        upstream_model=upstream_model,
        messages=_prompt_messages(run),
        tools=filter_tools(list(run.descriptors), tool_filter),
        overrides=overrides,
        enable_prompt_cache=(
            spec.context_policy.enable_prompt_cache if spec.context_policy is not None else False
        ),
    )
    _transform(run, request)
    started = time.perf_counter()
    provider = run.agent.model.provider if run.agent.model is not None else None
    attempt = request
    executor = run.agent.llm_executor
    canceller = run.canceller
    try:
        while True:
            recorded = run.resume.take_inference() if run.resume is not None else None
            if recorded is not None:
                # a resumed attempt's first inference answers from the interrupted step's
                # recorded result (no model call): its tool calls may already have run
                result, cancelled = recorded, False
            elif run.collects and not run.sink.wants_events:
                # Nothing to forward: the collected result, the model called in place (no
                # ``_infer``, ``canceller.race`` or retry-wrapper coroutine per model call,
                # ADR 0034).
                cancelled = False
                try:
                    task = canceller.arm()
                    try:
                        first = run.first_attempt
                        if first is None:
                            answer = await executor.execute(attempt)
                        else:  # the retry wrapper's first attempt, awaited here
                            try:
                                answer = await first.execute(attempt)
                            except InferenceExecutionError as failure:
                                assert run.retrying is not None
                                answer = await run.retrying.after_failure(attempt, failure)
                    except BaseException as exc:
                        canceller.disarm_failed(task, exc)
                        raise
                    if canceller.disarm(task):
                        await canceller.absorb(task)
                    result = collected_result(answer)
                except RunCancelled:
                    result, cancelled = StreamCollector().result(True), True
                except Exception as exc:
                    raise _failed(exc) from exc
            else:
                result, cancelled = await _streamed(run, attempt)
            _account(run, result)
            if (
                cancelled
                or not result.needs_truncation_recovery
                or run.continuations >= spec.max_continuation_retries
            ):
                break
            attempt = _continuation(run, request, result)
    except InferenceFailed as exc:
        # A failed inference still ends its phase: AfterInference sees the error.
        await run.observe_phase(
            _AFTER_INFERENCE,
            inference_model=upstream_model,
            inference_provider=provider,
            inference_duration_ms=int((time.perf_counter() - started) * 1000),
            inference_error=exc,
        )
        raise
    duration_ms = int((time.perf_counter() - started) * 1000)
    if run.journal is not None and not cancelled:
        run.journal.record_inference(run.step_index, request, result)
    model = run.agent.model
    cost = model.cost(result.usage) if model is not None else None
    if cost is not None:
        run.record.cost = (run.record.cost or 0.0) + cost
    if run.sink.wants_events:
        await run.sink.emit(
            InferenceComplete(
                model=upstream_model, duration_ms=duration_ms, usage=result.usage, cost=cost
            )
        )
    if cancelled or run.canceller.is_cancelled:
        return run.cancelled_step()

    # AfterInference (cancellation was checked just above).
    try:
        if run.phase_has_work(_AFTER_INFERENCE):
            await run.run_phase(
                _AFTER_INFERENCE,
                llm_response=result,
                inference_cost=cost,
                inference_model=upstream_model,
                inference_provider=provider,
                inference_duration_ms=duration_ms,
            )
    except StateCancelled:
        return run.cancelled_step()
    termination = run.check_termination()
    if termination is not None:
        return StepOutcome.TERMINATED, termination
    return result


def _transform(run: LoopContext, request: InferenceRequest) -> None:
    transforms = run.env.request_transforms
    if transforms:
        request.messages, request.tools = apply_transforms(
            request.messages, request.tools, [t.transform for t in transforms]
        )
    if run.spec.output_schema is not None:
        shape_request(run, request)


async def _streamed(run: LoopContext, request: InferenceRequest) -> tuple[StreamResult, bool]:
    """One model call whose deltas go to the sink (or a streaming executor's);
    ``(result, cancelled)``. Executor failures → InferenceFailed."""
    sink = run.sink
    collector = StreamCollector()
    cancelled = False
    try:
        await run.canceller.race(consume_stream(run.agent.llm_executor, request, sink, collector))
    except RunCancelled:
        cancelled = True
    except Exception as exc:
        raise _failed(exc) from exc
    if not sink.wants_events:
        return collector.result(cancelled), cancelled
    return await collector.finish(sink, cancelled), cancelled


def _failed(exc: Exception) -> InferenceFailed:
    """What an executor's failure becomes."""
    if isinstance(exc, AwakenError):
        return InferenceFailed(str(exc))
    return InferenceFailed(f"{type(exc).__name__}: {exc}")


def _continuation(
    run: LoopContext, request: InferenceRequest, truncated: StreamResult
) -> InferenceRequest:
    """The output hit the token limit: keep the partial text, ask the model to go on (the
    request of the next attempt)."""
    run.continuations += 1
    run.messages.append(Message.assistant(truncated.text))
    run.messages.append(Message.internal_user(CONTINUATION_PROMPT))
    system = run.system_message
    retry = InferenceRequest(
        upstream_model=request.upstream_model,
        messages=[system, *run.messages] if system is not None else list(run.messages),
        tools=run.agent_tool_descriptors(),
        overrides=request.overrides,
        enable_prompt_cache=False,
    )
    _transform(run, retry)
    return retry


def _prompt_messages(run: LoopContext) -> list[Message]:
    system = run.system_message
    messages = [system, *run.messages] if system is not None else list(run.messages)
    context_store: ContextMessageStoreState | None = run.store.values.get(_CONTEXT_MESSAGES)
    if context_store is None or not context_store.messages:
        return messages
    context = context_store.sorted_messages()
    drop = [m.key for m in context if not m.persistent or m.consume_after_emit]
    if drop:
        run.store.commit(
            MutationBatch().update(ContextMessageStoreKey, RemoveContextMessages(drop))
        )
    return place_context_messages(messages, context, system is not None)


def _account(run: LoopContext, result: StreamResult) -> None:
    usage = result.usage
    if usage is None:
        return
    record = run.record
    prompt, completion = usage.prompt_tokens, usage.completion_tokens
    if prompt is not None and prompt > 0:
        record.input_tokens += prompt
    if completion is not None and completion > 0:
        record.output_tokens += completion
    run.usage = usage if run.usage is None else run.usage + usage
