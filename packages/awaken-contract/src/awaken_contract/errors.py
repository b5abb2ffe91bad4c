"""Every error Awaken raises, under one base class.

The book's error enums become exception families: a base class per enum and one subclass per
variant. ``str(error)`` is the book's display text, so messages stay stable for users and tests.
Where two families share a variant name (``NotFound``), the subclass carries a prefix
(``ToolNotFound``, ``StorageNotFound``) and the family exposes the book's name as an attribute
(``ToolError.NotFound is ToolNotFound``).
"""

from __future__ import annotations

from typing import Any


class AwakenError(Exception):
    """Base class of every error raised by Awaken.

    ``retryable`` says whether trying the same work again may succeed (a provider hiccup, a
    store that was briefly unavailable); the mailbox retries such runs with backoff and
    dead-letters the others. Families override the class default; an instance may too.
    """

    retryable: bool = False


class DecodeError(AwakenError, ValueError):
    """A JSON document could not be decoded into the expected Awaken type."""

    def __init__(self, type_name: str, message: str) -> None:
        self.type_name = type_name
        self.message = message
        super().__init__(f"invalid {type_name}: {message}")


class ConfigLoadError(AwakenError):
    """A configuration file could not be read or parsed."""


class InvalidId(AwakenError, ValueError):
    """A client-supplied id breaks the shared id rule (``awaken_contract.ids.check_id``)."""

    def __init__(self, what: str, problem: str) -> None:
        self.what = what
        self.problem = problem
        super().__init__(f"{what} {problem}")


class UserIdRequired(AwakenError, LookupError):
    """A run without a user id touched a profile key kept per user (``PER`` user/agent_user)."""

    def __init__(self, per: str) -> None:
        self.per = per
        super().__init__(
            f"profile key kept per {per} needs the run's user id"
            " (RunRequest.with_user_id, or userId in the request body)"
        )


# --------------------------------------------------------------------------- StateError


class StateError(AwakenError):
    """Failures of the state engine (keys, commits, phases, handlers)."""


class RevisionConflict(StateError):
    def __init__(self, expected: int, actual: int) -> None:
        self.expected, self.actual = expected, actual
        super().__init__(f"revision conflict: expected {expected}, actual {actual}")


class MutationBaseRevisionMismatch(StateError):
    def __init__(self, left: int, right: int) -> None:
        self.left, self.right = left, right
        super().__init__(f"patch base revision mismatch: {left} vs {right}")


class PluginAlreadyInstalled(StateError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"plugin already installed: {name}")


class PluginNotInstalled(StateError):
    def __init__(self, type_name: str) -> None:
        self.type_name = type_name
        super().__init__(f"plugin not installed: {type_name}")


class KeyAlreadyRegistered(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"key already registered: {key}")


class UnknownKey(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"unknown key: {key}")


class KeyDecode(StateError):
    def __init__(self, key: str, message: str) -> None:
        self.key, self.message = key, message
        super().__init__(f"failed to decode key {key}: {message}")


class KeyEncode(StateError):
    def __init__(self, key: str, message: str) -> None:
        self.key, self.message = key, message
        super().__init__(f"failed to encode key {key}: {message}")


class HandlerAlreadyRegistered(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"scheduled action handler already registered: {key}")


class EffectHandlerAlreadyRegistered(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"effect handler already registered: {key}")


class PhaseRunLoopExceeded(StateError):
    def __init__(self, phase: Any, max_rounds: int) -> None:
        self.phase, self.max_rounds = phase, max_rounds
        super().__init__(f"phase {phase} did not converge after {max_rounds} rounds")


class UnknownScheduledActionHandler(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"no scheduled action handler registered for {key}")


class UnknownEffectHandler(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"no effect handler registered for {key}")


class ParallelMergeConflict(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"parallel merge conflict on exclusive key: {key}")


class ToolAlreadyRegistered(StateError):
    def __init__(self, tool_id: str) -> None:
        self.tool_id = tool_id
        super().__init__(f"tool already registered: {tool_id}")


class StateCancelled(StateError):
    def __init__(self) -> None:
        super().__init__("operation cancelled")


# --------------------------------------------------------------------------- ToolError


class ToolError(AwakenError):
    """A tool failed. The loop turns it into an error ToolResult the model sees."""

    prefix = "Tool error"

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(f"{self.prefix}: {message}")


