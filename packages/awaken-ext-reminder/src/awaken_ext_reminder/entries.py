"""The entries of a reminder rule as users write them: tool pattern, output matcher, message."""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal

from awaken_contract.contract.context_message import ContextMessageTarget
from awaken_tool_pattern import MatchOp, check_pattern
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    StrictStr,
    Tag,
    field_validator,
)

__all__ = [
    "ContentFieldEntry",
    "ContentFieldsEntry",
    "OutputMatcherEntry",
    "OutputStatus",
    "ReminderMessageEntry",
    "ReminderRuleEntry",
]


class OutputStatus(enum.StrEnum):
    """The tool-result status an output matcher requires (``ANY``: every status)."""

    SUCCESS = "success"
    ERROR = "error"
    PENDING = "pending"
    ANY = "any"


def _member_of(kind: type[enum.StrEnum], message: str) -> BeforeValidator:
    """Refuse a string that is not a value of ``kind`` with ``message`` (``{}``: the value)."""
    values = {member.value for member in kind}

    def check(value: Any) -> Any:
        if isinstance(value, str) and value not in values:
            raise ValueError(message.format(value))
        return value

    return BeforeValidator(check)


class ContentFieldEntry(BaseModel):
    """``path op "value"`` on the result's ``data`` (``path``: dot-separated object keys)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(min_length=1, description="Dot-separated object keys, e.g. error.code")
    op: Annotated[MatchOp, _member_of(MatchOp, "invalid match op: {}")] = Field(
        default=MatchOp.GLOB, description="glob, exact, regex, not_glob, …"
    )
    value: StrictStr = Field(description="Compared as a string (quote numbers)")


class ContentFieldsEntry(BaseModel):
    """Structured content check: every field condition must hold."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fields: list[ContentFieldEntry]


def _text_or_structured(value: Any) -> str:
    return "text" if isinstance(value, str) else "structured"


ContentCheck = Annotated[
    Annotated[StrictStr, Tag("text")] | Annotated[ContentFieldsEntry, Tag("structured")],
    Discriminator(_text_or_structured),
]
"""A text glob over the result data, or ``{fields: [...]}``."""


Status = Annotated[
    OutputStatus, _member_of(OutputStatus, "invalid output matcher: unknown status: '{}'")
]


class OutputMatcherEntry(BaseModel):
    """``{status?, content?}``; ``{}`` matches every result."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    status: (
        Annotated[
            OutputStatus, _member_of(OutputStatus, "invalid output matcher: unknown status: '{}'")
        ]
        | None
    ) = None
    content: ContentCheck | None = Field(
        default=None, description="A text glob over the result data, or {fields: [...]}"
    )


class ReminderMessageEntry(BaseModel):
    """The context message a matching rule schedules."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    target: Annotated[
        ContextMessageTarget, _member_of(ContextMessageTarget, "invalid message target: {}")
    ]
    content: StrictStr
    cooldown_turns: int = Field(default=0, ge=0)


OutputCheck = Annotated[
    Annotated[Literal["any"], Tag("text")] | Annotated[OutputMatcherEntry, Tag("structured")],
    Discriminator(_text_or_structured),
]
"""``"any"`` or ``{status?, content?}``."""


class ReminderRuleEntry(BaseModel):
    """One rule: a tool pattern, an output matcher and the message to inject."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = Field(default=None, description="Default rule-<index>-<tool>")
    tool: str = Field(description="A tool-pattern DSL string")
    output: OutputCheck = "any"
    message: ReminderMessageEntry

    @field_validator("tool")
    @classmethod
    def _pattern_parses(cls, value: str) -> str:
        return check_pattern(value)

    @field_validator("output", mode="before")
    @classmethod
    def _output_form(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("invalid output matcher: null is not a matcher, use 'any'")
        if isinstance(value, str) and value != "any":
            raise ValueError(
                f"invalid output matcher: unknown output matcher: '{value}', "
                "expected 'any' or structured"
            )
        return value
