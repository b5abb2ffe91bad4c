"""B.2 message types and B.3 parameter schema."""

import copy
from typing import Any

import jsonschema
import msgspec
import pytest
from awaken_ext_generative_ui import (
    A2UI_MESSAGE_KEYS,
    RENDER_A2UI_PARAMETERS,
    A2uiMessage,
    A2uiMessageKind,
    BeginRendering,
    DataEntry,
    DataModelUpdate,
    DeleteSurface,
    RenderA2uiTool,
    SurfaceUpdate,
)

SURFACE = {
    "surfaceUpdate": {
        "surfaceId": "order-1",
        "components": [
            {"id": "root", "component": {"Card": {"child": "title"}}},
            {"id": "title", "component": {"Text": {"text": {"literalString": "New order"}}}},
        ],
    }
}
BATCH = {
    "messages": [
        {
            "dataModelUpdate": {
                "surfaceId": "order-1",
                "path": "/order",
                "contents": [
                    {"key": "qty", "valueNumber": 2},
                    {"key": "tags", "valueMap": [{"key": "0", "valueString": "rush"}]},
                ],
            }
        },
        {"beginRendering": {"surfaceId": "order-1", "root": "root"}},
    ]
}


def test_messages_decode_with_exact_wire_keys_and_round_trip() -> None:
    message = A2uiMessage.from_json(SURFACE)
    assert message.kind is A2uiMessageKind.SURFACE_UPDATE and message.surface_id == "order-1"
    assert isinstance(message.surface_update, SurfaceUpdate)
    assert message.surface_update.components[1].type_name == "Text"
    assert message.to_json() == SURFACE
    data, begin = (A2uiMessage.from_json(m) for m in BATCH["messages"])
    assert data.data_model_update == DataModelUpdate(
        surface_id="order-1",
        path="/order",
        contents=[
            DataEntry(key="qty", value_number=2),
            DataEntry(key="tags", value_map=[{"key": "0", "valueString": "rush"}]),
        ],
    )
    assert begin.begin_rendering == BeginRendering(surface_id="order-1", root="root")
    assert [m.to_json() for m in (data, begin)] == BATCH["messages"]
    delete = A2uiMessage(delete_surface=DeleteSurface(surface_id="s"))
    assert delete.to_json() == {"deleteSurface": {"surfaceId": "s"}}
    assert A2UI_MESSAGE_KEYS == (
        "surfaceUpdate",
        "dataModelUpdate",
        "beginRendering",
        "deleteSurface",
    )


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"deleteSurface": {"surfaceId": "a"}, "beginRendering": {"surfaceId": "a", "root": "r"}},
        {"version": "v0.8", "deleteSurface": {"surfaceId": "a"}},
        {"createSurface": {"surfaceId": "a", "catalogId": "c"}},
        {"beginRendering": {"surfaceId": "a"}},
    ],
)
def test_invalid_messages_do_not_decode(data: dict[str, Any]) -> None:
    with pytest.raises(msgspec.ValidationError):
        A2uiMessage.from_json(data)


def test_schema_shape() -> None:
    schema = RENDER_A2UI_PARAMETERS
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert schema["minProperties"] == 1
    assert set(schema["properties"]) == {*A2UI_MESSAGE_KEYS, "messages"}
    messages = schema["properties"]["messages"]
    assert messages["type"] == "array" and messages["minItems"] == 1
    one_of = messages["items"]["oneOf"]
    assert [list(s["properties"]) for s in one_of] == [[k] for k in A2UI_MESSAGE_KEYS]
    assert all(s["required"] == list(s["properties"]) for s in one_of)
    for key in A2UI_MESSAGE_KEYS:
        assert schema["properties"][key]["additionalProperties"] is False
    assert RenderA2uiTool().descriptor().parameters == schema
    jsonschema.Draft202012Validator.check_schema(schema)


VALIDATOR = jsonschema.Draft202012Validator(RENDER_A2UI_PARAMETERS)


def test_schema_accepts_the_examples() -> None:
    assert VALIDATOR.is_valid(SURFACE) and VALIDATOR.is_valid(BATCH)
    assert VALIDATOR.is_valid({"deleteSurface": {"surfaceId": "s"}})
    styled = {"beginRendering": {"surfaceId": "s", "root": "r", "styles": {"font": "Roboto"}}}
    assert VALIDATOR.is_valid(styled)


def mutate(base: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(base)
    target = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"extra": 1},
        {"messages": []},
        {"messages": [{}]},
        {"messages": [{"deleteSurface": {"surfaceId": "a"}, "extra": {}}]},
        mutate(SURFACE, ["surfaceUpdate", "surfaceId"], ""),
        mutate(SURFACE, ["surfaceUpdate", "components"], []),
        mutate(SURFACE, ["surfaceUpdate", "extra"], 1),
        mutate(SURFACE, ["surfaceUpdate", "components", 0, "id"], ""),
        mutate(SURFACE, ["surfaceUpdate", "components", 0, "weight"], "heavy"),
        mutate(SURFACE, ["surfaceUpdate", "components", 0, "component"], {}),
        mutate(SURFACE, ["surfaceUpdate", "components", 0, "component", "Row"], {}),
        mutate(SURFACE, ["surfaceUpdate", "components", 0, "component", "Card"], "x"),
        mutate(BATCH, ["messages", 0, "dataModelUpdate", "contents"], []),
        mutate(BATCH, ["messages", 0, "dataModelUpdate", "contents", 0, "key"], ""),
        mutate(BATCH, ["messages", 0, "dataModelUpdate", "contents", 0, "valueNumber"], "2"),
        mutate(BATCH, ["messages", 0, "dataModelUpdate", "contents", 0, "valueMap"], [1]),
        mutate(BATCH, ["messages", 0, "dataModelUpdate", "path"], 3),
        mutate(BATCH, ["messages", 1, "beginRendering", "root"], ""),
        mutate(BATCH, ["messages", 1, "beginRendering", "styles"], {"font": 1}),
        {"deleteSurface": {"surfaceId": "a", "root": "r"}},
    ],
)
def test_schema_rejects(data: dict[str, Any]) -> None:
    assert not VALIDATOR.is_valid(data)
