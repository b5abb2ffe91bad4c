"""``AgentLoopError``: the agent loop failed (inference, storage, phases, output, resume)."""

from __future__ import annotations

from awaken_contract.errors.base import AwakenError
from awaken_contract.errors.state import StateError


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


class InvalidObserverHook(AgentLoopError, TypeError):
    """An observer hook (:class:`~awaken_contract.hooks.ObserverHook`) that is not one: an
    ``async`` function given to ``PhaseHook.observer`` (rejected when it is wrapped), or an
    ``observe`` that returned something (raised where the hook ran). A hook that changes state
    is a plain ``PhaseHook``."""

    def __init__(self, hook: str, problem: str) -> None:
        self.hook = hook
        self.problem = problem
        super().__init__(f"observer hook {hook} {problem}")


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
