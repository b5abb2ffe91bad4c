"""Remote agent backends: delegates that run on another server (A2A)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from awaken_runtime.remote.a2a import (
    A2A_TASK_PROGRESS,
    A2aBackend,
    A2aEndpointConfig,
    RemoteTaskRef,
    a2a_backend_factory,
)

if TYPE_CHECKING:
    from awaken_runtime.builder import AgentRuntimeBuilder

__all__ = [
    "A2A_TASK_PROGRESS",
    "A2aBackend",
    "A2aEndpointConfig",
    "RemoteTaskRef",
    "a2a_backend_factory",
    "register_a2a_backend",
]


def register_a2a_backend(builder: AgentRuntimeBuilder) -> AgentRuntimeBuilder:
    """Register the built-in ``a2a`` backend on ``builder`` (unless one is registered)."""
    if builder.registries.backends.get("a2a") is None:
        builder.with_agent_backend_factory("a2a", a2a_backend_factory)
    return builder
