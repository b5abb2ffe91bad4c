"""The three-stage resolve pipeline: ``(RegistrySet, agent_id) -> ResolvedAgent``.

1. **Lookup** — the AgentSpec (a spec with an ``endpoint`` is remote: only usable as a
   delegate), its ModelSpec and the provider's executor, wrapped in a ``RetryingExecutor``
   (the spec's ``retry`` section, else the default policy).
2. **Plugins** — ``plugin_ids`` in order, then registered plugins named only in
   ``active_hook_filter`` (the book's ``with_hook_filter(id)``), plus the default plugins;
   every plugin's config schemas are validated against the spec's sections
   (``InvalidPluginConfig``; a section no plugin claims only logs a warning); then
   ``ExecutionEnv.from_plugins``.
3. **Tools** — global tools, then plugin tools (same id as a global tool → ``ToolIdConflict``),
   then ``allowed_tools`` / ``excluded_tools``. Delegates must exist (``AgentNotFound``) and
   become ``agent_run_<id>`` :class:`AgentTool` s (local ones run through this resolver).

Results are cached per agent id and registry version; each call returns a fresh copy.
"""

from __future__ import annotations

import logging

import jsonschema
from awaken_contract.contract.executor import LlmExecutor
from awaken_contract.contract.tool import Tool, ToolExecutionMode
from awaken_contract.errors import (
    EnvBuildError,
    InvalidOutputSchema,
    InvalidPluginConfig,
    InvalidRemoteEndpointConfig,
    KeyDecode,
    ModelNotFound,
    PluginNotFound,
    ProviderNotFound,
    RemoteAgentNotDirectlyRunnable,
    ResolveAgentNotFound,
    StateError,
    ToolIdConflict,
    UnsupportedRemoteBackend,
)
from awaken_contract.plugin import Plugin
from awaken_contract.registry_spec import AgentSpec, RetryConfigKey

from awaken_runtime.context.model_window import spec_for_model
from awaken_runtime.engine.capabilities import with_capability_checks
from awaken_runtime.engine.retry import with_retry
from awaken_runtime.execution.executor import ToolExecutor, executor_for_mode
from awaken_runtime.extensions.delegation import AgentBackend, AgentTool
from awaken_runtime.extensions.delegation.tool import agent_tool_id, delegate_description
from awaken_runtime.plugins.env import ExecutionEnv
from awaken_runtime.registry.registries import RegistrySet
from awaken_runtime.registry.resolved import AgentResolver, ResolvedAgent, default_plugins

__all__ = ["KNOWN_SECTIONS", "RegistryResolver", "validate_sections"]

_log = logging.getLogger(__name__)

#: Sections the runtime itself reads (never reported as unclaimed).
KNOWN_SECTIONS = frozenset({RetryConfigKey.KEY})


def validate_output_schema(spec: AgentSpec) -> None:
    """The spec's ``output_schema`` is a valid JSON Schema (``InvalidOutputSchema``)."""
    output = spec.output_schema
    if output is None:
        return
    try:
        jsonschema.validators.validator_for(output.json_schema).check_schema(output.json_schema)
    except jsonschema.SchemaError as exc:
        raise InvalidOutputSchema(spec.id, exc.message) from None


def validate_sections(spec: AgentSpec, plugins: list[Plugin]) -> None:
    """Validate each plugin's config schemas against the spec's sections."""
    claimed: set[str] = set()
    for plugin in plugins:
        for schema in plugin.config_schemas():
            claimed.add(schema.key)
            if schema.key not in spec.sections:
                continue
            try:
                jsonschema.validate(spec.sections[schema.key], schema.json_schema)
            except jsonschema.ValidationError as exc:
                where = "/".join(str(p) for p in exc.absolute_path)
                message = f"{where}: {exc.message}" if where else exc.message
                raise InvalidPluginConfig(plugin.descriptor().name, schema.key, message) from None
            except jsonschema.SchemaError as exc:
                raise InvalidPluginConfig(
                    plugin.descriptor().name, schema.key, f"invalid schema: {exc.message}"
                ) from None
    for key in spec.sections:
        if key not in claimed and key not in KNOWN_SECTIONS:
            _log.warning(
                "agent %s: config section %r is not claimed by any plugin (typo?)", spec.id, key
            )


