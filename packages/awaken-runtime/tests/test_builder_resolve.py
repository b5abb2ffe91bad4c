"""Builder (deferred errors, dry-run validation) and the resolve pipeline."""

import logging
from typing import Any

import pytest
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.errors import (
    AgentRegistryConflict,
    InvalidPluginConfig,
    ModelNotFound,
    PluginNotFound,
    ProviderNotFound,
    RemoteAgentNotDirectlyRunnable,
    ResolveAgentNotFound,
    ResolveFailed,
    ToolIdConflict,
    ToolRegistryConflict,
    ValidationFailed,
)
from awaken_contract.plugin import ConfigSchema, Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.registry_spec import AgentSpec, LlmRetryPolicy, ModelSpec, RemoteEndpoint
from awaken_runtime import AgentRuntimeBuilder, ModelEntry
from awaken_runtime.engine import MockLlmExecutor, RetryingExecutor
from awaken_runtime.plugins import LoopActionHandlersPlugin


class Named(Tool):
    def __init__(self, tool_id: str) -> None:
        self.tool_id = tool_id

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(self.tool_id, self.tool_id, "test tool")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success(self.tool_id, None)


class ToolPlugin(Plugin):
    """Offers a tool and claims the `limits` section."""

    def __init__(self, tool_id: str = "plugin_tool") -> None:
        self.tool_id = tool_id

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("limits")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_tool(self.tool_id, Named(self.tool_id))

    def config_schemas(self) -> list[ConfigSchema]:
        return [
            ConfigSchema(
                "limits",
                {
                    "type": "object",
                    "properties": {"max": {"type": "integer", "minimum": 1}},
                    "required": ["max"],
                    "additionalProperties": False,
                },
            )
        ]


def base() -> AgentRuntimeBuilder:
    return (
        AgentRuntimeBuilder()
        .with_provider("mock", MockLlmExecutor())
        .with_model("m", ModelSpec(id="m", provider="mock", model="mock-1"))
    )


def test_duplicate_registrations_surface_the_first_error_at_build() -> None:
    builder = (
        base()
        .with_agent_spec(AgentSpec("a").with_model("m"))
        .with_agent_spec(AgentSpec("a").with_model("m"))
        .with_tool("t", Named("t"))
        .with_tool("t", Named("t"))
    )
    with pytest.raises(AgentRegistryConflict, match="agent 'a' already registered"):
        builder.build()
    with pytest.raises(AgentRegistryConflict):
        builder.build_unchecked()
    with pytest.raises(ToolRegistryConflict):
        base().with_tool("t", Named("t")).with_tool("t", Named("t")).build_unchecked()


def test_build_validates_every_agent_and_names_the_failures() -> None:
    builder = (
        base()
        .with_agent_spec(AgentSpec("ok").with_model("m"))
        .with_agent_spec(AgentSpec("no_model").with_model("ghost"))
        .with_agent_spec(AgentSpec("no_plugin").with_model("m").with_plugin("nope"))
        .with_model("orphan", ModelSpec(id="orphan", provider="absent", model="x"))
        .with_agent_spec(AgentSpec("no_provider").with_model("orphan"))
    )
    with pytest.raises(ValidationFailed) as info:
        builder.build()
    failures = info.value.failures
    assert set(failures) == {"no_model", "no_plugin", "no_provider"}
    assert failures["no_model"] == "model not found: ghost"
    assert failures["no_plugin"] == "plugin not found: nope"
    assert failures["no_provider"] == "provider not found: absent"
    assert "no_model: model not found: ghost" in str(info.value)
    runtime = builder.build_unchecked()  # skips validation
    assert runtime.resolve("ok").spec.id == "ok"
    with pytest.raises(ModelNotFound):
        runtime.resolve("no_model")
    with pytest.raises(ProviderNotFound):
        runtime.resolve("no_provider")
    with pytest.raises(PluginNotFound):
        runtime.resolve("no_plugin")


async def test_run_of_an_unresolvable_agent_fails_before_any_event() -> None:
    runtime = base().with_agent_spec(AgentSpec("a").with_model("m")).build()
    with pytest.raises(ResolveFailed, match="agent not found: ghost"):
        await runtime.run(RunRequest("t", []).with_agent_id("ghost"))


def test_book_model_entry_is_accepted() -> None:
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("gpt"))
        .with_provider("openai", MockLlmExecutor())
        .with_model("gpt", ModelEntry(provider="openai", model_name="gpt-4o-mini"))
        .build()
    )
    assert runtime.resolve("a").upstream_model == "gpt-4o-mini"


def test_remote_agents_cannot_run_locally() -> None:
    endpoint = RemoteEndpoint.a2a("https://example.invalid/v1/a2a")
    runtime = base().with_agent_spec(AgentSpec("remote").with_endpoint(endpoint)).build()
    with pytest.raises(RemoteAgentNotDirectlyRunnable):
        runtime.resolve("remote")
    odd = RemoteEndpoint(backend="carrier-pigeon", base_url="https://example.invalid")
    builder = base().with_agent_spec(AgentSpec("bird").with_endpoint(odd))
    with pytest.raises(ValidationFailed, match="unsupported remote backend `carrier-pigeon`"):
        builder.build()
    accepted = base().with_agent_spec(AgentSpec("bird").with_endpoint(odd))
    accepted.with_agent_backend_factory("carrier-pigeon", lambda agent_id, ep: None).build()


