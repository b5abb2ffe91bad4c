"""Records of a thread's durable message log: positions, ranges, queries and pages."""

from __future__ import annotations

import msgspec

from awaken_contract.contract.message import Message
from awaken_contract.ids import new_id

__all__ = [
    "MessagePage",
    "MessageQuery",
    "MessageRecord",
    "MessageSeqRange",
]


class MessageRecord(msgspec.Struct, omit_defaults=True):
    """A message of the durable thread log with its 1-based position ``seq``."""

    message_id: str
    thread_id: str
    seq: int
    message: Message
    produced_by_run_id: str | None = None
    step_index: int | None = None
    tool_call_id: str | None = None
    created_at: int | None = None

    @classmethod
    def from_message(cls, thread_id: str, seq: int, message: Message) -> MessageRecord:
        """Project ``message`` at position ``seq`` (a message without id gets a fresh one)."""
        meta = message.metadata
        return cls(
            message_id=message.id if message.id is not None else new_id(),
            thread_id=thread_id,
            seq=seq,
            message=message,
            produced_by_run_id=meta.run_id if meta is not None else None,
            step_index=meta.step_index if meta is not None else None,
            tool_call_id=message.tool_call_id,
        )


class MessageSeqRange(msgspec.Struct, gc=False):
    """Inclusive, 1-based range of message sequence numbers."""

    from_seq: int
    to_seq: int

    def __post_init__(self) -> None:
        if self.from_seq == 0:
            raise ValueError("from_seq must be >= 1")
        if self.from_seq > self.to_seq:
            raise ValueError(f"from_seq {self.from_seq} > to_seq {self.to_seq}")

    def __len__(self) -> int:
        return self.to_seq - self.from_seq + 1

    def contains(self, seq: int) -> bool:
        """True when ``seq`` lies inside the range."""
        return self.from_seq <= seq <= self.to_seq


class MessageQuery(msgspec.Struct, omit_defaults=True, gc=False):
    """A page of a thread's messages; ``cursor`` (a stringified offset) wins over ``offset``."""

    offset: int = 0
    limit: int = 50
    cursor: str | None = None
    include_internal: bool = False

    def start(self) -> int:
        """The effective offset (``cursor`` when present and non-blank)."""
        if self.cursor is not None and self.cursor.strip():
            value = self.cursor.strip()
            if not value.isdigit():
                raise ValueError("cursor must be an unsigned integer offset")
            return int(value)
        return max(self.offset, 0)


class MessagePage(msgspec.Struct):
    """One page of messages plus the cursor of the next page (``None`` on the last page)."""

    messages: list[Message]
    total: int
    has_more: bool
    next_cursor: str | None = None
