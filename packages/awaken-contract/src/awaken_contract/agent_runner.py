"""Running agents from a plugin: the narrow seam a host (``awaken serve``) binds after build.

A plugin that needs to run another agent of the same runtime (the compaction extension runs
its compactor agent) implements :class:`NeedsAgentRunner`; the host calls
``bind_agent_runner(runtime, model_windows)`` once the runtime is built. ``AgentRuntime``
satisfies :class:`AgentRunner` structurally.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from awaken_contract.contract.request import RunRequest

__all__ = ["AgentRunner", "NeedsAgentRunner", "RunResponse"]


class RunResponse(Protocol):
    """What a finished run reports."""

    @property
    def response(self) -> str: ...


class AgentRunner(Protocol):
    """Runs an agent to completion."""

    async def run(self, request: RunRequest) -> RunResponse: ...


@runtime_checkable
class NeedsAgentRunner(Protocol):
    """A plugin that runs agents; ``model_windows``: context window (tokens) by model id."""

    def bind_agent_runner(
        self, runner: AgentRunner, model_windows: Mapping[str, int] | None = None
    ) -> None: ...