class InvalidArguments(ToolError):
    prefix = "Invalid arguments"

    def __init__(self, message: str, field: str | None = None) -> None:
        self.field = field
        super().__init__(message)


class ExecutionFailed(ToolError):
    prefix = "Execution failed"


class Denied(ToolError):
    prefix = "Denied"


class ToolNotFound(ToolError):
    prefix = "Not found"


class ToolInternalError(ToolError):
    prefix = "Internal error"


# --------------------------------------------------------------------------- BuildError


class BuildError(AwakenError):
    """The runtime could not be built from its registrations."""


class BuildStateError(BuildError):
    def __init__(self, error: StateError) -> None:
        self.error = error
        super().__init__(f"state error: {error}")


class _RegistryConflict(BuildError):
    kind = "agent"

    def __init__(self, item_id: str) -> None:
        self.item_id = item_id
        super().__init__(
            f"{self.kind} registry conflict: {self.kind} '{item_id}' already registered"
        )


class AgentRegistryConflict(_RegistryConflict):
    kind = "agent"


class ToolRegistryConflict(_RegistryConflict):
    kind = "tool"


class ModelRegistryConflict(_RegistryConflict):
    kind = "model"


class ProviderRegistryConflict(_RegistryConflict):
    kind = "provider"


class PluginRegistryConflict(_RegistryConflict):
    kind = "plugin"


class BackendRegistryConflict(_RegistryConflict):
    kind = "backend"


class ValidationFailed(BuildError):
    """``build()`` resolved every agent and some failed; ``failures`` maps agent id to error."""

    def __init__(self, failures: dict[str, str] | str) -> None:
        if isinstance(failures, str):
            self.failures: dict[str, str] = {}
            detail = failures
        else:
            self.failures = dict(failures)
            detail = "; ".join(f"{agent}: {err}" for agent, err in self.failures.items())
        super().__init__(f"agent validation failed: {detail}")


class DiscoveryFailed(BuildError):
    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(f"discovery failed: {message}")


# --------------------------------------------------------------------------- ResolveError


class ResolveError(AwakenError):
    """An agent spec could not be resolved into a runnable agent."""


class ResolveAgentNotFound(ResolveError):
    def __init__(self, agent_id: str) -> None:
        self.agent_id = agent_id
        super().__init__(f"agent not found: {agent_id}")


class ModelNotFound(ResolveError):
    def __init__(self, model_id: str) -> None:
        self.model_id = model_id
        super().__init__(f"model not found: {model_id}")


class ProviderNotFound(ResolveError):
    def __init__(self, provider_id: str) -> None:
        self.provider_id = provider_id
        super().__init__(f"provider not found: {provider_id}")


class PluginNotFound(ResolveError):
    def __init__(self, plugin_id: str) -> None:
        self.plugin_id = plugin_id
        super().__init__(f"plugin not found: {plugin_id}")


class InvalidPluginConfig(ResolveError):
    def __init__(self, plugin: str, key: str, message: str) -> None:
        self.plugin, self.key, self.message = plugin, key, message
        super().__init__(f'invalid config for plugin {plugin}: section "{key}" — {message}')


class InvalidOutputSchema(ResolveError):
    """An agent's ``output_schema`` is not a valid JSON Schema."""

    def __init__(self, agent_id: str, message: str) -> None:
        self.agent_id, self.message = agent_id, message
        super().__init__(f"agent '{agent_id}': output_schema is an invalid JSON Schema: {message}")


class UnsupportedRemoteBackend(ResolveError):
    def __init__(self, agent_id: str, backend: str) -> None:
        self.agent_id, self.backend = agent_id, backend
        super().__init__(f"unsupported remote backend `{backend}` for delegate `{agent_id}`")


class InvalidRemoteEndpointConfig(ResolveError):
    def __init__(self, agent_id: str, backend: str, message: str) -> None:
        self.agent_id, self.backend, self.message = agent_id, backend, message
        super().__init__(
            f"invalid remote endpoint config for delegate `{agent_id}` backend `{backend}`"
            f" — {message}"
        )


class RemoteAgentNotDirectlyRunnable(ResolveError):
    def __init__(self, agent_id: str) -> None:
        self.agent_id = agent_id
        super().__init__(
            f"remote agent `{agent_id}` cannot be resolved locally — use it as a delegate instead"
        )