class RegistryResolver(AgentResolver):
    """Resolves agents from a :class:`RegistrySet`."""

    def __init__(
        self,
        registries: RegistrySet,
        tool_execution_mode: ToolExecutionMode = ToolExecutionMode.SEQUENTIAL,
        tool_executor: ToolExecutor | None = None,
    ) -> None:
        self.registries = registries
        self.tool_execution_mode = tool_execution_mode
        self.tool_executor = tool_executor
        self._cache: dict[str, tuple[int, AgentSpec, ResolvedAgent]] = {}

    def resolve(self, agent_id: str) -> ResolvedAgent:
        """Resolve ``agent_id`` (raises a ``ResolveError``)."""
        return self.resolve_for_run(agent_id).copy()

    def resolve_for_run(self, agent_id: str) -> ResolvedAgent:
        """The cached resolution of ``agent_id`` itself (runs only read it; rebuilt when the
        registries or the spec changed)."""
        registries = self.registries
        spec = registries.agents.get(agent_id)
        if spec is None:
            raise ResolveAgentNotFound(agent_id)
        cached = self._cache.get(agent_id)
        if cached is not None and cached[0] == registries.version and cached[1] is spec:
            return cached[2]
        agent = self._resolve(spec)
        self._cache[agent_id] = (registries.version, spec, agent)
        return agent

    def resolve_spec(self, spec: AgentSpec) -> ResolvedAgent:
        """Resolve an unregistered spec (e.g. a handoff overlay of a registered agent)."""
        return self._resolve(spec)

    def validate_remote(self, spec: AgentSpec) -> object:
        """Check that a remote (endpoint) agent has a backend that accepts its endpoint;
        returns what the backend factory made (an ``AgentBackend`` when it can run delegates)."""
        endpoint = spec.endpoint
        assert endpoint is not None
        factory = self.registries.backends.get(endpoint.backend)
        if factory is None:
            raise UnsupportedRemoteBackend(spec.id, endpoint.backend)
        try:
            return factory(spec.id, endpoint)
        except ValueError as exc:
            raise InvalidRemoteEndpointConfig(spec.id, endpoint.backend, str(exc)) from None

    # ------------------------------------------------------------------ stages
    def _resolve(self, spec: AgentSpec) -> ResolvedAgent:
        if spec.endpoint is not None:
            raise RemoteAgentNotDirectlyRunnable(spec.id)
        registries = self.registries
        model = registries.models.get(spec.model)
        if model is None:
            raise ModelNotFound(spec.model)
        provider = registries.providers.get(model.provider)
        if provider is None:
            raise ProviderNotFound(model.provider)
        spec = spec_for_model(spec, model)
        executor = with_capability_checks(self._with_retry(spec, provider), model)

        user_plugins: list[Plugin] = []
        for plugin_id in spec.plugin_ids:
            plugin = registries.plugins.get(plugin_id)
            if plugin is None:
                raise PluginNotFound(plugin_id)
            user_plugins.append(plugin)
        # The book activates a registered plugin with ``with_hook_filter(id)`` alone: a
        # registered plugin named in the hook filter is loaded too (after ``plugin_ids``).
        for plugin_id in sorted(spec.active_hook_filter):
            plugin = registries.plugins.get(plugin_id)
            if plugin is not None and plugin_id not in spec.plugin_ids:
                user_plugins.append(plugin)
        plugins = [*user_plugins, *default_plugins(spec)]
        validate_sections(spec, plugins)
        validate_output_schema(spec)
        try:
            env = ExecutionEnv.from_plugins(plugins, spec.active_hook_filter)
        except StateError as exc:
            raise EnvBuildError(exc) from exc

        tools = self._tools(spec, env)
        return ResolvedAgent(
            spec,
            model.model,
            executor,
            tools=tools,
            tool_executor=self.tool_executor or executor_for_mode(self.tool_execution_mode),
            env=env,
            plugins=user_plugins,
            model=model,
        )

    @staticmethod
    def _with_retry(spec: AgentSpec, provider: LlmExecutor) -> LlmExecutor:
        """``provider`` behind the agent's retry policy: the ``retry`` section, else the
        default ``LlmRetryPolicy()`` (2 retries with backoff and ``Retry-After``).
        ``retry: {max_retries: 0}`` turns retries off."""
        try:
            policy = spec.config(RetryConfigKey)
        except KeyDecode as exc:
            raise InvalidPluginConfig("retry", RetryConfigKey.KEY, exc.message) from None
        return with_retry(provider, policy)

    def _tools(self, spec: AgentSpec, env: ExecutionEnv) -> dict[str, Tool]:
        registries = self.registries
        tools: dict[str, Tool] = dict(registries.tools.items())
        for delegate in spec.delegates:
            target = registries.agents.get(delegate)
            if target is None:
                raise ResolveAgentNotFound(delegate)
            description = delegate_description(delegate, target.system_prompt)
            if target.endpoint is None:
                tools[agent_tool_id(delegate)] = AgentTool.local(delegate, description, self)
                continue
            backend = self.validate_remote(target)
            if isinstance(backend, AgentBackend):
                tools[agent_tool_id(delegate)] = AgentTool(delegate, description, backend)
            else:
                _log.warning(
                    "agent %s: remote delegate %s has no runnable %r backend; skipped",
                    spec.id,
                    delegate,
                    target.endpoint.backend,
                )
        for tool_id, tool in env.tools.items():
            if tool_id in tools:
                raise ToolIdConflict(tool_id, "global", "plugin")
            tools[tool_id] = tool
        if spec.allowed_tools is not None:
            allowed = set(spec.allowed_tools)
            tools = {k: v for k, v in tools.items() if k in allowed}
        if spec.excluded_tools:
            excluded = set(spec.excluded_tools)
            tools = {k: v for k, v in tools.items() if k not in excluded}
        return tools
