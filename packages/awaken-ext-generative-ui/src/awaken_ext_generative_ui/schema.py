"""The JSON Schema of ``render_a2ui``'s arguments (the v0.8 message shapes, strict).

A call carries one message key at top level, or ``messages``: a non-empty array of objects
that each have exactly one key. Every object forbids unknown properties except ``valueMap``
entries and component props.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RENDER_A2UI_PARAMETERS", "message_schemas"]

_NONEMPTY: dict[str, Any] = {"type": "string", "minLength": 1}


def _closed(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": properties,
        "required": required,
    }


_COMPONENT = _closed(
    {
        "id": _NONEMPTY,
        "weight": {"type": "number"},
        "component": {
            "type": "object",
            "minProperties": 1,
            "maxProperties": 1,
            "additionalProperties": {"type": "object"},
            "description": "A single-key object {TypeName: {props}}",
        },
    },
    ["id", "component"],
)

_DATA_ENTRY = _closed(
    {
        "key": _NONEMPTY,
        "valueString": {"type": "string"},
        "valueNumber": {"type": "number"},
        "valueBoolean": {"type": "boolean"},
        "valueMap": {"type": "array", "items": {"type": "object"}},
    },
    ["key"],
)


def message_schemas() -> dict[str, dict[str, Any]]:
    """The body schema of each message key."""
    return {
        "surfaceUpdate": _closed(
            {
                "surfaceId": _NONEMPTY,
                "components": {"type": "array", "minItems": 1, "items": _COMPONENT},
            },
            ["surfaceId", "components"],
        ),
        "dataModelUpdate": _closed(
            {
                "surfaceId": _NONEMPTY,
                "path": {"type": "string"},
                "contents": {"type": "array", "minItems": 1, "items": _DATA_ENTRY},
            },
            ["surfaceId", "contents"],
        ),
        "beginRendering": _closed(
            {
                "surfaceId": _NONEMPTY,
                "root": _NONEMPTY,
                "styles": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            ["surfaceId", "root"],
        ),
        "deleteSurface": _closed({"surfaceId": _NONEMPTY}, ["surfaceId"]),
    }


def _parameters() -> dict[str, Any]:
    bodies = message_schemas()
    single_key = [_closed({key: body}, [key]) for key, body in bodies.items()]
    return {
        "type": "object",
        "description": (
            "Provide exactly one A2UI v0.8 message key (surfaceUpdate, dataModelUpdate, "
            "beginRendering, deleteSurface), or `messages` with several messages in order."
        ),
        "additionalProperties": False,
        "minProperties": 1,
        "properties": {
            **bodies,
            "messages": {"type": "array", "minItems": 1, "items": {"oneOf": single_key}},
        },
    }


#: ``render_a2ui``'s parameters.
RENDER_A2UI_PARAMETERS: dict[str, Any] = _parameters()
