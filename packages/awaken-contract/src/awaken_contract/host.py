"""What a host (``awaken serve``) offers plugins beyond ``register``: the narrow seams it binds
after discovering them.

* :class:`NeedsAgentRunner` — the plugin runs other agents of the runtime (the compaction
  extension runs its compactor agent); the host calls ``bind_agent_runner(runtime,
  model_windows)`` once the runtime is built. ``AgentRuntime`` satisfies :class:`AgentRunner`.
* :class:`HostedPlugin` — the plugin owns resources configured at system level (the MCP
  extension connects the YAML's ``mcp_servers``): the host awaits ``start(system)`` before each
  runtime build (also after config API writes), ``close()`` at shutdown, and shows
  ``status()`` in ``GET /v1/capabilities``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from awaken_contract.contract.request import RunRequest
from awaken_contract.registry_spec import AgentSystemConfig

__all__ = ["AgentRunner", "HostedPlugin", "JsonValue", "NeedsAgentRunner", "RunResponse"]

JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]
"""Plain JSON data."""


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


@runtime_checkable
class HostedPlugin(Protocol):
    """A plugin with system-level resources the host starts, reports and closes."""

    async def start(self, system: AgentSystemConfig) -> None: ...

    async def close(self) -> None: ...

    def status(self) -> dict[str, JsonValue]: ...
