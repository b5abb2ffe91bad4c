"""User-edited permission configuration: inline, from a JSON/YAML file, or as an agent section."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from awaken_contract.errors import ConfigLoadError
from awaken_contract.registry_spec import PluginConfigKey
from awaken_tool_pattern import PatternSyntaxError, parse_pattern
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from awaken_ext_permission.rules import (
    PatternSubject,
    PermissionRule,
    PermissionRuleScope,
    PermissionRuleset,
    PermissionRuleSource,
    ToolPermissionBehavior,
)

_YAML_SUFFIXES = frozenset({"yaml", "yml"})


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
        try:
            parse_pattern(value)
        except PatternSyntaxError as exc:
            raise ValueError(f"invalid pattern `{value}`: {exc}") from None
        return value

    def to_rule(self) -> PermissionRule:
        """The stored rule (pattern subject, source ``definition``, this entry's scope)."""
        return PermissionRule(
            subject=PatternSubject.of(self.tool),
            behavior=self.behavior,
            scope=self.scope,
            source=PermissionRuleSource.DEFINITION,
        )


class PermissionRulesConfig(BaseModel):
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

    default_behavior: ToolPermissionBehavior = ToolPermissionBehavior.ASK
    rules: list[PermissionRuleEntry] = Field(default_factory=list)

    @classmethod
    def from_file(cls, path: str | Path) -> PermissionRulesConfig:
        """Load a JSON or YAML file (chosen by its extension; JSON is also valid YAML)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise PermissionConfigError(f"io error: {exc}") from exc
        return cls.from_str(text, path.suffix.lstrip("."))

    @classmethod
    def from_str(cls, text: str, ext: str = "json") -> PermissionRulesConfig:
        """Parse configuration text; ``ext`` (``json``, ``yaml``, ``yml``) hints the format.

        JSON is always accepted; YAML is used for YAML hints and for text that does not start
        with ``{`` or ``[``.
        """
        data = _load_text(text, ext)
        try:
            return cls.model_validate({} if data is None else data)
        except ValidationError as exc:
            raise PermissionConfigError(_describe(exc)) from None

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


def _load_text(text: str, ext: str) -> Any:
    hint = ext.lower().lstrip(".")
    use_yaml = hint in _YAML_SUFFIXES or not text.lstrip().startswith(("{", "["))
    try:
        if use_yaml:
            return yaml.safe_load(text)
        return json.loads(text)
    except (yaml.YAMLError, json.JSONDecodeError) as exc:
        raise PermissionConfigError(f"parse error: {exc}") from None


def _describe(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "config"
        message = str(error["msg"]).removeprefix("Value error, ")
        problems.append(f"{where}: {message}")
    return "invalid permission config: " + "; ".join(problems)
