"""The eval dataset file: cases (input, expectations) and the scorers that judge them.

A dataset is YAML or JSON (pydantic models, readable validation errors)::

    name: weather-smoke
    agent: assistant
    threshold: 0.9          # fraction of cases that must pass (exit status 1 below it)
    cases:
      - id: paris
        input: "What is the weather in Paris?"
        expected:
          tool_calls: [{name: get_weather, arguments: {city: Paris}}]
          termination: natural_end
        scorers:
          - {type: contains, value: "sunny in Paris"}

Without ``scorers`` a case is judged by what ``expected`` names: ``output`` → ``exact``,
``tool_calls`` → ``tool_calls``, ``termination`` → ``termination``.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated, Any, Literal, Self

import yaml
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.message import Message
from awaken_contract.errors import ConfigLoadError
from awaken_contract.registry_spec import parse_document
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

__all__ = [
    "AnyScorerSpec",
    "ArgumentMatch",
    "ContainsSpec",
    "EvalCase",
    "EvalDataset",
    "ExactSpec",
    "Expected",
    "ExpectedToolCall",
    "InputMessage",
    "JsonSchemaSpec",
    "JudgeSpec",
    "RegexSpec",
    "TerminationSpec",
    "ToolCallsSpec",
]

_STRICT = ConfigDict(extra="forbid")


class InputMessage(BaseModel):
    """One input message of a case (``user``, ``assistant`` or ``system`` text)."""

    model_config = _STRICT

    role: Literal["user", "assistant", "system"] = "user"
    content: str

    def to_message(self) -> Message:
        """The runtime :class:`Message`."""
        if self.role == "assistant":
            return Message.assistant(self.content)
        if self.role == "system":
            return Message.system(self.content)
        return Message.user(self.content)


class ExpectedToolCall(BaseModel):
    """A tool call the agent should make; ``arguments`` (if given) must match."""

    model_config = _STRICT

    name: str = Field(min_length=1)
    arguments: dict[str, Any] | None = None


class Expected(BaseModel):
    """What a case expects: the final answer, tool calls and how the run ends."""

    model_config = _STRICT

    output: str | None = None
    tool_calls: list[ExpectedToolCall] | None = None
    termination: TerminationKind | None = None


class ExactSpec(BaseModel):
    """The final answer equals ``value`` (default: ``expected.output``), whitespace-trimmed."""

    model_config = _STRICT

    type: Literal["exact"] = "exact"
    value: str | None = None
    case_sensitive: bool = True


class ContainsSpec(BaseModel):
    """The final answer contains every string of ``value``."""

    model_config = _STRICT

    type: Literal["contains"] = "contains"
    value: str | list[str]
    case_sensitive: bool = True

    def needles(self) -> list[str]:
        """``value`` as a list."""
        return [self.value] if isinstance(self.value, str) else list(self.value)


class RegexSpec(BaseModel):
    """The final answer matches ``pattern`` (``re.search``; ``ignore_case`` for ``re.I``)."""

    model_config = _STRICT

    type: Literal["regex"] = "regex"
    pattern: str
    ignore_case: bool = False


class JsonSchemaSpec(BaseModel):
    """The final answer is JSON (a fenced ```json block is accepted) valid against ``schema``."""

    model_config = _STRICT

    type: Literal["json_schema"] = "json_schema"
    json_schema: dict[str, Any] = Field(alias="schema")


class ArgumentMatch(enum.StrEnum):
    """How expected tool-call arguments are compared with the actual ones."""

    EXACT = "exact"
    SUBSET = "subset"
    """Every expected key has the expected value; extra actual keys are fine."""
    IGNORE = "ignore"


class ToolCallsSpec(BaseModel):
    """The run made the expected tool calls (default: ``expected.tool_calls``)."""

    model_config = _STRICT

    type: Literal["tool_calls"] = "tool_calls"
    calls: list[ExpectedToolCall] | None = None
    arguments: ArgumentMatch = ArgumentMatch.SUBSET
    ordered: bool = False
    """Expected calls must appear in this order (other calls may come in between)."""
    allow_extra: bool = True
    """Calls beyond the expected ones are fine."""


class TerminationSpec(BaseModel):
    """The run ended with ``value`` (default: ``expected.termination``)."""

    model_config = _STRICT

    type: Literal["termination"] = "termination"
    value: TerminationKind | None = None


class JudgeSpec(BaseModel):
    """An LLM judges the answer against ``rubric``; passes when its score ≥ ``pass_score``.

    ``model`` is a model id of the runtime's registry (default: the dataset's
    ``judge_model``)."""

    model_config = _STRICT

    type: Literal["judge"] = "judge"
    rubric: str = Field(min_length=1)
    model: str | None = None
    pass_score: float = Field(default=0.5, ge=0, le=1)


AnyScorerSpec = Annotated[
    ExactSpec
    | ContainsSpec
    | RegexSpec
    | JsonSchemaSpec
    | ToolCallsSpec
    | TerminationSpec
    | JudgeSpec,
    Field(discriminator="type"),
]


class EvalCase(BaseModel):
    """One case: the input messages, what is expected and the scorers that decide."""

    model_config = _STRICT

    id: str = Field(min_length=1)
    input: str | list[InputMessage]
    expected: Expected = Field(default_factory=Expected)
    scorers: list[AnyScorerSpec] = Field(default_factory=list)
    agent: str | None = None
    """Overrides the dataset's agent for this case."""
    tags: list[str] = Field(default_factory=list)

    def messages(self) -> list[Message]:
        """The input as runtime messages."""
        if isinstance(self.input, str):
            return [Message.user(self.input)]
        return [m.to_message() for m in self.input]

    def effective_scorers(self) -> list[AnyScorerSpec]:
        """``scorers``, or the ones ``expected`` implies when none are listed."""
        if self.scorers:
            return list(self.scorers)
        implied: list[AnyScorerSpec] = []
        if self.expected.output is not None:
            implied.append(ExactSpec())
        if self.expected.tool_calls is not None:
            implied.append(ToolCallsSpec())
        if self.expected.termination is not None:
            implied.append(TerminationSpec())
        return implied

    @model_validator(mode="after")
    def _checkable(self) -> Self:
        if isinstance(self.input, list) and not self.input:
            raise ValueError("input needs at least one message")
        if not self.effective_scorers():
            raise ValueError(f"case {self.id!r} has no scorers and no expected output/tool calls")
        return self


class EvalDataset(BaseModel):
    """A named list of cases run against one agent."""

    model_config = _STRICT

    name: str = "eval"
    description: str = ""
    agent: str | None = None
    """Agent id the cases run against (default: the runtime's only or ``default`` agent)."""
    threshold: float = Field(default=1.0, ge=0, le=1)
    """Fraction of cases that must pass."""
    concurrency: int = Field(default=4, ge=1)
    timeout_secs: float = Field(default=300, gt=0)
    """Longest a case's run may take."""
    judge_model: str | None = None
    cases: list[EvalCase] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> Self:
        seen: set[str] = set()
        for case in self.cases:
            if case.id in seen:
                raise ValueError(f"duplicate case id {case.id!r}")
            seen.add(case.id)
        return self

    @classmethod
    def from_data(cls, data: Any, source: str = "<dataset>") -> EvalDataset:
        """Validate plain data (raises ``ConfigLoadError`` naming the bad fields)."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}"
                for e in exc.errors()
            )
            raise ConfigLoadError(f"{source}: invalid eval dataset: {problems}") from None

    @classmethod
    def from_yaml(cls, text: str, source: str = "<dataset>") -> EvalDataset:
        """Parse and validate YAML (JSON is YAML too)."""
        return cls.from_data(parse_document(text, "yaml", source), source)

    @classmethod
    def from_file(cls, path: str | Path) -> EvalDataset:
        """Load a ``.yaml``/``.yml``/``.json`` dataset file."""
        file = Path(path)
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigLoadError(f"cannot read eval dataset {file}: {exc.strerror}") from None
        fmt = "json" if file.suffix.lower() == ".json" else "yaml"
        return cls.from_data(parse_document(text, fmt, str(file)), str(file))

    def to_yaml(self) -> str:
        """The dataset as YAML (defaults left out)."""
        data = self.model_dump(mode="json", exclude_defaults=True, by_alias=True)
        data = {"name": self.name, **data}
        for case, dumped in zip(self.cases, data["cases"], strict=True):
            if case.scorers:  # keep each scorer's ``type`` even though it is a default
                dumped["scorers"] = [
                    {
                        "type": spec.type,
                        **spec.model_dump(mode="json", exclude_defaults=True, by_alias=True),
                    }
                    for spec in case.scorers
                ]
        text: str = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
        return text
