"""``AgentRuntimeError``: the runtime refused a run (thread busy, unknown agent, resolve failed)."""

from __future__ import annotations

from awaken_contract.errors.base import AwakenError


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
