"""Context messages: text plugins and tools inject into the next inference request.

A :class:`ContextMessage` is the payload of the ``runtime.add_context_message`` action. The loop
places it by :class:`ContextMessageTarget` (system prompt area, session, conversation, or after
the history), throttles it by ``cooldown_turns`` and keeps it across steps when ``persistent``.
"""

from __future__ import annotations

import enum

import msgspec

from awaken_contract.contract.content import AnyContentBlock, TextBlock
from awaken_contract.contract.message import Role, Visibility

__all__ = ["ContextMessage", "ContextMessageTarget"]


class ContextMessageTarget(enum.StrEnum):
    """Where a context message is placed; ordered ``SYSTEM < SESSION < CONVERSATION <
    SUFFIX_SYSTEM`` (the sort order of injected messages)."""

    SYSTEM = "system"
    SESSION = "session"
    CONVERSATION = "conversation"
    SUFFIX_SYSTEM = "suffix_system"

    @property
    def order(self) -> int:
        """Rank used for sorting (0 for ``SYSTEM`` … 3 for ``SUFFIX_SYSTEM``)."""
        return _TARGET_ORDER[self]


_TARGET_ORDER = {target: index for index, target in enumerate(ContextMessageTarget)}


class ContextMessage(msgspec.Struct):
    """A message injected into the inference context, identified (and upserted) by ``key``."""

    key: str
    role: Role
    content: list[AnyContentBlock]
    visibility: Visibility
    target: ContextMessageTarget
    cooldown_turns: int
    persistent: bool = False
    consume_after_emit: bool = False
    priority: int = 0

    @classmethod
    def _make(
        cls,
        key: str,
        role: Role,
        text: str,
        visibility: Visibility,
        target: ContextMessageTarget,
        *,
        persistent: bool = False,
        consume_after_emit: bool = False,
    ) -> ContextMessage:
        return cls(
            key=key,
            role=role,
            content=[TextBlock(text=text)],
            visibility=visibility,
            target=target,
            cooldown_turns=0,
            persistent=persistent,
            consume_after_emit=consume_after_emit,
        )

    @classmethod
    def system(cls, key: str, text: str) -> ContextMessage:
        """An internal system message placed right after the system prompt."""
        return cls._make(key, Role.SYSTEM, text, Visibility.INTERNAL, ContextMessageTarget.SYSTEM)

    @classmethod
    def suffix_system(cls, key: str, text: str) -> ContextMessage:
        """An internal system message appended after the history."""
        return cls._make(
            key, Role.SYSTEM, text, Visibility.INTERNAL, ContextMessageTarget.SUFFIX_SYSTEM
        )

    @classmethod
    def session(cls, key: str, role: Role, text: str) -> ContextMessage:
        """An internal message placed after the leading system messages."""
        return cls._make(key, role, text, Visibility.INTERNAL, ContextMessageTarget.SESSION)

    @classmethod
    def conversation(cls, key: str, role: Role, text: str) -> ContextMessage:
        """A visible (``all``) message placed at the start of the conversation."""
        return cls._make(key, role, text, Visibility.ALL, ContextMessageTarget.CONVERSATION)

    @classmethod
    def system_persistent(cls, key: str, text: str) -> ContextMessage:
        """Like :meth:`system` but re-injected every step until removed."""
        return cls._make(
            key,
            Role.SYSTEM,
            text,
            Visibility.INTERNAL,
            ContextMessageTarget.SYSTEM,
            persistent=True,
        )

    @classmethod
    def emit_once(cls, key: str, text: str, target: ContextMessageTarget) -> ContextMessage:
        """An internal system message injected once, then removed."""
        return cls._make(
            key,
            Role.SYSTEM,
            text,
            Visibility.INTERNAL,
            target,
            persistent=True,
            consume_after_emit=True,
        )

    def with_cooldown(self, turns: int) -> ContextMessage:
        """Inject at most once every ``turns`` steps while the content is unchanged."""
        return msgspec.structs.replace(self, cooldown_turns=turns)

    def with_priority(self, priority: int) -> ContextMessage:
        """Order among messages of the same target (ascending)."""
        return msgspec.structs.replace(self, priority=priority)

    def sort_key(self) -> tuple[int, int, str]:
        """``(target order, priority, key)`` — the injection order."""
        return (self.target.order, self.priority, self.key)
