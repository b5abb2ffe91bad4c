from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pydantic
import pytest
from awaken_contract.errors import ConfigLoadError, KeyDecode, StateError
from awaken_contract.registry_spec import (
    AgentSpec,
    AgentSystemConfig,
    CircuitBreakerConfig,
    CompactionConfig,
    CompactionConfigKey,
    ContextCompactionMode,
    ContextWindowPolicy,
    InferenceOverride,
    LlmRetryPolicy,
    McpServerSpec,
    McpTransport,
    Modality,
    ModelSpec,
    PluginConfigKey,
    ProviderSpec,
    ReasoningBudget,
    ReasoningEffort,
    RemoteAuth,
    RemoteEndpoint,
    RetryConfigKey,
    load_config_file,
)

FULL_AGENT = {
    "id": "coder",
    "model_id": "claude-opus",
    "system_prompt": "You code.",
    "max_rounds": 8,
    "max_continuation_retries": 2,
    "context_policy": {
        "max_context_tokens": 200000,
        "max_output_tokens": 16384,
        "min_recent_messages": 10,
        "enable_prompt_cache": True,
    },
    "reasoning_effort": "high",
    "plugin_ids": ["permission", "agent_handoff"],
    "active_hook_filter": ["permission"],
    "allowed_tools": ["read_file", "agent_run_reviewer"],
    "excluded_tools": ["delete_file"],
    "delegates": ["reviewer"],
    "sections": {
        "retry": {"max_retries": 3, "fallback_upstream_models": [], "backoff_base_ms": 1000}
    },
}


# --------------------------------------------------------------------------- AgentSpec


def test_minimal_document_uses_defaults() -> None:
    spec = AgentSpec.from_json(
        '{"id":"assistant","model_id":"default","system_prompt":"You are helpful."}'
    )
    assert spec.id == "assistant"
    assert spec.model == "default" and spec.model_id == "default"
    assert spec.system_prompt == "You are helpful."
    assert spec.max_rounds == 16
    assert spec.max_continuation_retries == 2
    assert spec.context_policy is None and spec.reasoning_effort is None
    assert spec.plugin_ids == [] and spec.active_hook_filter == set()
    assert spec.allowed_tools is None and spec.excluded_tools is None
    assert spec.endpoint is None and spec.delegates == [] and spec.sections == {}
    assert spec.registry is None


def test_full_document() -> None:
    spec = AgentSpec.model_validate(FULL_AGENT)
    assert spec.model == "claude-opus"
    assert spec.max_rounds == 8
    assert spec.context_policy == ContextWindowPolicy()
    assert spec.reasoning_effort is ReasoningEffort.HIGH
    assert spec.plugin_ids == ["permission", "agent_handoff"]
    assert spec.active_hook_filter == {"permission"}
    assert spec.allowed_tools == ["read_file", "agent_run_reviewer"]
    assert spec.excluded_tools == ["delete_file"]
    assert spec.delegates == ["reviewer"]
    retry = spec.config(RetryConfigKey)
    assert retry == LlmRetryPolicy(max_retries=3, fallback_models=[], backoff_base_ms=1000)


def test_output_rules_and_round_trip() -> None:
    spec = AgentSpec.model_validate(FULL_AGENT)
    out = json.loads(spec.to_json())
    assert out["model"] == "claude-opus"
    assert "model_id" not in out
    assert out["active_hook_filter"] == ["permission"]
    assert "endpoint" not in out and "registry" not in out
    assert out["context_policy"] == {
        "max_context_tokens": 200000,
        "max_output_tokens": 16384,
        "min_recent_messages": 10,
        "enable_prompt_cache": True,
        "compaction_mode": "keep_recent_raw_suffix",
        "compaction_raw_suffix_messages": 2,
    }
    assert AgentSpec.from_json(spec.to_json()) == spec

    minimal = json.loads(AgentSpec("a").to_json())
    # allowed/excluded tools are always written, empty collections and nulls are omitted
    assert minimal == {
        "id": "a",
        "model": "",
        "system_prompt": "",
        "max_rounds": 16,
        "max_continuation_retries": 2,
        "plugin_ids": [],
        "allowed_tools": None,
        "excluded_tools": None,
    }


