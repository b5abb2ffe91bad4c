"""B.4: normalisation, extraction, semantic validation and schema errors."""

from typing import Any

import pytest
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.tool import InvalidArguments, ToolCallContext, ToolStatus
from awaken_ext_generative_ui import (
    NO_MESSAGE_ERROR,
    RenderA2uiTool,
    extract_messages,
    normalize,
    semantic_errors,
    validate_arguments,
)

TEXT = {"Text": {"text": {"literalString": "hi"}}}
OK_SURFACE = {"surfaceUpdate": {"surfaceId": "s", "components": [{"id": "r", "component": TEXT}]}}


def test_normalize_rebuilds_flattened_arguments() -> None:
    flat = {"surfaceId": "s", "components": [{"id": "r", "component": TEXT}], "extra": 1}
    assert normalize(flat) == {
        "surfaceUpdate": {"surfaceId": "s", "components": flat["components"]}
    }
    flat_with_key = {
        "surfaceId": "s",
        "components": [],
        "root": "r",
        "path": "/p",
        "contents": [],
        "beginRendering": {"stray": True},
        "dataModelUpdate": "ignored",
    }
    assert normalize(flat_with_key) == {
        "dataModelUpdate": {
            "surfaceId": "s",
            "components": [],
            "contents": [],
            "path": "/p",
            "root": "r",
        }
    }
    assert normalize(OK_SURFACE) is OK_SURFACE
    assert normalize({"surfaceId": "s"}) == {"surfaceId": "s"}
    assert normalize([1]) == [1] and normalize("x") == "x"


def test_extract_messages() -> None:
    assert extract_messages({"messages": [1, 2]}) == [1, 2]
    assert extract_messages(OK_SURFACE) == [OK_SURFACE]
    assert extract_messages({"messages": "x", "deleteSurface": {}}) == [
        {"messages": "x", "deleteSurface": {}}
    ]
    assert extract_messages({"other": 1}) == [] and extract_messages([OK_SURFACE]) == []


@pytest.mark.parametrize("args", [{}, {"other": 1}, {"messages": []}, None, [OK_SURFACE]])
def test_no_message_is_an_error(args: Any) -> None:
    with pytest.raises(InvalidArguments) as info:
        validate_arguments(args)
    assert str(info.value).endswith(NO_MESSAGE_ERROR)


def surface(component: dict[str, Any]) -> dict[str, Any]:
    return {
        "surfaceUpdate": {"surfaceId": "s", "components": [{"id": "c", "component": component}]}
    }


COMPONENTS = "surfaceUpdate.components[0]"


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        ("text", "must be an object"),
        (
            {"other": {}},
            "missing message type; expected one of: surfaceUpdate, dataModelUpdate, "
            "beginRendering, deleteSurface",
        ),
        (
            {
                "deleteSurface": {"surfaceId": "s"},
                "beginRendering": {"surfaceId": "s", "root": "r"},
            },
            "multiple message types in one object: beginRendering, deleteSurface",
        ),
        ({"deleteSurface": "s"}, '"deleteSurface" must be an object'),
        ({"deleteSurface": {}}, '"deleteSurface.surfaceId" is required'),
        ({"deleteSurface": {"surfaceId": 5}}, '"deleteSurface.surfaceId" is required'),
        ({"deleteSurface": {"surfaceId": ""}}, '"deleteSurface.surfaceId" must not be empty'),
        (
            {"deleteSurface": {"surfaceId": "s", "root": "r"}},
            '"deleteSurface" only accepts "surfaceId", got root',
        ),
        ({"beginRendering": {"surfaceId": "s"}}, '"beginRendering.root" is required'),
        (
            {"beginRendering": {"surfaceId": "s", "root": ""}},
            '"beginRendering.root" must not be empty',
        ),
        (
            {"surfaceUpdate": {"surfaceId": "s"}},
            '"surfaceUpdate.components" must be a non-empty array',
        ),
        (
            {"surfaceUpdate": {"surfaceId": "s", "components": []}},
            '"surfaceUpdate.components" must be a non-empty array',
        ),
        (
            {"surfaceUpdate": {"surfaceId": "s", "components": [3]}},
            f'"{COMPONENTS}" must be an object',
        ),
        (
            {"surfaceUpdate": {"surfaceId": "s", "components": [{"component": TEXT}]}},
            f'"{COMPONENTS}.id" must be a string',
        ),
        (
            {"surfaceUpdate": {"surfaceId": "s", "components": [{"id": "c", "component": []}]}},
            f'"{COMPONENTS}.component" must be an object',
        ),
        (surface({}), f'"{COMPONENTS}.component" must have exactly one component type, got 0'),
        (
            surface({**TEXT, "Row": {}}),
            f'"{COMPONENTS}.component" must have exactly one component type, got 2',
        ),
        (surface({"Card": "x"}), f'"{COMPONENTS}.component.Card" must be an object'),
        (
            surface({"Text": {"text": "hi"}}),
            f'"{COMPONENTS}.component.Text.text" must be an object',
        ),
        (
            surface({"Button": {"child": "l"}}),
            f'"{COMPONENTS}.component.Button.action" must be an object with a string "name"',
        ),
        (
            surface({"Button": {"action": {"name": "go", "context": {}}}}),
            f'"{COMPONENTS}.component.Button.action.context" must be an array',
        ),
        (
            surface(
                {"Button": {"action": {"name": "go", "context": [{"key": "k", "value": "v"}]}}}
            ),
            f'"{COMPONENTS}.component.Button.action.context[0]" must be an object with a string',
        ),
        (
            surface({"MultipleChoice": {"choices": [], "options": [], "selections": {}}}),
            f'"{COMPONENTS}.component.MultipleChoice.choices" is not supported; '
            'use "options" and "selections"',
        ),
        (
            surface({"MultipleChoice": {"label": {}, "options": [], "selections": {}}}),
            f'"{COMPONENTS}.component.MultipleChoice.label" is not supported',
        ),
        (
            surface({"MultipleChoice": {"value": {}, "options": [], "selections": {}}}),
            f'"{COMPONENTS}.component.MultipleChoice.value" is not supported',
        ),
        (
            surface({"MultipleChoice": {"options": {}, "selections": {}}}),
            f'"{COMPONENTS}.component.MultipleChoice.options" must be an array',
        ),
        (
            surface({"MultipleChoice": {"options": [], "selections": []}}),
            f'"{COMPONENTS}.component.MultipleChoice.selections" must be an object',
        ),
        (
            {"dataModelUpdate": {"surfaceId": "s"}},
            '"dataModelUpdate.contents" must be a non-empty array',
        ),
        (
            {"dataModelUpdate": {"surfaceId": "s", "contents": ["x"]}},
            '"dataModelUpdate.contents[0]" must be an object',
        ),
        (
            {"dataModelUpdate": {"surfaceId": "s", "contents": [{"key": ""}]}},
            '"dataModelUpdate.contents[0].key" must be a non-empty string',
        ),
    ],
)
def test_each_semantic_rule(message: Any, problem: str) -> None:
    [error] = semantic_errors([message])
    assert error.startswith("message[0]: ") and problem in error
    with pytest.raises(InvalidArguments, match="A2UI validation failed: message"):
        validate_arguments({"messages": [message]})


