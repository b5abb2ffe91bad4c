"""Conversation-summary messages: recognising them and the view that starts at the latest one.

A summary is an internal system message ``<conversation-summary>\\n…\\n</conversation-summary>``
inserted into the history by LLM compaction. Messages before the latest summary stay in the
thread log but are not sent to the model again (the book's load-time trim).
"""

from __future__ import annotations

from collections.abc import Sequence

from awaken_contract.contract.message import Message, Role, Visibility

__all__ = [
    "SUMMARY_CLOSE",
    "SUMMARY_OPEN",
    "is_summary_message",
    "last_summary_index",
    "summary_message",
    "summary_text",
    "summary_view",
    "trim_to_compaction_boundary",
]

SUMMARY_OPEN = "<conversation-summary>"
SUMMARY_CLOSE = "</conversation-summary>"


def summary_message(summary: str) -> Message:
    """The internal system message carrying ``summary``."""
    return Message.internal_system(f"{SUMMARY_OPEN}\n{summary.strip()}\n{SUMMARY_CLOSE}")


def is_summary_message(message: Message) -> bool:
    """True for an internal system message containing a conversation summary."""
    return (
        message.role is Role.SYSTEM
        and message.visibility is Visibility.INTERNAL
        and SUMMARY_OPEN in message.text()
    )


def summary_text(message: Message) -> str | None:
    """The trimmed summary inside a summary message (``None`` when not well formed)."""
    text = message.text()
    start = text.find(SUMMARY_OPEN)
    end = text.find(SUMMARY_CLOSE, start + len(SUMMARY_OPEN))
    if start < 0 or end < 0:
        return None
    return text[start + len(SUMMARY_OPEN) : end].strip()


def last_summary_index(messages: Sequence[Message]) -> int | None:
    """Index of the latest summary message."""
    for index in range(len(messages) - 1, -1, -1):
        if is_summary_message(messages[index]):
            return index
    return None


def trim_to_compaction_boundary(messages: Sequence[Message]) -> list[Message]:
    """The messages from the latest summary on (all of them when there is none)."""
    index = last_summary_index(messages)
    return list(messages) if index is None else list(messages[index:])


def summary_view(messages: Sequence[Message]) -> list[Message]:
    """Like :func:`trim_to_compaction_boundary` but keeps the request's leading system
    messages (the agent prompt and system context) in front."""
    index = last_summary_index(messages)
    if index is None:
        return list(messages)
    lead = 0
    while lead < len(messages) and messages[lead].role is Role.SYSTEM:
        lead += 1
    if index < lead:
        return list(messages)
    return [*messages[:lead], *messages[index:]]
