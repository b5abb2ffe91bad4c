"""Structured output, independent of the loop: the schema sent to the model, the
``final_result`` tool, JSON found in model text, and validation of an answer.

:class:`OutputValidator` turns an :class:`~awaken_contract.output_schema.OutputSchema` into
what a provider accepts (an object schema: a non-object schema such as an array is wrapped as
``{"response": ...}`` and unwrapped again) and validates answers — with the pydantic model
when the schema came from one (the value is then an instance of it), else with
``jsonschema`` (the value is the decoded JSON). A failed validation raises
:class:`InvalidOutput` with a message written for the model.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import msgspec
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.output_schema import OutputSchema
from pydantic import ValidationError

__all__ = [
    "FINAL_RESULT_TOOL",
    "InvalidOutput",
    "OutputState",
    "OutputValidator",
    "ValidatedOutput",
    "extract_json",
]

FINAL_RESULT_TOOL = "final_result"
"""The tool the model calls with its final answer when the provider has no native mode."""

_WRAP_KEY = "response"
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def extract_json(text: str) -> Any:
    """The JSON value of ``text``: the whole text, else its first fenced block, else the first
    ``{...}``/``[...]`` span (raises ``ValueError`` when there is none)."""
    candidates = [text.strip()]
    candidates += [m.strip() for m in _FENCE.findall(text)]
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if 0 <= start < end:
            candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    raise ValueError("no JSON value found")


class InvalidOutput(ValueError):
    """An answer that does not match the schema; ``str()`` is shown to the model."""


class ValidatedOutput:
    """A valid answer: ``value`` for the caller (model instance or JSON), ``data`` as JSON."""

    __slots__ = ("data", "value")

    def __init__(self, value: object, data: Any) -> None:
        self.value = value
        self.data = data

    @property
    def text(self) -> str:
        """The answer as compact JSON text (the run's final response)."""
        return json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))


def _is_object(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "object" or (
        "properties" in schema and "type" not in schema and "$ref" not in schema
    )


def _closed(schema: Any) -> Any:
    """``schema`` with ``additionalProperties: false`` on every object that leaves it unset
    (what strict provider modes demand; validation keeps the original schema)."""
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _closed(value) for key, value in schema.items()}
    if "properties" in schema:
        out["properties"] = {name: _closed(sub) for name, sub in schema["properties"].items()}
    if (schema.get("type") == "object" or "properties" in schema) and (
        "additionalProperties" not in schema
    ):
        out["additionalProperties"] = False
    return out


def _strict_compatible(schema: Any) -> bool:
    """Every object closed and fully required (what OpenAI's strict mode accepts)."""
    if isinstance(schema, list):
        return all(_strict_compatible(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            return False
        if set(schema.get("required", [])) != set(properties):
            return False
    return all(_strict_compatible(value) for value in schema.values())


class OutputValidator:
    """One agent's output schema, compiled (the schema itself was checked by ``OutputSchema``)."""

    def __init__(self, output: OutputSchema) -> None:
        self.output = output
        schema = output.json_schema
        self.wrapped = not _is_object(schema)
        self.schema: dict[str, Any]
        if self.wrapped:
            defs: dict[str, Any] = {k: schema[k] for k in ("$defs", "definitions") if k in schema}
            inner = {k: v for k, v in schema.items() if k not in defs}
            self.schema = {
                "type": "object",
                "properties": {_WRAP_KEY: inner},
                "required": [_WRAP_KEY],
                "additionalProperties": False,
                **defs,
            }
        else:
            self.schema = schema
        self.schema = _closed(self.schema)
        self.strict = (
            output.strict if output.strict is not None else _strict_compatible(self.schema)
        )
        self._validator = jsonschema.validators.validator_for(schema)(schema)

    def tool(self) -> ToolDescriptor:
        """The ``final_result`` tool whose arguments are the answer."""
        description = (
            "Give your final answer by calling this tool with it as the arguments; "
            "call it once, after any other tools you need."
        )
        if self.output.description:
            description += f" The answer: {self.output.description}"
        return ToolDescriptor(FINAL_RESULT_TOOL, FINAL_RESULT_TOOL, description).with_parameters(
            self.schema
        )

    def validate_arguments(self, arguments: Any) -> ValidatedOutput:
        """Validate the ``final_result`` call's arguments (the wrapped object schema)."""
        if self.wrapped:
            if not isinstance(arguments, dict) or _WRAP_KEY not in arguments:
                raise InvalidOutput(f"the arguments must be an object with a {_WRAP_KEY!r} key")
            arguments = arguments[_WRAP_KEY]
        return self.validate(arguments)

    def validate_text(self, text: str) -> ValidatedOutput:
        """Validate an answer given as text (native mode, or a model that did not call the
        tool): its JSON, unwrapped when the schema was wrapped."""
        try:
            value = extract_json(text)
        except ValueError:
            raise InvalidOutput("the answer is not JSON") from None
        if self.wrapped and isinstance(value, dict) and set(value) == {_WRAP_KEY}:
            value = value[_WRAP_KEY]
        return self.validate(value)

    def validate(self, value: Any) -> ValidatedOutput:
        """The validated answer, or ``InvalidOutput`` listing what is wrong."""
        model = self.output.model
        if model is not None:
            try:
                instance = model.model_validate(value)
            except ValidationError as exc:
                raise InvalidOutput(_pydantic_errors(exc)) from None
            return ValidatedOutput(instance, instance.model_dump(mode="json"))
        errors = sorted(self._validator.iter_errors(value), key=lambda e: list(e.path))
        if errors:
            raise InvalidOutput("; ".join(_schema_error(e) for e in errors[:10]))
        return ValidatedOutput(value, value)


def _pydantic_errors(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors(include_url=False)[:10]:
        where = ".".join(str(p) for p in error["loc"])
        parts.append(f"{where}: {error['msg']}" if where else error["msg"])
    return "; ".join(parts)


def _schema_error(error: jsonschema.ValidationError) -> str:
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


class OutputState(msgspec.Struct, eq=False):
    """One run's structured output: the compiled validator, the accepted answer and how many
    answers failed validation so far.

    A msgspec struct: made untracked by the garbage collector while its fields hold no
    container (every run without an output schema), tracked again once one is assigned."""

    validator: OutputValidator | None = None
    result: ValidatedOutput | None = None
    failures: int = 0
    native: bool = False
    """Whether the last request asked natively (else the ``final_result`` tool)."""

    def validator_for(self, output: OutputSchema | None) -> OutputValidator | None:
        """The validator of ``output`` (compiled once per schema), ``None`` without one."""
        if output is None:
            return None
        if self.validator is None or self.validator.output is not output:
            self.validator = OutputValidator(output)
        return self.validator