def test_unknown_key_rejected_with_field_named() -> None:
    with pytest.raises(pydantic.ValidationError) as info:
        AgentSpec.model_validate({"id": "a", "model": "m", "system_prompt": "", "max_round": 3})
    assert "max_round" in str(info.value)
    with pytest.raises(ConfigLoadError) as info2:
        AgentSpec.from_json('{"id": "a", "toolz": []}')
    assert "toolz" in str(info2.value)
    assert "Extra inputs are not permitted" in str(info2.value)


def test_document_requires_id() -> None:
    with pytest.raises(ConfigLoadError, match="id"):
        AgentSpec.from_json('{"model": "m"}')


def test_aliases() -> None:
    spec = AgentSpec.model_validate({"id": "a", "model": "m1", "active_plugins": ["p1", "p2"]})
    assert spec.model == "m1"
    assert spec.active_hook_filter == {"p1", "p2"}
    both = AgentSpec.model_validate({"id": "a", "model": "m1", "model_id": "m1"})
    assert both.model == "m1"
    with pytest.raises(pydantic.ValidationError, match="model_id"):
        AgentSpec.model_validate({"id": "a", "model": "m1", "model_id": "m2"})


def test_positional_construction_and_builders() -> None:
    base = AgentSpec("assistant")
    assert base.id == "assistant" and base.model == "" and base.system_prompt == ""
    spec = (
        base.with_model("m")
        .with_system_prompt("Be helpful.")
        .with_max_rounds(5)
        .with_reasoning_effort(ReasoningEffort.LOW)
        .with_hook_filter("permission")
        .with_hook_filter("reminder")
        .with_plugin("permission")
        .with_plugin("permission")
        .with_allowed_tools(["a", "b"])
        .with_excluded_tools(["c"])
        .with_delegate("worker")
        .with_delegate("critic")
        .with_section("custom", {"x": 1})
        .with_endpoint(RemoteEndpoint.a2a("http://remote/v1/a2a", target="worker"))
    )
    assert spec.model == "m" and spec.system_prompt == "Be helpful." and spec.max_rounds == 5
    assert spec.reasoning_effort is ReasoningEffort.LOW
    assert spec.active_hook_filter == {"permission", "reminder"}
    assert spec.plugin_ids == ["permission"]
    assert spec.allowed_tools == ["a", "b"] and spec.excluded_tools == ["c"]
    assert spec.delegates == ["worker", "critic"]
    assert spec.section("custom") == {"x": 1}
    assert spec.is_remote() and spec.endpoint is not None
    assert spec.endpoint.target == "worker"
    # builders never mutate the original
    assert base.model == "" and base.delegates == [] and base.sections == {}
    assert AgentSpec("x").with_model_id("mid").model == "mid"


def test_builder_validates_values() -> None:
    with pytest.raises(pydantic.ValidationError):
        AgentSpec("a").with_max_rounds(-1)
    with pytest.raises(pydantic.ValidationError):
        AgentSpec("a").with_reasoning_effort("extreme")
    with pytest.raises(TypeError):
        AgentSpec("a", id="b")


def test_keyword_id_construction() -> None:
    assert AgentSpec(id="kw").id == "kw"


# --------------------------------------------------------------------------- typed sections


class GreetingConfig(pydantic.BaseModel):
    greeting: str = "hello"
    times: int = 1


class GreetingKey(PluginConfigKey[GreetingConfig]):
    KEY = "greeting"
    CONFIG = GreetingConfig


@dataclass
class PlainConfig:
    level: int = 3


class PlainKey(PluginConfigKey[PlainConfig]):
    KEY = "plain"
    CONFIG = PlainConfig


def test_typed_sections() -> None:
    spec = AgentSpec("a")
    assert spec.config(GreetingKey) == GreetingConfig()
    assert GreetingKey.default() == GreetingConfig()
    configured = spec.with_config(GreetingKey, GreetingConfig(greeting="hi", times=2))
    assert configured.sections == {"greeting": {"greeting": "hi", "times": 2}}
    assert configured.config(GreetingKey) == GreetingConfig(greeting="hi", times=2)
    assert spec.sections == {}

    spec.set_config(GreetingKey, GreetingConfig(times=4))
    assert spec.sections["greeting"] == {"greeting": "hello", "times": 4}

    spec.set_config(PlainKey, PlainConfig(level=7))
    assert spec.config(PlainKey) == PlainConfig(level=7)
    assert PlainKey.json_schema()["properties"]["level"]["type"] == "integer"


