"""``BuildError``: the runtime could not be built from its registrations."""

from __future__ import annotations

from awaken_contract.errors.base import AwakenError
from awaken_contract.errors.state import StateError


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
