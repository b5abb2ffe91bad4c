"""The shape of an agent's final answer: :class:`OutputSchema` (``AgentSpec.output_schema``).

Built from a pydantic model class (the run then returns an instance of it) or from a JSON
Schema (the run returns the decoded JSON). The JSON Schema is what the spec stores, so a YAML
agent declares it directly::

    output_schema:
      name: weather
      schema: {type: object, properties: {city: {type: string}}, required: [city]}
      max_retries: 2

A mapping without a ``schema`` key is taken as the schema itself (``output_schema: {type:
object, ...}``). The model class is kept beside the schema in-process only: a spec that went
through JSON validates against the schema and returns JSON.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

__all__ = ["DEFAULT_OUTPUT_RETRIES", "OutputSchema"]

DEFAULT_OUTPUT_RETRIES = 2
"""How often an answer that fails validation is sent back to the model by default."""

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class OutputSchema(BaseModel):
    """A JSON Schema for the final answer, how strictly to ask for it and how often to retry.

    ``strict`` ``None`` (the default) asks for constrained decoding exactly when the schema
    allows it (every object closed with ``additionalProperties: false`` and every property
    required, as OpenAI's strict mode demands).
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str = "output"
    json_schema: dict[str, Any] = Field(validation_alias=AliasChoices("schema", "json_schema"))
    description: str | None = None
    strict: bool | None = None
    max_retries: int = Field(default=DEFAULT_OUTPUT_RETRIES, ge=0)
    _model: type[BaseModel] | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _bare_schema(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "schema" not in data and "json_schema" not in data:
            return {"schema": dict(data)}
        return data

    @field_validator("name")
    @classmethod
    def _valid_name(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError("name must be 1-64 letters, digits, '_' or '-'")
        return value

    @model_serializer(mode="wrap")
    def _schema_key(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        data["schema"] = data.pop("json_schema")
        for key in ("description", "strict"):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @classmethod
    def of(
        cls,
        source: type[BaseModel] | Mapping[str, Any] | OutputSchema,
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool | None = None,
        max_retries: int = DEFAULT_OUTPUT_RETRIES,
    ) -> OutputSchema:
        """An output schema from a pydantic model class or a JSON Schema mapping."""
        if isinstance(source, OutputSchema):
            return source
        if isinstance(source, type) and issubclass(source, BaseModel):
            schema = source.model_json_schema()
            built = cls(
                name=name or _safe_name(source.__name__),
                json_schema=schema,
                description=description or (source.__doc__ or "").strip() or None,
                strict=strict,
                max_retries=max_retries,
            )
            built._model = source
            return built
        if isinstance(source, Mapping):
            title = source.get("title")
            default = _safe_name(title) if isinstance(title, str) else "output"
            return cls(
                name=name or default,
                json_schema=dict(source),
                description=description,
                strict=strict,
                max_retries=max_retries,
            )
        raise TypeError(f"output schema must be a pydantic model class or a mapping: {source!r}")

    @property
    def model(self) -> type[BaseModel] | None:
        """The pydantic model the schema came from (in-process only)."""
        return self._model


def _safe_name(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", text)[:64]
    return cleaned or "output"
