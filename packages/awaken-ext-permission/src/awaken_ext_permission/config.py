"""User-edited permission configuration: inline, from a JSON/YAML file, or as an agent section."""

from __future__ import annotations

from typing import Any

from awaken_contract.errors import ConfigLoadError
from awaken_contract.registry_spec import ConfigSection, PluginConfigKey
from awaken_tool_pattern import check_pattern
from pydantic import BaseModel, ConfigDict, Field, field_validator

from awaken_ext_permission.rules import (
    PatternSubject,
    PermissionRule,
    PermissionRuleScope,
    PermissionRuleset,
    PermissionRuleSource,
    ToolPermissionBehavior,
)


class PermissionConfigError(ConfigLoadError):
    """A permission configuration could not be read, parsed or validated."""


class PermissionRuleEntry(BaseModel):
    """One configured rule: a tool pattern (``read_file``, ``Bash(npm *)``, ``mcp__*``) and
    its behaviour. ``scope`` is a label kept on the stored rule."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str = Field(description="A tool-pattern DSL string")
    behavior: ToolPermissionBehavior
    scope: PermissionRuleScope = PermissionRuleScope.PROJECT

    @field_validator("tool")
    @classmethod
    def _pattern_parses(cls, value: str) -> str:
        return check_pattern(value)

    def to_rule(self) -> PermissionRule:
        """The stored rule (pattern subject, source ``definition``, this entry's scope)."""
        return PermissionRule(
            subject=PatternSubject.of(self.tool),
            behavior=self.behavior,
            scope=self.scope,
            source=PermissionRuleSource.DEFINITION,
        )


class PermissionRulesConfig(ConfigSection):
    """The ``permission`` section: a default behaviour and rules (their order is irrelevant).

    ```yaml
    default_behavior: ask
    rules:
      - tool: read_file
        behavior: allow
      - tool: "Bash(npm *)"
        behavior: allow
      - tool: "delete_*"
        behavior: deny
    ```
    """

    model_config = ConfigDict(extra="forbid")
    CONFIG_ERROR = PermissionConfigError
    CONFIG_LABEL = "permission config"

    default_behavior: ToolPermissionBehavior = ToolPermissionBehavior.ASK
    rules: list[PermissionRuleEntry] = Field(default_factory=list)

    def into_ruleset(self) -> PermissionRuleset:
        """The configured default behaviour and rules as a :class:`PermissionRuleset`."""
        rules = {rule.key: rule for rule in (entry.to_rule() for entry in self.rules)}
        return PermissionRuleset(self.default_behavior, rules)

    def with_rule(
        self, tool: str, behavior: ToolPermissionBehavior | str, **fields: Any
    ) -> PermissionRulesConfig:
        """A copy with one more rule (raises ``ValidationError`` for an invalid pattern)."""
        entry = PermissionRuleEntry(tool=tool, behavior=ToolPermissionBehavior(behavior), **fields)
        return self.model_copy(update={"rules": [*self.rules, entry]})


class PermissionConfigKey(PluginConfigKey[PermissionRulesConfig]):
    """Agent-spec section ``permission`` → :class:`PermissionRulesConfig`."""

    KEY = "permission"
    CONFIG = PermissionRulesConfig
