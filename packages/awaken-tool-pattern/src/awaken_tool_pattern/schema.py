"""Checking the field paths of a pattern against a tool's JSON Schema."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from awaken_tool_pattern.path import (
    AnyIndexSegment,
    FieldSegment,
    IndexSegment,
    PathSegment,
)
from awaken_tool_pattern.pattern import FieldsArgs, ToolCallPattern


def schema_has_path(schema: Any, path: Sequence[PathSegment]) -> bool:
    """Whether a value described by ``schema`` can have something at ``path``."""
    if not path:
        return True
    if not isinstance(schema, dict):
        return False
    head, rest = path[0], path[1:]
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    additional = schema.get("additionalProperties")
    if isinstance(head, FieldSegment):
        if head.name in properties:
            return schema_has_path(properties[head.name], rest)
        return isinstance(additional, dict) and schema_has_path(additional, rest)
    if isinstance(head, IndexSegment | AnyIndexSegment):
        return "items" in schema and schema_has_path(schema["items"], rest)
    if any(schema_has_path(sub, rest) for sub in properties.values()):
        return True
    return isinstance(additional, dict) and schema_has_path(additional, rest)


def validate_pattern_fields(pattern: ToolCallPattern, schema: Any) -> list[str]:
    """Paths of ``pattern``'s field conditions that ``schema`` does not have.

    Each is the segments joined by ``.`` (``items.[*].name``); other matchers give ``[]``.
    """
    if not isinstance(pattern.args, FieldsArgs):
        return []
    return [
        ".".join(str(segment) for segment in condition.path)
        for condition in pattern.args.conditions
        if not schema_has_path(schema, condition.path)
    ]
