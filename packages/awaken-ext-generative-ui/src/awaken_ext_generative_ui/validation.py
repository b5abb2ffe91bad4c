"""Argument processing of ``render_a2ui``: normalise, extract, validate.

1. :func:`normalize` repairs the flattened output of weak models (``surfaceId`` and
   ``components`` at top level) into ``{key: body}``.
2. :func:`extract_messages` takes ``messages`` (an array) or the top-level message.
3. :func:`semantic_errors` checks each message and names the failing path
   (``message[0]: "beginRendering.root" must not be empty``).
4. The JSON Schema of the tool catches whatever else is malformed (unknown properties, wrong
   types), naming the JSON path.

Every failure is an :class:`InvalidArguments` — the model sees the text and can retry.
The semantic checks run before the schema because their messages are the more precise.
"""

from __future__ import annotations

from typing import Any

import jsonschema
from awaken_contract.contract.tool import InvalidArguments

from awaken_ext_generative_ui.schema import RENDER_A2UI_PARAMETERS
from awaken_ext_generative_ui.types import A2UI_MESSAGE_KEYS

__all__ = [
    "NO_MESSAGE_ERROR",
    "extract_messages",
    "normalize",
    "semantic_errors",
    "validate_arguments",
]

NO_MESSAGE_ERROR = (
    "expected at least one A2UI message key (surfaceUpdate, dataModelUpdate, beginRendering, "
    "or deleteSurface)"
)
_FLAT_FIELDS = ("surfaceId", "components", "contents", "path", "root")
_LEGACY_CHOICE_FIELDS = ("choices", "label", "value")
_VALIDATOR = jsonschema.Draft202012Validator(RENDER_A2UI_PARAMETERS)


def normalize(args: Any) -> Any:
    """``{K: {surfaceId, components, …}}`` when ``surfaceId`` and ``components`` are top level
    (``K`` the first message key present, else ``surfaceUpdate``); anything else unchanged."""
    if not isinstance(args, dict) or "surfaceId" not in args or "components" not in args:
        return args
    key = next((k for k in A2UI_MESSAGE_KEYS if k in args), A2UI_MESSAGE_KEYS[0])
    return {key: {field: args[field] for field in _FLAT_FIELDS if field in args}}


def extract_messages(args: Any) -> list[Any]:
    """``args["messages"]`` when it is an array, ``[args]`` when a message key is top level,
    else ``[]``."""
    if not isinstance(args, dict):
        return []
    messages = args.get("messages")
    if isinstance(messages, list):
        return messages
    if any(key in args for key in A2UI_MESSAGE_KEYS):
        return [args]
    return []


def _string_problem(body: dict[str, Any], key: str, field: str) -> str | None:
    value = body.get(field)
    if not isinstance(value, str):
        return f'"{key}.{field}" is required'
    if value == "":
        return f'"{key}.{field}" must not be empty'
    return None


def _component_problem(path: str, type_name: str, props: dict[str, Any]) -> str | None:
    where = f"{path}.{type_name}"
    if type_name == "Text" and not isinstance(props.get("text"), dict):
        return (
            f'"{where}.text" must be an object (e.g. {{"literalString": "..."}} or '
            f'{{"path": "/..."}})'
        )
    if type_name == "Button":
        action = props.get("action")
        if not isinstance(action, dict) or not isinstance(action.get("name"), str):
            return f'"{where}.action" must be an object with a string "name"'
        context = action.get("context")
        if context is not None:
            if not isinstance(context, list):
                return f'"{where}.action.context" must be an array'
            for index, item in enumerate(context):
                if not (
                    isinstance(item, dict)
                    and isinstance(item.get("key"), str)
                    and isinstance(item.get("value"), dict)
                ):
                    return (
                        f'"{where}.action.context[{index}]" must be an object with a string '
                        '"key" and an object "value"'
                    )
    if type_name == "MultipleChoice":
        for legacy in _LEGACY_CHOICE_FIELDS:
            if legacy in props:
                return f'"{where}.{legacy}" is not supported; use "options" and "selections"'
        if not isinstance(props.get("options"), list):
            return f'"{where}.options" must be an array'
        if not isinstance(props.get("selections"), dict):
            return f'"{where}.selections" must be an object (a data binding)'
    return None


