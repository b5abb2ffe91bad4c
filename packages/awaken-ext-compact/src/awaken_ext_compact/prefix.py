"""Which older prefix a summary may cover, and the transcript the compactor reads.

The prefix ends at a *safe boundary*: every tool call in it is answered there and the first
message after it is not a tool result, so the request never starts with an orphan result.
"""

from __future__ import annotations

from collections.abc import Sequence

from awaken_contract.contract.message import Message, Role, Visibility

__all__ = ["find_compaction_boundary", "render_transcript"]


def find_compaction_boundary(messages: Sequence[Message], search_end: int) -> int | None:
    """The longest safe prefix length ``n`` (1 ≤ n ≤ ``search_end``): every tool call in
    ``messages[:n]`` is answered there and ``messages[n]`` is not a tool result."""
    pending: set[str] = set()
    best: int | None = None
    limit = min(search_end, len(messages) - 1)
    for index in range(limit):
        message = messages[index]
        if message.role is Role.ASSISTANT and message.tool_calls:
            pending.update(call.id for call in message.tool_calls)
        elif message.role is Role.TOOL and message.tool_call_id:
            pending.discard(message.tool_call_id)
        length = index + 1
        if not pending and messages[length].role is not Role.TOOL:
            best = length
    return best


def render_transcript(messages: Sequence[Message]) -> str:
    """``[Role]: text`` of every non-internal message with text, blank-line separated."""
    lines = []
    for message in messages:
        if message.visibility is Visibility.INTERNAL:
            continue
        text = message.text().strip()
        if text:
            lines.append(f"[{message.role.value.capitalize()}]: {text}")
    return "\n\n".join(lines)
