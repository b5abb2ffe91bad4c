"""``ReminderPlugin``: after a matching tool call, a context message for the next inference."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from awaken_contract.actions import AddContextMessage
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    ConfigSchema,
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
)
from awaken_contract.registry_spec import AgentSpec
from awaken_contract.state import MutationBatch, StateCommand

from awaken_ext_reminder.config import ReminderConfigKey, ReminderRulesConfig
from awaken_ext_reminder.rules import ReminderRule

__all__ = ["REMINDER_PLUGIN_ID", "ReminderHook", "ReminderPlugin"]

REMINDER_PLUGIN_ID = "reminder"

_log = logging.getLogger("awaken.ext.reminder")


def section_rules(spec: AgentSpec) -> list[ReminderRule]:
    """The rules of the agent's ``reminder`` section (``KeyDecode`` for key ``reminder`` when
    the section is invalid)."""
    if spec.section(ReminderConfigKey.KEY) is None:
        return []
    return spec.config(ReminderConfigKey).into_rules()


class ReminderHook(PhaseHook):
    """AfterToolExecute: schedules ``AddContextMessage`` for every rule matching the call
    (plugin rules first, then the agent's section rules, each in order)."""

    def __init__(self, rules: Iterable[ReminderRule]) -> None:
        self.rules = list(rules)

    async def run(self, ctx: PhaseContext) -> StateCommand:
        command = StateCommand()
        if ctx.tool_name is None or ctx.tool_result is None:
            return command
        for rule in [*self.rules, *section_rules(ctx.agent_spec)]:
            if rule.matches(ctx.tool_name, ctx.tool_args, ctx.tool_result):
                _log.debug("reminder rule matched: %s (tool %s)", rule.name, ctx.tool_name)
                command.schedule_action(AddContextMessage, rule.message)
        return command


class ReminderPlugin(Plugin):
    """Plugin ``reminder``: rules given here (``ReminderPlugin(config.into_rules())``) and the
    agent's ``reminder`` section. No state keys of its own: cooldowns use the runtime's
    run-scoped context throttle."""

    def __init__(self, rules: Iterable[ReminderRule] | ReminderRulesConfig = ()) -> None:
        if isinstance(rules, ReminderRulesConfig):
            rules = rules.into_rules()
        self.rules = list(rules)

    def descriptor(self) -> PluginDescriptor:
        """``reminder``."""
        return PluginDescriptor(REMINDER_PLUGIN_ID)

    def register(self, registrar: PluginRegistrar) -> None:
        """The AfterToolExecute hook."""
        registrar.register_phase_hook(
            REMINDER_PLUGIN_ID, Phase.AFTER_TOOL_EXECUTE, ReminderHook(self.rules)
        )

    def config_schemas(self) -> list[ConfigSchema]:
        """The ``reminder`` section."""
        return [ConfigSchema.for_key(ReminderConfigKey)]

    def on_activate(self, agent_spec: AgentSpec, patch: MutationBatch) -> None:
        """Convert the section once: an invalid one fails activation."""
        section_rules(agent_spec)