def test_undecodable_section_raises_key_decode() -> None:
    spec = AgentSpec("a").with_section("greeting", {"times": "many"})
    with pytest.raises(KeyDecode) as info:
        spec.config(GreetingKey)
    assert isinstance(info.value, StateError)
    assert info.value.key == "greeting"
    assert str(info.value).startswith("failed to decode key greeting: ")
    assert "times" in str(info.value)


def test_known_section_keys() -> None:
    assert RetryConfigKey.KEY == "retry" and RetryConfigKey.default() == LlmRetryPolicy()
    assert CompactionConfigKey.KEY == "compaction"
    assert CompactionConfigKey.default().min_savings_ratio == 0.3
    with pytest.raises(KeyDecode):
        AgentSpec("a").with_section("retry", {"max_retries": 1, "bogus": True}).config(
            RetryConfigKey
        )


# --------------------------------------------------------------------------- models/providers


def test_model_spec_minimal_and_aliases() -> None:
    spec = ModelSpec(id="m", provider="scripted", model="scripted-1")
    assert spec.provider_id == "scripted" and spec.upstream_model == "scripted-1"
    assert spec.model_dump() == {"id": "m", "provider": "scripted", "model": "scripted-1"}
    legacy = ModelSpec.model_validate(
        {"id": "default", "provider_id": "openai", "upstream_model": "gpt-4o-mini"}
    )
    assert legacy.provider == "openai" and legacy.model == "gpt-4o-mini"
    with pytest.raises(pydantic.ValidationError, match="temperature"):
        ModelSpec.model_validate({"id": "m", "provider": "p", "model": "x", "temperature": 1})
    with pytest.raises(pydantic.ValidationError):
        ModelSpec.model_validate({"id": "m", "provider": "p"})


def test_model_spec_capabilities_and_cost() -> None:
    from awaken_contract.contract.inference import TokenUsage

    spec = ModelSpec(
        id="sonnet",
        provider="anthropic",
        model="claude-sonnet-4-20250514",
        context_window=200_000,
        max_output_tokens=64_000,
        input_modalities=["text", "image"],
        output_modalities=[Modality.TEXT],
        knowledge_cutoff="2025-03",
        input_price_per_mtok=3.0,
        output_price_per_mtok=15.0,
        cache_read_price_per_mtok=0.3,
        cache_write_price_per_mtok=3.75,
    )
    assert spec.supports_input("image") and not spec.supports_input(Modality.AUDIO)
    usage = TokenUsage(
        prompt_tokens=1_000_000,
        completion_tokens=100_000,
        cache_read_tokens=200_000,
        cache_creation_tokens=100_000,
    )
    # 700k uncached * 3 + 200k * 0.3 + 100k * 3.75 + 100k * 15, per million
    assert spec.cost(usage) == pytest.approx(2.1 + 0.06 + 0.375 + 1.5)
    assert spec.cost(None) is None
    assert spec.cost(TokenUsage()) is None
    no_price = ModelSpec(id="m", provider="p", model="x")
    assert no_price.cost(usage) is None and not no_price.has_pricing()
    assert no_price.supports_input("text") and not no_price.supports_input("image")
    no_cache_price = spec.model_copy(
        update={"cache_read_price_per_mtok": None, "cache_write_price_per_mtok": None}
    )
    assert no_cache_price.cost(usage) == pytest.approx(3.0 + 1.5)
    dumped = spec.model_dump(mode="json")
    assert dumped["input_modalities"] == ["text", "image"]
    assert dumped["knowledge_cutoff"] == "2025-03"


def test_provider_spec() -> None:
    spec = ProviderSpec.model_validate(
        {"id": "openai", "adapter": "OpenAI", "api_key": "sk-secret", "future_key": 1}
    )
    assert spec.adapter == "openai"
    assert spec.timeout_secs == 300
    assert spec.connect_timeout_secs > 0
    assert "sk-secret" not in repr(spec)
    assert spec.resolve_api_key() == "sk-secret"
    env_spec = ProviderSpec(id="a", adapter="anthropic", api_key_env="MY_KEY")
    assert env_spec.resolve_api_key({"MY_KEY": "k1"}) == "k1"
    assert env_spec.resolve_api_key({}) is None
    assert env_spec.model_dump() == {
        "id": "a",
        "adapter": "anthropic",
        "api_key_env": "MY_KEY",
        "timeout_secs": 300,
        "connect_timeout_secs": 10,
        "total_timeout_secs": 1800,
        "idle_timeout_secs": 300,
    }


