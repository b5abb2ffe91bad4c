"""``AgentRuntimeBuilder``: the standard way to assemble an :class:`AgentRuntime`.

It accumulates agent specs, tools, models, providers, plugins and remote backends, plus the
stores. Duplicate ids do not raise immediately: the error is recorded and the **first**
recorded error is raised by ``build()`` / ``build_unchecked()``. ``build()`` then resolves
every local agent once (a dry run) and checks every remote agent's backend, raising
``ValidationFailed`` that names each failing agent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from awaken_contract.contract.executor import LlmExecutor
from awaken_contract.contract.storage import ProfileStore, ThreadRunStore
from awaken_contract.contract.tool import Tool, ToolExecutionMode
from awaken_contract.errors import AwakenError, BuildError, ValidationFailed
from awaken_contract.plugin import Plugin
from awaken_contract.registry_spec import AgentSpec, AgentSystemConfig, ModelSpec, RemoteEndpoint

from awaken_runtime.execution.executor import ToolExecutor
from awaken_runtime.registry.registries import AgentBackendFactory, ModelEntry, RegistrySet
from awaken_runtime.registry.resolver import RegistryResolver
from awaken_runtime.remote.a2a import a2a_backend_factory
from awaken_runtime.runtime.agent_runtime import AgentRuntime

__all__ = ["AgentRuntimeBuilder"]


class AgentRuntimeBuilder:
    """Collects registrations and builds an :class:`AgentRuntime`.

    ``AgentRuntimeBuilder().with_agent_spec(spec).with_tool("echo", Echo())
    .with_provider("openai", executor).with_model("m", ModelSpec(...)).build()``
    """

    def __init__(self) -> None:
        self.registries = RegistrySet()
        self._errors: list[BuildError] = []
        self._thread_run_store: ThreadRunStore | None = None
        self._profile_store: ProfileStore | None = None
        self._tool_execution_mode = ToolExecutionMode.SEQUENTIAL
        self._tool_executor: ToolExecutor | None = None

    @classmethod
    def new(cls) -> AgentRuntimeBuilder:
        """A new, empty builder."""
        return cls()

    def _record(self, register: Any, item_id: str, item: Any) -> AgentRuntimeBuilder:
        try:
            register(item_id, item)
        except BuildError as exc:
            self._errors.append(exc)
        return self

    # ------------------------------------------------------------------ registrations
    def with_agent_spec(self, spec: AgentSpec) -> AgentRuntimeBuilder:
        """Register an agent spec."""
        return self._record(self.registries.agents.register, spec.id, spec)

    def with_agent_specs(self, specs: Iterable[AgentSpec]) -> AgentRuntimeBuilder:
        """Register several agent specs."""
        for spec in specs:
            self.with_agent_spec(spec)
        return self

    def with_tool(self, tool_id: str, tool: Tool) -> AgentRuntimeBuilder:
        """Register a global tool (offered to every agent unless filtered)."""
        return self._record(self.registries.tools.register, tool_id, tool)

    def with_tools(self, tools: Iterable[Tool]) -> AgentRuntimeBuilder:
        """Register tools under their descriptor ids."""
        for tool in tools:
            self.with_tool(tool.descriptor().id, tool)
        return self

    def with_plugin(self, plugin_id: str, plugin: Plugin) -> AgentRuntimeBuilder:
        """Register a plugin under the id agent specs list in ``plugin_ids``."""
        return self._record(self.registries.plugins.register, plugin_id, plugin)

    def with_provider(self, provider_id: str, executor: LlmExecutor) -> AgentRuntimeBuilder:
        """Register an LLM executor as a provider."""
        return self._record(self.registries.providers.register, provider_id, executor)

    def with_model(self, model_id: str, model: ModelSpec | ModelEntry) -> AgentRuntimeBuilder:
        """Register a model (a :class:`ModelSpec`, or the book's :class:`ModelEntry`)."""
        spec = model.to_spec(model_id) if isinstance(model, ModelEntry) else model
        return self._record(self.registries.models.register, model_id, spec)

    def with_model_binding(
        self, model_id: str, model: ModelSpec | ModelEntry
    ) -> AgentRuntimeBuilder:
        """Alias of :meth:`with_model`."""
        return self.with_model(model_id, model)

    def with_model_spec(self, model: ModelSpec) -> AgentRuntimeBuilder:
        """Register a model under its own id."""
        return self.with_model(model.id, model)

    def with_config(self, config: AgentSystemConfig) -> AgentRuntimeBuilder:
        """Register the models and agents of a loaded configuration file."""
        for model in config.models:
            self.with_model_spec(model)
        return self.with_agent_specs(config.agents)

    def with_agent_backend_factory(
        self, backend: str, factory: AgentBackendFactory
    ) -> AgentRuntimeBuilder:
        """Register the validator of a remote agent backend (e.g. ``"a2a"``)."""
        return self._record(self.registries.backends.register, backend, factory)

    def with_remote_agents(
        self, name: str, base_url: str, token: str | None = None
    ) -> AgentRuntimeBuilder:
        """Register a remote A2A agent usable as a delegate (it needs an ``a2a`` backend)."""
        endpoint = RemoteEndpoint.a2a(base_url)
        if token:
            endpoint = endpoint.with_bearer_token(token)
        return self.with_agent_spec(AgentSpec(name).with_endpoint(endpoint))

    # ------------------------------------------------------------------ stores & options
    def with_thread_run_store(self, store: ThreadRunStore) -> AgentRuntimeBuilder:
        """Persist threads, messages and runs (checkpoints) in ``store``."""
        self._thread_run_store = store
        return self

    def with_profile_store(self, store: ProfileStore) -> AgentRuntimeBuilder:
        """Give hooks a profile store (``ctx.profile``, scoped to the active agent)."""
        self._profile_store = store
        return self

    def with_tool_execution_mode(self, mode: ToolExecutionMode) -> AgentRuntimeBuilder:
        """How a step's tool calls run (sequential by default)."""
        self._tool_execution_mode = mode
        self._tool_executor = None
        return self

    def with_tool_executor(self, executor: ToolExecutor) -> AgentRuntimeBuilder:
        """Run tool calls with ``executor`` (e.g. ``ParallelToolExecutor.streaming()``)."""
        self._tool_executor = executor
        return self

    # ------------------------------------------------------------------ build
    def build_unchecked(self) -> AgentRuntime:
        """Build without validating agents (raises the first recorded registration error)."""
        if self._errors:
            raise self._errors[0]
        if self.registries.backends.get("a2a") is None:
            # The built-in remote backend (book: A2A is the built-in delegation backend).
            self.registries.backends.register("a2a", a2a_backend_factory)
        resolver = RegistryResolver(self.registries, self._tool_execution_mode, self._tool_executor)
        return AgentRuntime(
            resolver,
            registries=self.registries,
            thread_run_store=self._thread_run_store,
            profile_store=self._profile_store,
        )

    def build(self) -> AgentRuntime:
        """Build and dry-run resolve every agent (``ValidationFailed`` names the failures)."""
        runtime = self.build_unchecked()
        resolver = runtime.resolver
        assert isinstance(resolver, RegistryResolver)
        failures: dict[str, str] = {}
        for agent_id, spec in self.registries.agents.items():
            try:
                if spec.endpoint is not None:
                    resolver.validate_remote(spec)
                else:
                    resolver.resolve(agent_id)
            except AwakenError as exc:
                failures[agent_id] = str(exc)
        if failures:
            raise ValidationFailed(failures)
        return runtime
