"""``ResolveError``: an agent could not be resolved (models, providers, plugins, remotes)."""

from __future__ import annotations

from awaken_contract.errors.base import AwakenError
from awaken_contract.errors.state import StateError


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


ResolveError.AgentNotFound = ResolveAgentNotFound  # type: ignore[attr-defined]