# --------------------------------------------------------------------------- overrides


def test_inference_override_written_with_nulls() -> None:
    empty = InferenceOverride()
    assert empty.is_empty()
    assert json.loads(empty.model_dump_json()) == {
        "model": None,
        "fallback_models": None,
        "temperature": None,
        "max_tokens": None,
        "top_p": None,
        "reasoning_effort": None,
    }
    with pytest.raises(pydantic.ValidationError, match="seed"):
        InferenceOverride.model_validate({"seed": 1})
    spec_names = InferenceOverride.model_validate(
        {"upstream_model": "gpt-4o", "fallback_upstream_models": ["gpt-4o-mini"]}
    )
    assert spec_names.model == "gpt-4o" and spec_names.upstream_model == "gpt-4o"
    assert spec_names.fallback_models == ["gpt-4o-mini"]
    assert not spec_names.is_empty()


def test_inference_override_merge_last_wins_per_field() -> None:
    a = InferenceOverride(temperature=0.2, max_tokens=100)
    b = InferenceOverride(max_tokens=50, top_p=0.9, reasoning_effort=ReasoningEffort.budget(64))
    merged = a.merged(b)
    assert merged.temperature == 0.2 and merged.max_tokens == 50 and merged.top_p == 0.9
    assert merged.reasoning_effort == ReasoningBudget(budget=64)
    assert a.max_tokens == 100  # merged() leaves the original alone
    assert a.merge(b) is a and a.max_tokens == 50
    a.merge(InferenceOverride())
    assert a.temperature == 0.2 and a.max_tokens == 50


def test_reasoning_effort_shapes() -> None:
    assert AgentSpec("a", reasoning_effort="max").reasoning_effort is ReasoningEffort.MAX
    assert AgentSpec("a", reasoning_effort="NONE").reasoning_effort is ReasoningEffort.NONE
    budget = AgentSpec.model_validate({"id": "a", "reasoning_effort": {"budget": 4096}})
    assert budget.reasoning_effort == ReasoningBudget(budget=4096)
    assert json.loads(budget.to_json())["reasoning_effort"] == {"budget": 4096}
    assert AgentSpec("a", reasoning_effort=128).reasoning_effort == ReasoningBudget(budget=128)
    with pytest.raises(pydantic.ValidationError):
        AgentSpec.model_validate({"id": "a", "reasoning_effort": {"budget": 1, "x": 2}})


# --------------------------------------------------------------------------- context / retry


def test_context_policy_defaults_and_modes() -> None:
    policy = ContextWindowPolicy()
    assert policy.max_context_tokens == 200_000
    assert policy.max_output_tokens == 16_384
    assert policy.min_recent_messages == 10
    assert policy.enable_prompt_cache is True
    assert policy.autocompact_threshold is None
    assert policy.compaction_mode is ContextCompactionMode.KEEP_RECENT_RAW_SUFFIX
    assert policy.compaction_raw_suffix_messages == 2
    assert "autocompact_threshold" not in policy.model_dump()
    custom = ContextWindowPolicy.model_validate(
        {"autocompact_threshold": 1000, "compaction_mode": "compact_to_safe_frontier"}
    )
    assert custom.model_dump()["autocompact_threshold"] == 1000
    assert custom.compaction_mode is ContextCompactionMode.COMPACT_TO_SAFE_FRONTIER


def test_compaction_config() -> None:
    config = CompactionConfig()
    assert "{messages}" in config.summarizer_user_prompt
    assert config.render_user_prompt("USER: hi").endswith("USER: hi")
    assert config.summary_max_tokens is None and config.summary_model is None
    with pytest.raises(pydantic.ValidationError, match="messages"):
        CompactionConfig(summarizer_user_prompt="no placeholder")


