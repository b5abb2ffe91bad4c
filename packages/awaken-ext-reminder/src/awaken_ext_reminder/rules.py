"""Compiled reminder rules: a parsed tool pattern, an output matcher and the message to inject."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from awaken_contract.contract.context_message import ContextMessage, ContextMessageTarget
from awaken_contract.contract.message import Role
from awaken_contract.contract.tool import ToolResult
from awaken_tool_pattern import (
    FieldCondition,
    FieldSegment,
    ToolCallPattern,
    parse_pattern,
    value_to_string,
    wildcard_match,
)

from awaken_ext_reminder.entries import (
    ContentFieldsEntry,
    OutputStatus,
    ReminderMessageEntry,
    ReminderRuleEntry,
)

__all__ = ["REMINDER_KEY_PREFIX", "OutputMatcher", "ReminderRule", "reminder_message"]

REMINDER_KEY_PREFIX = "reminder."


@dataclass(frozen=True, slots=True)
class OutputMatcher:
    """Holds for a tool result when its status and its ``data`` match (absent: any).

    ``text`` is a glob over the string form of ``data`` (``""`` for null); ``fields`` are
    conditions on ``data`` that must all hold (never for null data). ``result.message`` is
    never looked at.
    """

    status: OutputStatus | None = None
    text: str | None = None
    fields: tuple[FieldCondition, ...] | None = None

    def matches(self, result: ToolResult) -> bool:
        """Whether ``result`` satisfies this matcher."""
        if self.status not in (None, OutputStatus.ANY) and result.status.value != self.status:
            return False
        if self.text is not None:
            data_text = "" if result.data is None else value_to_string(result.data)
            if not wildcard_match(self.text, data_text):
                return False
        if self.fields is not None:
            if result.data is None:
                return False
            return all(condition.evaluate(result.data) for condition in self.fields)
        return True


@dataclass(frozen=True, slots=True)
class ReminderRule:
    """One compiled rule; its message key is ``reminder.<name>``."""

    name: str
    pattern: ToolCallPattern
    output: OutputMatcher
    message: ContextMessage

    @classmethod
    def compile(cls, index: int, entry: ReminderRuleEntry) -> ReminderRule:
        """The rule of a validated entry at position ``index`` (names default to
        ``rule-<index>-<tool>``)."""
        name = entry.name if entry.name is not None else f"rule-{index}-{entry.tool}"
        output = entry.output
        matcher = OutputMatcher()
        if output != "any":
            assert not isinstance(output, str)
            content = output.content
            matcher = OutputMatcher(
                status=output.status,
                text=content if isinstance(content, str) else None,
                fields=_conditions(content) if isinstance(content, ContentFieldsEntry) else None,
            )
        return cls(name, parse_pattern(entry.tool), matcher, reminder_message(name, entry.message))

    def matches(self, tool_name: str, args: Any, result: ToolResult) -> bool:
        """Whether a call of ``tool_name`` with ``args`` that returned ``result`` fires it."""
        return bool(self.pattern.matches(tool_name, args)) and self.output.matches(result)


def reminder_message(name: str, entry: ReminderMessageEntry) -> ContextMessage:
    """The context message of rule ``name``: one text block, not persistent, priority 0."""
    key = REMINDER_KEY_PREFIX + name
    text = entry.content
    match entry.target:
        case ContextMessageTarget.SYSTEM:
            message = ContextMessage.system(key, text)
        case ContextMessageTarget.SESSION:
            message = ContextMessage.session(key, Role.SYSTEM, text)
        case ContextMessageTarget.CONVERSATION:
            message = ContextMessage.conversation(key, Role.SYSTEM, text)
        case ContextMessageTarget.SUFFIX_SYSTEM:
            message = ContextMessage.suffix_system(key, text)
    return message.with_cooldown(entry.cooldown_turns)


def _conditions(content: ContentFieldsEntry) -> tuple[FieldCondition, ...]:
    return tuple(
        FieldCondition(tuple(FieldSegment(part) for part in f.path.split(".")), f.op, f.value)
        for f in content.fields
    )
