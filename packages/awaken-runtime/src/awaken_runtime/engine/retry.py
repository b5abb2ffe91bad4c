"""``RetryingExecutor``: retries with exponential backoff, then fallback models."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import msgspec
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import LlmStreamEvent, StreamResult
from awaken_contract.errors import InferenceExecutionError, ProviderError, RateLimited
from awaken_contract.registry_spec import LlmRetryPolicy, RetryConfigKey

from awaken_runtime.engine.adapters.base import overrides_of
from awaken_runtime.engine.circuit_breaker import CircuitBreaker

__all__ = [
    "LlmRetryPolicy",
    "RetryAttempt",
    "RetryConfigKey",
    "RetryingExecutor",
    "with_retry",
]

logger = logging.getLogger("awaken.engine.retry")

Sleep = Callable[[float], Awaitable[None]]

DEFAULT_MAX_RETRY_AFTER_SECS = 60.0


@dataclass(frozen=True)
class RetryAttempt:
    """One failed attempt, as reported to ``on_attempt_failed``."""

    model: str
    attempt: int
    error: InferenceExecutionError
    delay_secs: float | None
    """Seconds slept before the next attempt on the same model; ``None`` = moving on."""


class _OpenStream:
    """An inner stream whose first event (or clean end) has arrived."""

    def __init__(self, events: AsyncIterator[LlmStreamEvent], first: LlmStreamEvent | None):
        self.events = events
        self.first = first


class RetryingExecutor(LlmExecutor):
    """Wraps an executor with the agent's ``LlmRetryPolicy``.

    Each model gets ``1 + max_retries`` attempts; after failed attempt *k* it sleeps
    ``min(backoff_base_ms * 2**k, 8000)`` ms, or the provider's ``retry-after`` when that is
    longer (up to ``max_retry_after_secs``; a longer wait skips to the next model). Retryable
    errors on the primary model move on to each fallback model in order (the request's
    ``fallback_models`` override wins over the policy's list). Non-retryable errors are raised
    immediately. When streaming, only opening the stream is retried: once an event was
    yielded, errors are surfaced (no duplicated deltas). An optional ``CircuitBreaker`` is
    checked before and updated after every attempt; an open breaker skips that model.
    """

    def __init__(
        self,
        inner: LlmExecutor,
        policy: LlmRetryPolicy | None = None,
        *,
        breaker: CircuitBreaker | None = None,
        sleep: Sleep = asyncio.sleep,
        max_retry_after_secs: float = DEFAULT_MAX_RETRY_AFTER_SECS,
        on_attempt_failed: Callable[[RetryAttempt], None] | None = None,
    ) -> None:
        self.inner = inner
        self.policy = policy or LlmRetryPolicy()
        self.breaker = breaker
        self._sleep = sleep
        self._max_retry_after = max_retry_after_secs
        self._on_failed = on_attempt_failed

    def name(self) -> str:
        return self.inner.name()

    def supports_response_format(self, request: InferenceRequest) -> bool:
        return self.inner.supports_response_format(request)

    def streams(self) -> bool:
        return self.inner.streams()

    def models_for(self, request: InferenceRequest) -> list[str]:
        """Primary model followed by the fallback models, in the order they are tried."""
        override = overrides_of(request).fallback_models
        fallbacks = self.policy.fallback_models if override is None else override
        return [request.upstream_model, *fallbacks]

    def _delay(self, attempt: int, error: InferenceExecutionError) -> float | None:
        """Seconds to wait before retrying, or ``None`` when the wait is too long."""
        delay = self.policy.backoff_ms(attempt) / 1000.0
        if isinstance(error, RateLimited) and error.retry_after is not None:
            if error.retry_after > self._max_retry_after:
                return None
            delay = max(delay, error.retry_after)
        return delay

    async def _attempts(
        self,
        request: InferenceRequest,
        call: Callable[[InferenceRequest], Awaitable[_OpenStream | StreamResult]],
        first_failure: InferenceExecutionError | None = None,
    ) -> tuple[_OpenStream | StreamResult, str]:
        """Every attempt in order; ``first_failure`` is the error of an attempt 1 on the
        primary model already made by the caller (it is handled, not repeated)."""
        last: InferenceExecutionError | None = None
        for index, model in enumerate(self.models_for(request)):
            if index > 0:
                logger.warning("falling back to model %s after: %s", model, last)
            attempt_request = (
                request if index == 0 else msgspec.structs.replace(request, upstream_model=model)
            )
            for attempt in range(self.policy.max_retries + 1):
                if self.breaker is not None and not self.breaker.allow(model):
                    last = ProviderError(f"circuit breaker open for model {model}")
                    self._report(model, attempt, last, None)
                    break
                try:
                    if first_failure is not None:
                        failure, first_failure = first_failure, None
                        raise failure
                    outcome = await call(attempt_request)
                except InferenceExecutionError as exc:
                    if self.breaker is not None:
                        self.breaker.record_failure(model)
                    last = exc
                    if not exc.retryable:
                        self._report(model, attempt, exc, None)
                        raise
                    is_last = attempt == self.policy.max_retries
                    delay = None if is_last else self._delay(attempt, exc)
                    self._report(model, attempt, exc, delay)
                    if delay is None:
                        break
                    if delay > 0:
                        await self._sleep(delay)
                    continue
                return outcome, model
        assert last is not None
        raise last

    def _report(
        self, model: str, attempt: int, error: InferenceExecutionError, delay: float | None
    ) -> None:
        logger.warning(
            "inference attempt %d on model %s failed: %s%s",
            attempt + 1,
            model,
            error,
            f" (retrying in {delay:.3f}s)" if delay is not None else "",
        )
        if self._on_failed is not None:
            self._on_failed(RetryAttempt(model, attempt, error, delay))

    async def execute(self, request: InferenceRequest) -> StreamResult:
        """Collected inference with retries and fallbacks."""
        if self.breaker is None:
            # The common case without a breaker: the first attempt awaited right here (one
            # coroutine less per inference); a failure continues in ``after_failure``.
            try:
                return await self.inner.execute(request)
            except InferenceExecutionError as exc:
                return await self.after_failure(request, exc)
        result, model = await self._attempts(request, self.inner.execute)
        assert isinstance(result, StreamResult)
        self.breaker.record_success(model)
        return result

    def first_attempt(self) -> LlmExecutor | None:
        """Where a collected inference's first attempt goes when a caller may await it
        itself (no circuit breaker to consult): ``execute`` is then ``await
        first.execute(request)``, a failure handed to :meth:`after_failure` — one coroutine
        less per model call (the loop does this, ADR 0034). ``None`` with a breaker."""
        return self.inner if self.breaker is None else None

    async def after_failure(
        self, request: InferenceRequest, failure: InferenceExecutionError
    ) -> StreamResult:
        """The rest of a collected inference whose first attempt (without a breaker) failed
        with ``failure``: its retries and fallbacks (raises when they fail too)."""
        result, _ = await self._attempts(request, self.inner.execute, failure)
        assert isinstance(result, StreamResult)
        return result

    async def stream(self, request: InferenceRequest) -> AsyncIterator[LlmStreamEvent]:
        """Streamed inference; only opening the stream is retried."""

        async def open_stream(req: InferenceRequest) -> _OpenStream:
            events = aiter(self.inner.stream(req))
            try:
                first = await anext(events)
            except StopAsyncIteration:
                return _OpenStream(events, None)
            return _OpenStream(events, first)

        opened, model = await self._attempts(request, open_stream)
        assert isinstance(opened, _OpenStream)
        if opened.first is None:
            if self.breaker is not None:
                self.breaker.record_success(model)
            return
        try:
            yield opened.first
            async for event in opened.events:
                yield event
        except InferenceExecutionError:
            if self.breaker is not None:
                self.breaker.record_failure(model)
            raise
        finally:
            aclose = getattr(opened.events, "aclose", None)
            if aclose is not None:
                await aclose()
        if self.breaker is not None:
            self.breaker.record_success(model)


def with_retry(
    inner: LlmExecutor,
    policy: LlmRetryPolicy,
    *,
    breaker: CircuitBreaker | None = None,
) -> LlmExecutor:
    """``inner`` wrapped in a ``RetryingExecutor`` when the policy retries or falls back."""
    if not policy.is_enabled() and breaker is None:
        return inner
    return RetryingExecutor(inner, policy, breaker=breaker)
