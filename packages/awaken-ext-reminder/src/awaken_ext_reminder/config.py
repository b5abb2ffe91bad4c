"""Reminder rules as users write them: inline, in a JSON/YAML file, or in the ``reminder`` section.

```yaml
rules:
  - name: toml-edit
    tool: 'Edit(file_path ~ "*.toml")'
    output: any
    message: {target: system, content: "TOML changed: run the checker.", cooldown_turns: 3}
  - tool: "*"
    output: {status: error, content: "*permission denied*"}
    message: {target: suffix_system, content: "Access was refused; check ownership."}
```
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Annotated, Any, Literal

from awaken_contract.contract.context_message import ContextMessageTarget
from awaken_contract.errors import ConfigLoadError
from awaken_contract.registry_spec import ConfigSection, PluginConfigKey
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

if TYPE_CHECKING:
    from awaken_ext_reminder.rules import ReminderRule

__all__ = [
    "ContentFieldEntry",
    "ContentFieldsEntry",
    "OutputMatcherEntry",
    "OutputStatus",
    "ReminderConfigError",
    "ReminderConfigKey",
    "ReminderMessageEntry",
    "ReminderRuleEntry",
    "ReminderRulesConfig",
]


class ReminderConfigError(ConfigLoadError):
    """Reminder rules could not be read, parsed or validated."""


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


class ReminderRulesConfig(ConfigSection):
    """The ``reminder`` section: rules evaluated in order (every matching rule fires).
    ``from_file`` / ``from_str`` / ``validate_section`` raise :class:`ReminderConfigError`."""

    model_config = ConfigDict(extra="forbid")
    CONFIG_ERROR = ReminderConfigError
    CONFIG_LABEL = "reminder config"

    rules: list[ReminderRuleEntry] = Field(default_factory=list)

    def into_rules(self) -> list[ReminderRule]:
        """The compiled rules, in order."""
        from awaken_ext_reminder.rules import ReminderRule

        return [ReminderRule.compile(index, entry) for index, entry in enumerate(self.rules)]


class ReminderConfigKey(PluginConfigKey[ReminderRulesConfig]):
    """Agent-spec section ``reminder`` → :class:`ReminderRulesConfig`."""

    KEY = "reminder"
    CONFIG = ReminderRulesConfig
