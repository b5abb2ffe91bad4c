"""Reminder rules as users write them: inline, in a JSON/YAML file, or in the ``reminder`` section.

```yaml
rules:
  - name: toml-edit
    tool: 'Edit(file_path ~ "*.toml")'
    output: any
    message: {target: system, content: "TOML changed: run the checker.", cooldown_turns: 3}
  - tool: "*"
    output: {status: error, content: "*permission denied*"}
    message: {target: suffix_system, content: "Access was refused; check ownership."}
```
"""

from __future__ import annotations

from awaken_contract.errors import ConfigLoadError
from awaken_contract.registry_spec import ConfigSection, PluginConfigKey
from pydantic import ConfigDict, Field

from awaken_ext_reminder.entries import (
    ContentFieldEntry,
    ContentFieldsEntry,
    OutputMatcherEntry,
    OutputStatus,
    ReminderMessageEntry,
    ReminderRuleEntry,
)
from awaken_ext_reminder.rules import ReminderRule

__all__ = [
    "ContentFieldEntry",
    "ContentFieldsEntry",
    "OutputMatcherEntry",
    "OutputStatus",
    "ReminderConfigError",
    "ReminderConfigKey",
    "ReminderMessageEntry",
    "ReminderRuleEntry",
    "ReminderRulesConfig",
]


class ReminderConfigError(ConfigLoadError):
    """Reminder rules could not be read, parsed or validated."""


class ReminderRulesConfig(ConfigSection):
    """The ``reminder`` section: rules evaluated in order (every matching rule fires).
    ``from_file`` / ``from_str`` / ``validate_section`` raise :class:`ReminderConfigError`."""

    model_config = ConfigDict(extra="forbid")
    CONFIG_ERROR = ReminderConfigError
    CONFIG_LABEL = "reminder config"

    rules: list[ReminderRuleEntry] = Field(default_factory=list)

    def into_rules(self) -> list[ReminderRule]:
        """The compiled rules, in order."""
        return [ReminderRule.compile(index, entry) for index, entry in enumerate(self.rules)]


class ReminderConfigKey(PluginConfigKey[ReminderRulesConfig]):
    """Agent-spec section ``reminder`` → :class:`ReminderRulesConfig`."""

    KEY = "reminder"
    CONFIG = ReminderRulesConfig
