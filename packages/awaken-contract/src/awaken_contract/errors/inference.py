"""``InferenceExecutionError``: a model call failed (provider, rate limit, timeout, cancel)."""

from __future__ import annotations

from awaken_contract.errors.base import AwakenError


class InferenceExecutionError(AwakenError):
    """An LLM call failed. ``retryable`` tells the retry wrapper whether to try again."""

    retryable = True
    prefix = "provider error"

    def __init__(self, message: str = "") -> None:
        self.message = message
        super().__init__(f"{self.prefix}: {message}" if message else self.prefix)


class ProviderError(InferenceExecutionError):
    prefix = "provider error"


class ProviderAuthError(ProviderError):
    """The provider rejected the credentials (HTTP 401/403); retrying cannot help."""

    retryable = False


class RateLimited(InferenceExecutionError):
    prefix = "rate limited"

    def __init__(self, message: str = "", retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class InferenceTimeout(InferenceExecutionError):
    prefix = "timeout"


class InferenceCancelled(InferenceExecutionError):
    retryable = False
    prefix = "cancelled"


class UnsupportedModality(InferenceExecutionError):
    """The request carries input (image, audio, …) the model does not declare it accepts;
    raised before the provider is called."""

    retryable = False
    prefix = "unsupported input"


InferenceExecutionError.Provider = ProviderError  # type: ignore[attr-defined]
InferenceExecutionError.RateLimited = RateLimited  # type: ignore[attr-defined]
InferenceExecutionError.Timeout = InferenceTimeout  # type: ignore[attr-defined]
InferenceExecutionError.Cancelled = InferenceCancelled  # type: ignore[attr-defined]
