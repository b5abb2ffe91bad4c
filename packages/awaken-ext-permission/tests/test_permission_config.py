"""PermissionRulesConfig: inline, JSON and YAML files, the agent's config section, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from awaken_contract.errors import ConfigLoadError
from awaken_contract.plugin import ConfigSchema
from awaken_contract.registry_spec import AgentSpec
from awaken_ext_permission import (
    PermissionConfigError,
    PermissionConfigKey,
    PermissionRuleEntry,
    PermissionRulesConfig,
    PermissionRuleScope,
    PermissionRuleSource,
    ToolPermissionBehavior,
)
from pydantic import ValidationError

YAML = """\
default_behavior: ask
rules:
  - tool: read_file
    behavior: allow
  - tool: "Bash(npm *)"
    behavior: allow
  - tool: "Bash(command =~ \\"(?i)rm\\\\s+-rf\\")"
    behavior: deny
  - tool: "mcp__*"
    behavior: ask
    scope: session
"""

JSON = (
    '{"default_behavior":"deny","rules":[{"tool":"file_*","behavior":"ask"},'
    '{"tool":"delete_*","behavior":"deny"}]}'
)


def test_inline_config_as_in_the_book() -> None:
    config = PermissionRulesConfig(
        default_behavior=ToolPermissionBehavior.ASK,
        rules=[
            PermissionRuleEntry(tool="read_file", behavior=ToolPermissionBehavior.ALLOW),
            PermissionRuleEntry(tool="file_*", behavior=ToolPermissionBehavior.ASK),
            PermissionRuleEntry(tool="delete_*", behavior=ToolPermissionBehavior.DENY),
        ],
    )
    ruleset = config.into_ruleset()
    assert list(ruleset.rules) == ["pattern:read_file", "pattern:file_*", "pattern:delete_*"]
    rule = ruleset.rules["pattern:read_file"]
    assert rule.scope is PermissionRuleScope.PROJECT
    assert rule.source is PermissionRuleSource.DEFINITION
    assert ruleset.evaluate("delete_file").behavior is ToolPermissionBehavior.DENY


def test_yaml_file(tmp_path: Path) -> None:
    path = tmp_path / "permissions.yaml"
    path.write_text(YAML)
    config = PermissionRulesConfig.from_file(path)
    assert config.default_behavior is ToolPermissionBehavior.ASK
    assert [entry.tool for entry in config.rules][2] == 'Bash(command =~ "(?i)rm\\s+-rf")'
    assert config.rules[3].scope is PermissionRuleScope.SESSION
    ruleset = config.into_ruleset()
    assert ruleset.evaluate("Bash", {"command": "rm -f x"}).behavior is ToolPermissionBehavior.ASK
    assert ruleset.evaluate("Bash", {"command": "RM -rf x"}).behavior is ToolPermissionBehavior.DENY
    assert ruleset.evaluate("Bash", {"command": "npm ci"}).behavior is ToolPermissionBehavior.ALLOW


def test_json_file_and_text(tmp_path: Path) -> None:
    path = tmp_path / "permissions.json"
    path.write_text(JSON)
    config = PermissionRulesConfig.from_file(path)
    assert config == PermissionRulesConfig.from_str(JSON)
    assert config.default_behavior is ToolPermissionBehavior.DENY
    # YAML text behind a .json hint still loads (JSON is tried only for {…} / […] text)
    assert PermissionRulesConfig.from_str(YAML, "json").rules[0].tool == "read_file"
    # a YAML hint parses JSON text too
    assert PermissionRulesConfig.from_str(JSON, "yml") == config
    assert PermissionRulesConfig.from_str("", "yaml") == PermissionRulesConfig()


@pytest.mark.parametrize(
    ("text", "ext", "message"),
    [
        ('{"rules": [', "json", "parse error: "),
        ("rules: [unclosed", "yaml", "parse error: "),
        (
            '{"rules":[{"tool":"Bash(npm *","behavior":"allow"}]}',
            "json",
            "invalid permission config: rules.0.tool: invalid pattern `Bash(npm *`: "
            "parse error at 10: expected ')', found end of input",
        ),
        (
            '{"rules":[{"tool":"x","behavior":"maybe"}]}',
            "json",
            "invalid permission config: rules.0.behavior: ",
        ),
        ('{"default":"allow"}', "json", "invalid permission config: default: "),
        ("- just\n- a list\n", "yaml", "invalid permission config: "),
    ],
)
def test_bad_config_text_is_a_precise_error(text: str, ext: str, message: str) -> None:
    with pytest.raises(PermissionConfigError) as info:
        PermissionRulesConfig.from_str(text, ext)
    assert str(info.value).startswith(message)
    assert isinstance(info.value, ConfigLoadError)


def test_missing_file_is_an_io_error(tmp_path: Path) -> None:
    with pytest.raises(PermissionConfigError, match=r"^io error: "):
        PermissionRulesConfig.from_file(tmp_path / "nope.yaml")


def test_entry_rejects_an_invalid_pattern_inline() -> None:
    with pytest.raises(ValidationError, match="invalid pattern"):
        PermissionRuleEntry(tool="Bash(ls = foo)", behavior=ToolPermissionBehavior.DENY)
    config = PermissionRulesConfig().with_rule("Bash(npm *)", "allow")
    assert config.rules[0].behavior is ToolPermissionBehavior.ALLOW


def test_agent_spec_section_round_trip() -> None:
    config = PermissionRulesConfig.from_str(JSON)
    spec = AgentSpec("ops").with_config(PermissionConfigKey, config)
    assert spec.section("permission") == json.loads(JSON) | {
        "rules": [{**rule, "scope": "project"} for rule in json.loads(JSON)["rules"]]
    }
    assert spec.config(PermissionConfigKey) == config
    assert AgentSpec("plain").config(PermissionConfigKey) == PermissionRulesConfig()
    raw = AgentSpec("raw").with_section(
        "permission", {"rules": [{"tool": "x", "behavior": "deny"}]}
    )
    assert raw.config(PermissionConfigKey).rules[0].behavior is ToolPermissionBehavior.DENY


def test_schema_served_for_the_section() -> None:
    schema = ConfigSchema.for_key(PermissionConfigKey)
    assert schema.key == "permission"
    props = schema.json_schema["properties"]
    assert set(props) == {"default_behavior", "rules"}