def test_tool_pipeline_merge_conflicts_and_filters() -> None:
    spec = AgentSpec("a").with_model("m").with_plugin("limits")
    runtime = (
        base()
        .with_agent_spec(spec)
        .with_agent_spec(
            spec.model_copy(update={"id": "only"})
            .with_allowed_tools(["g1", "plugin_tool"])
            .with_excluded_tools(["plugin_tool"])
        )
        .with_tool("g1", Named("g1"))
        .with_tool("g2", Named("g2"))
        .with_plugin("limits", ToolPlugin())
        .build()
    )
    assert sorted(runtime.resolve("a").tools) == ["g1", "g2", "plugin_tool"]
    assert sorted(runtime.resolve("only").tools) == ["g1"]
    clash = (
        base()
        .with_agent_spec(AgentSpec("a").with_model("m").with_plugin("limits"))
        .with_tool("plugin_tool", Named("plugin_tool"))
        .with_plugin("limits", ToolPlugin())
        .build_unchecked()
    )
    with pytest.raises(ToolIdConflict, match='"plugin_tool" registered by both global and plugin'):
        clash.resolve("a")


def test_config_sections_are_validated_against_plugin_schemas(caplog: Any) -> None:
    def runtime_with(sections: dict[str, Any]):
        spec = AgentSpec("a").with_model("m").with_plugin("limits")
        for key, value in sections.items():
            spec = spec.with_section(key, value)
        return base().with_agent_spec(spec).with_plugin("limits", ToolPlugin()).build_unchecked()

    runtime_with({"limits": {"max": 3}}).resolve("a")
    with pytest.raises(InvalidPluginConfig) as info:
        runtime_with({"limits": {"max": 0}}).resolve("a")
    assert info.value.plugin == "limits" and info.value.key == "limits"
    with caplog.at_level(logging.WARNING):
        runtime_with({"limtis": {"max": 3}}).resolve("a")
    assert "not claimed by any plugin" in caplog.text


def test_retry_section_wraps_the_executor() -> None:
    spec = (
        AgentSpec("a")
        .with_model("m")
        .with_section("retry", {"max_retries": 1, "fallback_upstream_models": []})
    )
    off = AgentSpec("off").with_model("m").with_section("retry", {"max_retries": 0})
    runtime = (
        base()
        .with_agent_spec(spec)
        .with_agent_spec(AgentSpec("plain").with_model("m"))
        .with_agent_spec(off)
        .build()
    )
    configured = runtime.resolve("a").llm_executor
    assert isinstance(configured, RetryingExecutor) and configured.policy.max_retries == 1
    default = runtime.resolve("plain").llm_executor  # no section: the default policy
    assert isinstance(default, RetryingExecutor) and default.policy == LlmRetryPolicy()
    assert isinstance(runtime.resolve("off").llm_executor, MockLlmExecutor)
    bad = AgentSpec("bad").with_model("m").with_section("retry", {"max_retries": "many"})
    with pytest.raises(ValidationFailed, match="invalid config for plugin retry"):
        base().with_agent_spec(bad).build()


def test_resolution_injects_default_plugins_and_checks_delegates() -> None:
    runtime = base().with_agent_spec(AgentSpec("a").with_model("m")).build()
    env = runtime.resolve("a").env
    assert any(isinstance(p, LoopActionHandlersPlugin) for p in env.plugins)
    assert "runtime.tool_intercept" in env.action_handlers
    with pytest.raises(ValidationFailed, match="agent not found: ghost"):
        base().with_agent_spec(AgentSpec("a").with_model("m").with_delegate("ghost")).build()
    with pytest.raises(ResolveAgentNotFound):
        base().with_agent_spec(
            AgentSpec("a").with_model("m").with_delegate("ghost")
        ).build_unchecked().resolve("a")


def test_plugin_named_only_in_the_hook_filter_is_loaded() -> None:
    """The book activates a registered plugin with ``with_hook_filter(id)`` alone."""
    spec = AgentSpec("a").with_model("m").with_hook_filter("limits")
    runtime = base().with_agent_spec(spec).with_plugin("limits", ToolPlugin()).build()
    resolved = runtime.resolve("a")
    assert "plugin_tool" in resolved.tools
    plain = base().with_agent_spec(AgentSpec("b").with_model("m"))
    assert "plugin_tool" not in plain.with_plugin("limits", ToolPlugin()).build().resolve("b").tools


class CountingTool(Named):
    def __init__(self, tool_id: str) -> None:
        super().__init__(tool_id)
        self.calls = 0

    def descriptor(self) -> ToolDescriptor:
        self.calls += 1
        return super().descriptor()


def test_tool_descriptors_are_built_once_across_resolved_copies() -> None:
    tool = CountingTool("counted")
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m"))
        .with_tool("counted", tool)
        .with_tool("g1", Named("g1"))
        .with_provider("p", MockLlmExecutor())
        .with_model("m", ModelSpec(id="m", provider="p", model="x"))
        .build()
    )
    first = runtime.resolve("a")
    before = tool.calls
    ids = [d.id for d in first.tool_descriptors()]
    assert ids == ["counted", "g1"]
    for _ in range(3):
        again = runtime.resolve("a")
        assert [d.id for d in again.tool_descriptors()] == ids
    assert tool.calls == before, "descriptors were rebuilt for a resolved copy"
    # Each call hands out its own list; changing one does not change the cache.
    again.tool_descriptors().clear()
    assert [d.id for d in again.tool_descriptors()] == ids
    # A copy that gains a tool gets descriptors of its own tool set.
    assert [d.id for d in again.with_tool(Named("z")).tool_descriptors()] == [*ids, "z"]
    assert [d.id for d in runtime.resolve("a").tool_descriptors()] == ids