class ToolIdConflict(ResolveError):
    def __init__(self, tool_id: str, source_a: str, source_b: str) -> None:
        self.tool_id, self.source_a, self.source_b = tool_id, source_a, source_b
        super().__init__(
            f'tool ID conflict: "{tool_id}" registered by both {source_a} and {source_b}'
        )


class EnvBuildError(ResolveError):
    def __init__(self, error: StateError) -> None:
        self.error = error
        super().__init__(f"env build error: {error}")


# --------------------------------------------------------------------------- AgentRuntimeError


class AgentRuntimeError(AwakenError):
    """Errors of ``AgentRuntime`` itself (the book's ``RuntimeError``)."""

    retryable = True


class ThreadAlreadyRunning(AgentRuntimeError):
    retryable = False

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id
        super().__init__(f"thread already has an active run: {thread_id}")


class AgentNotFound(AgentRuntimeError):
    retryable = False

    def __init__(self, agent_id: str) -> None:
        self.agent_id = agent_id
        super().__init__(f"agent not found: {agent_id}")


class ResolveFailed(AgentRuntimeError):
    retryable = False

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(f"resolve failed: {message}")


# --------------------------------------------------------------------------- inference


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


# --------------------------------------------------------------------------- StorageError


class StorageError(AwakenError):
    """A store operation failed."""

    retryable = True
    prefix = "storage error"

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(f"{self.prefix}: {message}")


class StorageNotFound(StorageError):
    prefix = "not found"


class AlreadyExists(StorageError):
    prefix = "already exists"


class VersionConflict(StorageError):
    def __init__(self, expected: Any, actual: Any) -> None:
        self.expected, self.actual = expected, actual
        super().__init__(f"expected {expected}, actual {actual}")

    prefix = "version conflict"


class StorageIoError(StorageError):
    prefix = "io error"


class SerializationError(StorageError):
    prefix = "serialization error"


# --------------------------------------------------------------------------- loop


class AgentLoopError(AwakenError):
    """A run could not complete (what ``AgentRuntime.run`` raises)."""


class InferenceFailed(AgentLoopError):
    retryable = True

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(f"inference failed: {message}")


class LoopStorageFailed(AgentLoopError):
    retryable = True

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(f"storage failed: {message}")


class PhaseError(AgentLoopError):
    def __init__(self, error: StateError) -> None:
        self.error = error
        super().__init__(f"phase error: {error}")


class OutputValidationFailed(AgentLoopError):
    """The model's final answer still did not match the agent's output schema after the
    configured retries (``output_schema.max_retries``)."""

    def __init__(self, attempts: int, message: str) -> None:
        self.attempts = attempts
        self.message = message
        super().__init__(f"structured output invalid after {attempts} attempt(s): {message}")


class InvalidResume(AgentLoopError):
    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(f"invalid resume: {message}")


# Book-style variant access: ``ToolError.NotFound``, ``StorageError.Io`` …
ToolError.InvalidArguments = InvalidArguments  # type: ignore[attr-defined]
ToolError.ExecutionFailed = ExecutionFailed  # type: ignore[attr-defined]
ToolError.Denied = Denied  # type: ignore[attr-defined]
ToolError.NotFound = ToolNotFound  # type: ignore[attr-defined]
ToolError.Internal = ToolInternalError  # type: ignore[attr-defined]
StorageError.NotFound = StorageNotFound  # type: ignore[attr-defined]
StorageError.AlreadyExists = AlreadyExists  # type: ignore[attr-defined]
StorageError.VersionConflict = VersionConflict  # type: ignore[attr-defined]
StorageError.Io = StorageIoError  # type: ignore[attr-defined]
StorageError.Serialization = SerializationError  # type: ignore[attr-defined]
ResolveError.AgentNotFound = ResolveAgentNotFound  # type: ignore[attr-defined]
InferenceExecutionError.Provider = ProviderError  # type: ignore[attr-defined]
InferenceExecutionError.RateLimited = RateLimited  # type: ignore[attr-defined]
InferenceExecutionError.Timeout = InferenceTimeout  # type: ignore[attr-defined]
InferenceExecutionError.Cancelled = InferenceCancelled  # type: ignore[attr-defined]
StateError.Cancelled = StateCancelled  # type: ignore[attr-defined]