def _surface_update_problem(body: dict[str, Any]) -> str | None:
    components = body.get("components")
    if not isinstance(components, list) or not components:
        return '"surfaceUpdate.components" must be a non-empty array'
    for index, item in enumerate(components):
        path = f"surfaceUpdate.components[{index}]"
        if not isinstance(item, dict):
            return f'"{path}" must be an object'
        if not isinstance(item.get("id"), str):
            return f'"{path}.id" must be a string'
        component = item.get("component")
        if not isinstance(component, dict):
            return f'"{path}.component" must be an object'
        if len(component) != 1:
            return f'"{path}.component" must have exactly one component type, got {len(component)}'
        type_name, props = next(iter(component.items()))
        if not isinstance(props, dict):
            return f'"{path}.component.{type_name}" must be an object'
        problem = _component_problem(f"{path}.component", type_name, props)
        if problem is not None:
            return problem
    return None


def _data_model_problem(body: dict[str, Any]) -> str | None:
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        return '"dataModelUpdate.contents" must be a non-empty array'
    for index, entry in enumerate(contents):
        path = f"dataModelUpdate.contents[{index}]"
        if not isinstance(entry, dict):
            return f'"{path}" must be an object'
        key = entry.get("key")
        if not isinstance(key, str) or not key:
            return f'"{path}.key" must be a non-empty string'
    return None


def _message_problem(message: Any) -> str | None:
    if not isinstance(message, dict):
        return "must be an object"
    keys = [key for key in A2UI_MESSAGE_KEYS if key in message]
    if not keys:
        return f"missing message type; expected one of: {', '.join(A2UI_MESSAGE_KEYS)}"
    if len(keys) > 1:
        return f"multiple message types in one object: {', '.join(keys)}"
    key = keys[0]
    body = message[key]
    if not isinstance(body, dict):
        return f'"{key}" must be an object'
    problem = _string_problem(body, key, "surfaceId")
    if problem is not None:
        return problem
    if key == "beginRendering":
        return _string_problem(body, key, "root")
    if key == "surfaceUpdate":
        return _surface_update_problem(body)
    if key == "dataModelUpdate":
        return _data_model_problem(body)
    extra = sorted(set(body) - {"surfaceId"})
    if extra:
        return f'"deleteSurface" only accepts "surfaceId", got {", ".join(extra)}'
    return None


def semantic_errors(messages: list[Any]) -> list[str]:
    """``message[<i>]: <problem>`` for each failing message (at most one per message)."""
    problems = []
    for index, message in enumerate(messages):
        problem = _message_problem(message)
        if problem is not None:
            problems.append(f"message[{index}]: {problem}")
    return problems


def _schema_error(args: Any) -> str | None:
    error = jsonschema.exceptions.best_match(_VALIDATOR.iter_errors(args))
    if error is None:
        return None
    return (
        f"A2UI arguments do not match the render_a2ui schema at {error.json_path}: {error.message}"
    )


def validate_arguments(args: Any) -> list[Any]:
    """The messages of a ``render_a2ui`` call (normalised), or :class:`InvalidArguments`."""
    args = normalize(args)
    messages = extract_messages(args)
    if not messages:
        raise InvalidArguments(NO_MESSAGE_ERROR)
    problems = semantic_errors(messages)
    if problems:
        raise InvalidArguments("A2UI validation failed: " + "; ".join(problems))
    schema_problem = _schema_error(args)
    if schema_problem is not None:
        raise InvalidArguments(schema_problem)
    return messages