def test_unknown_component_types_and_valid_widgets_pass() -> None:
    widgets = [
        {"Slider": {"anything": [1, 2]}},
        {
            "Button": {
                "child": "l",
                "action": {"name": "go", "context": [{"key": "k", "value": {"path": "/k"}}]},
            }
        },
        {"Button": {"action": {"name": "go"}}},
        {
            "MultipleChoice": {
                "options": [],
                "selections": {"path": "/t"},
                "maxAllowedSelections": 1,
            }
        },
        {"Text": {"text": {"path": "/a"}}},
    ]
    for widget in widgets:
        assert semantic_errors([surface(widget)]) == []


def test_spec_rejected_example_and_problems_are_joined() -> None:
    with pytest.raises(InvalidArguments) as info:
        validate_arguments({"beginRendering": {"surfaceId": "s", "root": ""}})
    assert str(info.value).endswith(
        'A2UI validation failed: message[0]: "beginRendering.root" must not be empty'
    )
    batch = {
        "messages": [{"deleteSurface": {}}, OK_SURFACE, {"beginRendering": {"surfaceId": "s"}}]
    }
    with pytest.raises(InvalidArguments) as info:
        validate_arguments(batch)
    assert str(info.value).endswith(
        'A2UI validation failed: message[0]: "deleteSurface.surfaceId" is required; '
        'message[2]: "beginRendering.root" is required'
    )


def test_schema_errors_name_the_json_path() -> None:
    bad_weight = {
        "surfaceUpdate": {
            "surfaceId": "s",
            "components": [{"id": "r", "component": TEXT, "weight": "x"}],
        }
    }
    with pytest.raises(InvalidArguments) as info:
        validate_arguments(bad_weight)
    assert "render_a2ui schema at $.surfaceUpdate.components[0].weight" in str(info.value)
    with pytest.raises(InvalidArguments) as info:
        validate_arguments({**OK_SURFACE, "version": "v0.8"})
    assert "schema at $:" in str(info.value) and "version" in str(info.value)


async def test_tool_returns_the_count_and_publishes_an_activity() -> None:
    sink = VecEventSink()
    base = ToolCallContext.test_default("call-7", "render_a2ui")
    ctx = ToolCallContext("call-7", "render_a2ui", base.run_identity, activity_sink=sink)
    flat = {"surfaceId": "s", "components": [{"id": "r", "component": TEXT}]}
    result = await RenderA2uiTool().execute(flat, ctx)
    assert result.status is ToolStatus.SUCCESS and result.tool_name == "render_a2ui"
    assert result.data == {"rendered": True, "count": 1}
    [activity] = sink.take()
    assert activity.message_id == "a2ui-surface-call-7"
    assert activity.activity_type == "a2ui-surface" and activity.replace is True
    assert activity.content == {"a2ui_operations": [OK_SURFACE]}
    with pytest.raises(InvalidArguments):
        RenderA2uiTool().validate_args({"deleteSurface": {"surfaceId": ""}})
    no_sink = await RenderA2uiTool().execute(OK_SURFACE, ToolCallContext.test_default())
    assert no_sink.data == {"rendered": True, "count": 1}