def test_retry_policy_backoff_and_aliases() -> None:
    policy = LlmRetryPolicy()
    assert (policy.max_retries, policy.fallback_models, policy.backoff_base_ms) == (2, [], 500)
    assert policy.is_enabled()
    assert [policy.backoff_ms(k) for k in range(6)] == [500, 1000, 2000, 4000, 8000, 8000]
    assert policy.backoff_ms(100) == 8000
    assert LlmRetryPolicy(backoff_base_ms=0).backoff_ms(3) == 0
    assert not LlmRetryPolicy(max_retries=0).is_enabled()
    aliased = LlmRetryPolicy.model_validate({"max_retries": 1, "fallback_upstream_models": ["b"]})
    assert aliased.fallback_models == ["b"] == aliased.fallback_upstream_models
    with pytest.raises(pydantic.ValidationError):
        LlmRetryPolicy.model_validate({"max_retries": 1, "jitter": True})


def test_circuit_breaker_config() -> None:
    config = CircuitBreakerConfig()
    assert config.failure_threshold == 5
    assert config.cooldown == timedelta(seconds=30)
    assert config.half_open_max == 1
    assert CircuitBreakerConfig.model_validate({"cooldown": 2.5}).cooldown == timedelta(seconds=2.5)


# --------------------------------------------------------------------------- remote endpoint


def test_remote_endpoint_defaults_and_output() -> None:
    endpoint = RemoteEndpoint.model_validate(
        {
            "backend": "a2a",
            "base_url": "https://host/v1/a2a",
            "auth": {"type": "bearer", "token": "tok"},
            "target": "worker",
            "options": {"poll_interval_ms": 1000},
        }
    )
    assert endpoint.timeout_ms == 300_000
    assert endpoint.auth is not None and endpoint.auth.params == {"token": "tok"}
    assert "tok" not in repr(endpoint)
    minimal = RemoteEndpoint(base_url="https://h")
    assert minimal.backend == "a2a"
    assert minimal.model_dump() == {
        "backend": "a2a",
        "base_url": "https://h",
        "timeout_ms": 300000,
    }
    with pytest.raises(pydantic.ValidationError, match="backend must not be empty"):
        RemoteEndpoint(backend="  ", base_url="https://h")
    with pytest.raises(pydantic.ValidationError):
        RemoteEndpoint.model_validate({"backend": "a2a"})
    assert RemoteEndpoint.a2a("https://h").with_bearer_token("t").auth == RemoteAuth.bearer("t")


def test_remote_endpoint_legacy_keys() -> None:
    legacy = RemoteEndpoint.model_validate(
        {"base_url": "https://h", "bearer_token": "t", "agent_id": "w", "poll_interval_ms": 5}
    )
    assert legacy.backend == "a2a"
    assert legacy.auth == RemoteAuth(type="bearer", token="t")
    assert legacy.target == "w"
    assert legacy.options == {"poll_interval_ms": 5}
    dumped = legacy.model_dump()
    assert "bearer_token" not in dumped and "agent_id" not in dumped
    with pytest.raises(pydantic.ValidationError, match="legacy"):
        RemoteEndpoint.model_validate({"base_url": "https://h", "agent_id": "w", "target": "x"})
    with pytest.raises(pydantic.ValidationError, match="legacy"):
        RemoteEndpoint.model_validate(
            {"base_url": "https://h", "bearer_token": "t", "options": {"a": 1}}
        )
    # an empty options map does not count as mixing
    ok = RemoteEndpoint.model_validate({"base_url": "https://h", "agent_id": "w", "options": {}})
    assert ok.target == "w"


# --------------------------------------------------------------------------- MCP


def test_mcp_server_spec() -> None:
    stdio = McpServerSpec.model_validate(
        {
            "name": "fs",
            "transport": "stdio",
            "command": " npx ",
            "args": ["-y", "@mcp/fs"],
            "env": {"LOG": "warn"},
            "timeout_secs": 0,
        }
    )
    assert stdio.id == "fs" and stdio.command == "npx" and stdio.timeout_secs == 1
    assert stdio.restart_policy.delay_ms == 1000 and not stdio.restart_policy.enabled
    http = McpServerSpec.http("remote", "http://localhost:8080/mcp")
    assert http.transport is McpTransport.HTTP
    assert http.model_dump(mode="json") == {
        "id": "remote",
        "transport": "http",
        "url": "http://localhost:8080/mcp",
        "timeout_secs": 30,
        "restart_policy": {
            "enabled": False,
            "max_attempts": None,
            "delay_ms": 1000,
            "backoff_multiplier": 2.0,
            "max_delay_ms": 30000,
        },
    }
    with pytest.raises(pydantic.ValidationError, match="command"):
        McpServerSpec(id="x", transport=McpTransport.STDIO)
    with pytest.raises(pydantic.ValidationError, match="url"):
        McpServerSpec(id="x", transport=McpTransport.HTTP, url=" ")


