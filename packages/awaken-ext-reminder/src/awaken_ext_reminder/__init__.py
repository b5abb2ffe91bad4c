"""Reminder rules for Awaken agents (``awaken.ext_reminder``).

After a tool call whose name and arguments match a rule's tool pattern and whose result matches
its output matcher, the rule's context message enters the next inference (never the transcript).

>>> from awaken_ext_reminder import ReminderPlugin, ReminderRulesConfig
>>> config = ReminderRulesConfig.from_str('''
... rules:
...   - tool: "Bash(command ~ 'rm *')"
...     output: {status: success}
...     message: {target: suffix_system, content: "A deletion succeeded. Verify the result."}
... ''', "yaml")
>>> plugin = ReminderPlugin(config.into_rules())
>>> plugin.rules[0].name, plugin.rules[0].message.key
("rule-0-Bash(command ~ 'rm *')", "reminder.rule-0-Bash(command ~ 'rm *')")
"""

from awaken_ext_reminder.config import (
    ContentFieldEntry,
    ContentFieldsEntry,
    OutputMatcherEntry,
    OutputStatus,
    ReminderConfigError,
    ReminderConfigKey,
    ReminderMessageEntry,
    ReminderRuleEntry,
    ReminderRulesConfig,
)
from awaken_ext_reminder.plugin import REMINDER_PLUGIN_ID, ReminderHook, ReminderPlugin
from awaken_ext_reminder.rules import REMINDER_KEY_PREFIX, OutputMatcher, ReminderRule

__all__ = [
    "REMINDER_KEY_PREFIX",
    "REMINDER_PLUGIN_ID",
    "ContentFieldEntry",
    "ContentFieldsEntry",
    "OutputMatcher",
    "OutputMatcherEntry",
    "OutputStatus",
    "ReminderConfigError",
    "ReminderConfigKey",
    "ReminderHook",
    "ReminderMessageEntry",
    "ReminderPlugin",
    "ReminderRule",
    "ReminderRuleEntry",
    "ReminderRulesConfig",
]
