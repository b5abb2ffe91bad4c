"""Context message keys: the throttle (cooldown per message) and the message store."""

from __future__ import annotations

import hashlib

import msgspec

from awaken_contract.contract.context_message import ContextMessage
from awaken_contract.state import KeyScope, MergeStrategy, StateKey


def content_hash(message: ContextMessage) -> int:
    """Stable 64-bit hash of the JSON of a context message's content."""
    data = msgspec.json.encode(message.content)
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


class ThrottleEntry(msgspec.Struct, gc=False):
    """When a context message key was last injected, and with which content."""

    last_step: int
    content_hash: int


class ContextThrottleState(msgspec.Struct):
    """``{"entries": {key: ThrottleEntry}}``."""

    entries: dict[str, ThrottleEntry] = msgspec.field(default_factory=dict)


class ThrottleUpdate(msgspec.Struct, frozen=True, gc=False):
    """Record an injection of ``key``."""

    key: str
    entry: ThrottleEntry


class ContextThrottleKey(StateKey[ContextThrottleState, ThrottleUpdate]):
    """``__runtime.context_throttle``."""

    KEY = "__runtime.context_throttle"
    MERGE = MergeStrategy.EXCLUSIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: ContextThrottleState, update: ThrottleUpdate) -> ContextThrottleState:
        entries = dict(value.entries)
        entries[update.key] = update.entry
        return ContextThrottleState(entries)


class ContextMessageStoreState(msgspec.Struct):
    """``{"messages": {key: ContextMessage}}``."""

    messages: dict[str, ContextMessage] = msgspec.field(default_factory=dict)

    def sorted_messages(self) -> list[ContextMessage]:
        """Messages in injection order (target, priority, key)."""
        return sorted(self.messages.values(), key=ContextMessage.sort_key)


class UpsertContextMessage(msgspec.Struct, frozen=True):
    """Insert or replace the message with the same key."""

    message: ContextMessage


class RemoveContextMessages(msgspec.Struct, frozen=True):
    """Remove messages by key."""

    keys: list[str]


class ContextMessageStoreKey(
    StateKey[ContextMessageStoreState, UpsertContextMessage | RemoveContextMessages]
):
    """``__runtime.context_message_store`` (commutative)."""

    KEY = "__runtime.context_message_store"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(
        cls,
        value: ContextMessageStoreState,
        update: UpsertContextMessage | RemoveContextMessages,
    ) -> ContextMessageStoreState:
        messages = dict(value.messages)
        if isinstance(update, UpsertContextMessage):
            messages[update.message.key] = update.message
        else:
            for key in update.keys:
                messages.pop(key, None)
        return ContextMessageStoreState(messages)