# --------------------------------------------------------------------------- files


SYSTEM_YAML = """
providers:
  - id: openai
    adapter: openai
    api_key_env: OPENAI_API_KEY
models:
  - id: default
    provider: openai
    model: gpt-4o-mini
    input_price_per_mtok: 0.15
    output_price_per_mtok: 0.6
agents:
  - id: assistant
    model: default
    system_prompt: You are helpful.
    active_plugins: [permission]
    reasoning_effort: {budget: 2048}
mcp-servers:
  - id: fs
    transport: stdio
    command: npx
"""


def test_load_yaml_and_json_files(tmp_path: Path) -> None:
    yaml_path = tmp_path / "awaken.yaml"
    yaml_path.write_text(SYSTEM_YAML)
    config = load_config_file(yaml_path)
    assert config.provider("openai") is not None
    model = config.model_spec("default")
    assert model is not None and model.input_price_per_mtok == 0.15
    agent = config.agent("assistant")
    assert agent is not None and agent.active_hook_filter == {"permission"}
    assert agent.reasoning_effort == ReasoningBudget(budget=2048)
    assert config.mcp_servers[0].id == "fs"
    assert config.agent("missing") is None

    json_path = tmp_path / "awaken.json"
    json_path.write_text(config.model_dump_json())
    assert load_config_file(json_path) == config

    yml_path = tmp_path / "agent.yml"
    yml_path.write_text("id: a\nmodel_id: m\nsystem_prompt: hi\n")
    assert AgentSpec.from_file(yml_path) == AgentSpec("a").with_model("m").with_system_prompt("hi")
    assert AgentSpec.from_yaml("id: b\n").id == "b"


@pytest.mark.parametrize(
    ("name", "content", "match"),
    [
        ("missing.yaml", None, "io error"),
        ("config.toml", "x = 1", "extension"),
        ("bad.json", "{not json", "invalid JSON"),
        ("bad.yaml", "agents: [unclosed\n", "invalid YAML"),
        ("dup.json", json.dumps({"agents": [{"id": "a"}, {"id": "a"}]}), "duplicate agent id: a"),
    ],
)
def test_config_load_errors(tmp_path: Path, name: str, content: str | None, match: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    with pytest.raises(ConfigLoadError, match=match):
        load_config_file(path)


def test_config_load_error_names_the_field_and_the_file(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("agents:\n  - id: a\n    max_rounds: lots\n")
    with pytest.raises(ConfigLoadError) as info:
        load_config_file(wrong)
    assert "agents.0.max_rounds" in str(info.value) and str(wrong) in str(info.value)


def test_unknown_config_section_is_rejected(tmp_path: Path) -> None:
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({"agentz": []}))
    with pytest.raises(ConfigLoadError, match="agentz"):
        AgentSystemConfig.from_file(unknown)


# --------------------------------------------------------------------------- schema


def test_json_schema_export() -> None:
    schema = AgentSpec.model_json_schema()
    props = schema["properties"]
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["id"]
    assert props["max_rounds"]["default"] == 16
    for field in ("model", "plugin_ids", "sections", "endpoint", "reasoning_effort"):
        assert field in props
    assert "ContextWindowPolicy" in schema["$defs"]
    assert InferenceOverride.model_json_schema()["additionalProperties"] is False
    model_schema = ModelSpec.model_json_schema()
    assert "input_price_per_mtok" in model_schema["properties"]
    assert set(AgentSystemConfig.model_json_schema()["properties"]) >= {
        "providers",
        "models",
        "agents",
    }
    assert ProviderSpec.model_json_schema()["properties"]["timeout_secs"]["default"] == 300
