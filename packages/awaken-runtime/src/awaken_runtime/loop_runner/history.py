"""Thread history hygiene before a run, and reading the response after it.

* :func:`supersede_suspended_calls` — a new user message (without decisions) abandons calls that
  were waiting for a decision: they leave the history.
* :func:`strip_unpaired_tool_calls` — tool calls without a tool result (e.g. a crash mid-step)
  are removed so providers never see a dangling call.
"""

from __future__ import annotations

from collections.abc import Collection

from awaken_contract.contract.message import Message, Role, Visibility

__all__ = [
    "has_visible_user_message",
    "last_assistant_text",
    "strip_unpaired_tool_calls",
    "supersede_suspended_calls",
]

# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_ASSISTANT = Role.ASSISTANT


def _drop_calls(messages: list[Message], call_ids: Collection[str]) -> list[Message]:
    out: list[Message] = []
    for message in messages:
        if message.role is Role.TOOL and message.tool_call_id in call_ids:
            continue
        if message.role is _ASSISTANT and message.tool_calls:
            kept = [c for c in message.tool_calls if c.id not in call_ids]
            if len(kept) != len(message.tool_calls):
                message = Message(
                    role=message.role,
                    content=message.content,
                    id=message.id,
                    tool_calls=kept or None,
                    tool_call_id=message.tool_call_id,
                    visibility=message.visibility,
                    metadata=message.metadata,
                )
        out.append(message)
    while (
        out and out[-1].role is _ASSISTANT and not out[-1].tool_calls and not out[-1].text().strip()
    ):
        out.pop()
    return out


def supersede_suspended_calls(messages: list[Message], suspended: Collection[str]) -> list[Message]:
    """Remove the suspended calls (and their placeholder results) from the history."""
    if not suspended:
        return messages
    return _drop_calls(messages, suspended)


def strip_unpaired_tool_calls(messages: list[Message]) -> list[Message]:
    """Remove assistant tool calls that have no tool-role answer."""
    answered = {m.tool_call_id for m in messages if m.role is Role.TOOL and m.tool_call_id}
    unpaired = {
        call.id
        for m in messages
        if m.role is _ASSISTANT and m.tool_calls
        for call in m.tool_calls
        if call.id not in answered
    }
    if not unpaired:
        return messages
    return _drop_calls(messages, unpaired)


def has_visible_user_message(messages: list[Message]) -> bool:
    """True when some message is a user message shown to UIs (visibility ``all``)."""
    return any(m.role is Role.USER and m.visibility is Visibility.ALL for m in messages)


def last_assistant_text(messages: list[Message], start: int) -> str:
    """Text of the last assistant message at index ``start`` or later (``""`` if none)."""
    for index in range(len(messages) - 1, start - 1, -1):
        message = messages[index]
        if message.role is _ASSISTANT:
            return message.text()
    return ""
