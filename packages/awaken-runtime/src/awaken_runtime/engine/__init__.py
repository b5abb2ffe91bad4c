"""LLM execution: provider adapters over httpx, retries, fallbacks and circuit breakers.

The book's ``awaken::engine`` module: ``GenaiExecutor`` talks to OpenAI-compatible servers,
Anthropic and Gemini; ``RetryingExecutor`` and ``CircuitBreaker`` make any ``LlmExecutor``
resilient; ``MockLlmExecutor`` and ``ScriptedLlm`` answer without a network for tests.
"""

from awaken_runtime.engine.adapters.base import ProviderAdapter, ProviderEndpoint, StreamParser
from awaken_runtime.engine.circuit_breaker import (
    CircuitBreaker,
    CircuitBreakerConfig,
    CircuitState,
)
from awaken_runtime.engine.collect import StreamCollector, collect_stream
from awaken_runtime.engine.genai import GenaiExecutor
from awaken_runtime.engine.mock import (
    DEFAULT_MOCK_RESPONSE,
    MockLlmExecutor,
    ScriptedLlm,
    text_step,
    tool_step,
)
from awaken_runtime.engine.providers import (
    KNOWN_ADAPTERS,
    adapter_defaults,
    infer_adapter,
    provider_from_env,
    resolve_endpoint,
)
from awaken_runtime.engine.retry import (
    LlmRetryPolicy,
    RetryAttempt,
    RetryConfigKey,
    RetryingExecutor,
    with_retry,
)

__all__ = [
    "DEFAULT_MOCK_RESPONSE",
    "KNOWN_ADAPTERS",
    "CircuitBreaker",
    "CircuitBreakerConfig",
    "CircuitState",
    "GenaiExecutor",
    "LlmRetryPolicy",
    "MockLlmExecutor",
    "ProviderAdapter",
    "ProviderEndpoint",
    "RetryAttempt",
    "RetryConfigKey",
    "RetryingExecutor",
    "ScriptedLlm",
    "StreamCollector",
    "StreamParser",
    "adapter_defaults",
    "collect_stream",
    "infer_adapter",
    "provider_from_env",
    "resolve_endpoint",
    "text_step",
    "tool_step",
    "with_retry",
]
