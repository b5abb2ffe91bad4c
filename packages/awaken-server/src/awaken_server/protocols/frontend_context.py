"""Frontend context: client-side state handed to the model as an internal system message."""

from __future__ import annotations

from typing import Any

from awaken_contract.codec import encode_json
from awaken_contract.contract.message import Message


def frontend_context_message(context: Any) -> Message | None:
    """The internal system message carrying ``context``, or None when there is nothing to say.

    ``None`` and ``{}`` produce nothing; anything else is written as compact JSON between
    ``<frontend-context>`` tags.
    """
    if context is None:
        return None
    compact = encode_json(context).decode()
    if compact == "{}":
        return None
    return Message.internal_system(f"<frontend-context>\n{compact}\n</frontend-context>")


def with_frontend_context(messages: list[Message], context: Any) -> list[Message]:
    """``messages`` with the frontend-context message (if any) inserted first."""
    message = frontend_context_message(context)
    return [message, *messages] if message is not None else list(messages)
