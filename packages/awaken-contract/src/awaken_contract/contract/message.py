"""Messages: what the user, the model and tools say to each other in a thread."""

from __future__ import annotations

import enum
from typing import Any

import msgspec

from awaken_contract.contract.content import AnyContentBlock, TextBlock, text_of
from awaken_contract.ids import new_id

__all__ = [
    "Message",
    "MessageMetadata",
    "Role",
    "ToolCall",
    "Visibility",
    "new_id",
]


class Role(enum.StrEnum):
    """Who authored a message."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class Visibility(enum.StrEnum):
    """``ALL``: shown to UIs and the model. ``INTERNAL``: only sent to the model."""

    ALL = "all"
    INTERNAL = "internal"


# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_SYSTEM = Role.SYSTEM
_USER = Role.USER
_ASSISTANT = Role.ASSISTANT
_TOOL = Role.TOOL
_ALL = Visibility.ALL
_INTERNAL = Visibility.INTERNAL


class MessageMetadata(msgspec.Struct, omit_defaults=True, gc=False):
    """Which run (and step inside it) produced a message."""

    run_id: str | None = None
    step_index: int | None = None
    structured_output: bool = False
    """The message's text is the run's validated structured output (JSON)."""


class ToolCall(msgspec.Struct):
    """A tool invocation requested by the model."""

    id: str
    name: str
    arguments: Any


class Message(msgspec.Struct, omit_defaults=True):
    """One message of a conversation."""

    role: Role
    content: list[AnyContentBlock]
    id: str | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    visibility: Visibility = _ALL
    metadata: MessageMetadata | None = None

    # ------------------------------------------------------------------ factories
    @classmethod
    def _make(
        cls,
        role: Role,
        text: str,
        visibility: Visibility = _ALL,
    ) -> Message:
        return cls(role=role, content=[TextBlock(text=text)], id=new_id(), visibility=visibility)

    @classmethod
    def system(cls, text: str) -> Message:
        """A system message."""
        return cls._make(_SYSTEM, text)

    @classmethod
    def internal_system(cls, text: str) -> Message:
        """A system message only the model sees."""
        return cls._make(_SYSTEM, text, _INTERNAL)

    @classmethod
    def internal_user(cls, text: str) -> Message:
        """A user-role message only the model sees."""
        return cls._make(_USER, text, _INTERNAL)

    @classmethod
    def user(cls, text: str) -> Message:
        """A user message with one text block."""
        return cls._make(_USER, text)

    @classmethod
    def user_with_content(cls, content: list[AnyContentBlock]) -> Message:
        """A user message with arbitrary content blocks (e.g. images)."""
        return cls(role=_USER, content=list(content), id=new_id())

    @classmethod
    def assistant(cls, text: str) -> Message:
        """An assistant message with one text block."""
        return cls._make(_ASSISTANT, text)

    @classmethod
    def assistant_with_tool_calls(cls, text: str, calls: list[ToolCall]) -> Message:
        """An assistant message requesting tool calls (``tool_calls`` is None when empty)."""
        return cls(
            role=_ASSISTANT,
            content=[TextBlock(text=text)],
            id=new_id(),
            tool_calls=list(calls) or None,
        )

    @classmethod
    def tool(cls, call_id: str, text: str) -> Message:
        """The result of tool call ``call_id`` as text."""
        return cls(role=_TOOL, content=[TextBlock(text=text)], id=new_id(), tool_call_id=call_id)

    @classmethod
    def tool_with_content(cls, call_id: str, content: list[AnyContentBlock]) -> Message:
        """The result of tool call ``call_id`` as content blocks."""
        return cls(role=_TOOL, content=list(content), id=new_id(), tool_call_id=call_id)

    # ------------------------------------------------------------------ helpers
    def text(self) -> str:
        """Concatenated text of all text blocks."""
        return text_of(self.content)

    def with_visibility(self, visibility: Visibility) -> Message:
        """Return a copy with another visibility."""
        return msgspec.structs.replace(self, visibility=visibility)

    def mark_produced_by(self, run_id: str, step_index: int) -> None:
        """Record the producing run and step, never overwriting values already set."""
        if self.metadata is None:
            self.metadata = MessageMetadata()
        if self.metadata.run_id is None:
            self.metadata.run_id = run_id
        if self.metadata.step_index is None:
            self.metadata.step_index = step_index

    @property
    def is_internal(self) -> bool:
        """True when only the model may see this message."""
        return self.visibility is _INTERNAL
