"""A.2: DeferredToolsConfig defaults, rules, validation and serialisation."""

import pytest
from awaken_contract.errors import KeyDecode
from awaken_contract.plugin import ConfigSchema
from awaken_contract.registry_spec import AgentSpec
from awaken_ext_deferred_tools import (
    DeferralRule,
    DeferredToolsConfig,
    DeferredToolsConfigKey,
    DeferredToolsPlugin,
    ToolLoadMode,
)
from pydantic import ValidationError

SPEC_EXAMPLE = {
    "enabled": None,
    "default_mode": "deferred",
    "beta_overhead": 1136.0,
    "rules": [{"tool": "get_weather", "mode": "eager"}, {"tool": "debug_*", "mode": "deferred"}],
    "agent_priors": {"get_weather": 0.03},
    "disc_beta": {"omega": 0.95, "n0": 5.0, "defer_after": 5, "thresh_mult": 0.5, "gamma": 2000.0},
}


def test_defaults() -> None:
    config = DeferredToolsConfig()
    assert config.enabled is None and config.rules == []
    assert config.default_mode is ToolLoadMode.DEFERRED and config.beta_overhead == 1136.0
    assert config.agent_priors == {}
    beta = config.disc_beta
    assert (beta.omega, beta.n0, beta.defer_after, beta.thresh_mult, beta.gamma) == (
        0.95,
        5.0,
        5,
        0.5,
        2000.0,
    )
    assert config.prior("anything") == 0.01


def test_spec_example_round_trips_and_empty_priors_are_omitted() -> None:
    config = DeferredToolsConfig.model_validate(SPEC_EXAMPLE)
    assert config.model_dump(mode="json") == SPEC_EXAMPLE
    assert config.prior("get_weather") == 0.03
    assert "agent_priors" not in DeferredToolsConfig().model_dump(mode="json")


def test_disc_beta_fields_default_individually() -> None:
    config = DeferredToolsConfig.model_validate({"disc_beta": {"gamma": 500}})
    assert config.disc_beta.gamma == 500.0 and config.disc_beta.omega == 0.95


def test_rules_first_match_wins_exact_or_glob_else_default() -> None:
    config = DeferredToolsConfig(
        rules=[
            DeferralRule(tool="debug_keep", mode=ToolLoadMode.EAGER),
            DeferralRule(tool="debug_*", mode=ToolLoadMode.DEFERRED),
            DeferralRule(tool="get_*", mode=ToolLoadMode.EAGER),
        ],
        default_mode=ToolLoadMode.DEFERRED,
    )
    assert config.resolve_mode("debug_keep") is ToolLoadMode.EAGER
    assert config.resolve_mode("debug_dump") is ToolLoadMode.DEFERRED
    assert config.resolve_mode("get_weather") is ToolLoadMode.EAGER
    assert config.resolve_mode("other") is ToolLoadMode.DEFERRED
    eager_default = DeferredToolsConfig(default_mode=ToolLoadMode.EAGER)
    assert eager_default.resolve_mode("other") is ToolLoadMode.EAGER


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"default_mode": "lazy"}, "default_mode"),
        ({"rules": [{"tool": "x", "mode": "sometimes"}]}, "rules.0.mode"),
        ({"rules": [{"tool": "", "mode": "eager"}]}, "rules.0.tool"),
        ({"rules": [{"mode": "eager"}]}, "rules.0.tool"),
        ({"agent_priors": {"x": 1.5}}, "prior of `x` must be between 0 and 1"),
        ({"disc_beta": {"omega": 0}}, "disc_beta.omega"),
        ({"disc_beta": {"defer_after": -1}}, "disc_beta.defer_after"),
        ({"beta_overhead": -1}, "beta_overhead"),
        ({"max_results": 5}, "max_results"),
        ({"enabled": "maybe"}, "enabled"),
    ],
)
def test_invalid_sections_are_rejected_with_the_field(data: dict, needle: str) -> None:
    with pytest.raises(ValidationError):
        DeferredToolsConfig.model_validate(data)
    spec = AgentSpec("a").with_section(DeferredToolsConfigKey.KEY, data)
    with pytest.raises(KeyDecode, match=needle.split(".")[0]):
        spec.config(DeferredToolsConfigKey)


def test_agent_section_wins_over_plugin_config_and_schema_is_published() -> None:
    plugin = DeferredToolsPlugin(config=DeferredToolsConfig(enabled=False))
    assert plugin.config_for(AgentSpec("a")).enabled is False
    spec = AgentSpec("a").with_section("deferred_tools", {"enabled": True})
    assert plugin.config_for(spec).enabled is True
    assert DeferredToolsPlugin().config_for(AgentSpec("a")) == DeferredToolsConfig()
    [schema] = plugin.config_schemas()
    assert isinstance(schema, ConfigSchema) and schema.key == "deferred_tools"
    assert "disc_beta" in schema.json_schema["properties"]
