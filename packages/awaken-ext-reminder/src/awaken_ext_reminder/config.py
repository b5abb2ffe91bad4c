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
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from awaken_contract.contract.context_message import ContextMessageTarget
from awaken_contract.errors import ConfigLoadError
from awaken_contract.registry_spec import PluginConfigKey, parse_document
from awaken_tool_pattern import MatchOp, PatternSyntaxError, parse_pattern
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictStr,
    Tag,
    ValidationError,
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

_YAML_EXTS = frozenset({"yaml", "yml"})


class ReminderConfigError(ConfigLoadError):
    """Reminder rules could not be read, parsed or validated."""


class OutputStatus(enum.StrEnum):
    """The tool-result status an output matcher requires (``ANY``: every status)."""

    SUCCESS = "success"
    ERROR = "error"
    PENDING = "pending"
    ANY = "any"


class ContentFieldEntry(BaseModel):
    """``path op "value"`` on the result's ``data`` (``path``: dot-separated object keys)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(min_length=1, description="Dot-separated object keys, e.g. error.code")
    op: MatchOp = Field(default=MatchOp.GLOB, description="glob, exact, regex, not_glob, …")
    value: StrictStr = Field(description="Compared as a string (quote numbers)")

    @field_validator("op", mode="before")
    @classmethod
    def _known_op(cls, value: Any) -> Any:
        if isinstance(value, str) and value not in MatchOp.__members__.values():
            raise ValueError(f"invalid match op: {value}")
        return value


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


class OutputMatcherEntry(BaseModel):
    """``{status?, content?}``; ``{}`` matches every result."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    status: OutputStatus | None = None
    content: ContentCheck | None = Field(
        default=None, description="A text glob over the result data, or {fields: [...]}"
    )

    @field_validator("status", mode="before")
    @classmethod
    def _known_status(cls, value: Any) -> Any:
        if isinstance(value, str) and value not in OutputStatus.__members__.values():
            raise ValueError(f"invalid output matcher: unknown status: '{value}'")
        return value


class ReminderMessageEntry(BaseModel):
    """The context message a matching rule schedules."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    target: ContextMessageTarget
    content: StrictStr
    cooldown_turns: int = Field(default=0, ge=0)

    @field_validator("target", mode="before")
    @classmethod
    def _known_target(cls, value: Any) -> Any:
        if isinstance(value, str) and value not in ContextMessageTarget.__members__.values():
            raise ValueError(f"invalid message target: {value}")
        return value


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
        try:
            parse_pattern(value)
        except PatternSyntaxError as exc:
            raise ValueError(f"invalid pattern `{value}`: {exc}") from None
        return value

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


class ReminderRulesConfig(BaseModel):
    """The ``reminder`` section: rules evaluated in order (every matching rule fires)."""

    model_config = ConfigDict(extra="forbid")

    rules: list[ReminderRuleEntry] = Field(default_factory=list)

    @classmethod
    def from_file(cls, path: str | Path) -> ReminderRulesConfig:
        """Load a JSON or YAML file (chosen by its extension)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ReminderConfigError(f"io error: {exc}") from exc
        return cls.from_str(text, path.suffix.lstrip("."))

    @classmethod
    def from_str(cls, text: str, ext: str = "json") -> ReminderRulesConfig:
        """Parse configuration text; ``ext`` hints the format (``json``, ``yaml``, ``yml``).

        JSON is always accepted; YAML is used for YAML hints and for text that does not start
        with ``{`` or ``[``.
        """
        yaml_hint = ext.lower().lstrip(".") in _YAML_EXTS
        fmt = "yaml" if yaml_hint or not text.lstrip().startswith(("{", "[")) else "json"
        try:
            data = parse_document(text, fmt, "reminder config")
        except ConfigLoadError as exc:
            raise ReminderConfigError(str(exc)) from None
        return cls.validate_section({} if data is None else data)

    @classmethod
    def validate_section(cls, data: Any) -> ReminderRulesConfig:
        """Validate plain data (raises :class:`ReminderConfigError` naming each problem)."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ReminderConfigError(describe(exc)) from None

    def into_rules(self) -> list[ReminderRule]:
        """The compiled rules, in order."""
        from awaken_ext_reminder.rules import ReminderRule

        return [ReminderRule.compile(index, entry) for index, entry in enumerate(self.rules)]


class ReminderConfigKey(PluginConfigKey[ReminderRulesConfig]):
    """Agent-spec section ``reminder`` → :class:`ReminderRulesConfig`."""

    KEY = "reminder"
    CONFIG = ReminderRulesConfig


def describe(exc: ValidationError) -> str:
    """``invalid reminder config: rules.0.tool: invalid pattern …`` (every problem, in order)."""
    problems = []
    for error in exc.errors():
        loc = [str(part) for part in error["loc"] if part not in ("text", "structured")]
        where = ".".join(loc) or "config"
        problems.append(f"{where}: {str(error['msg']).removeprefix('Value error, ')}")
    return "invalid reminder config: " + "; ".join(problems)
