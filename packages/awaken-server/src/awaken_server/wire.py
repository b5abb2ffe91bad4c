"""Request decoding shared by the routes: JSON bodies, input messages, paging and decisions.

Status codes (spec http-api §1.2): no JSON content type → 415, unparseable JSON → 400, a missing
required field → 400, a field of the wrong type → 422. Responses are encoded with msgspec.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import msgspec
from awaken_contract.contract.content import AnyContentBlock, TextBlock
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.suspension import ResumeDecisionAction, ToolCallResume
from awaken_contract.errors import InvalidId
from awaken_contract.ids import check_id, new_id, now_ms
from starlette.requests import Request
from starlette.responses import Response

from awaken_server.errors import BadRequest, UnprocessableEntity, UnsupportedMediaType

__all__ = [
    "JsonResponse",
    "decode_json",
    "edge_id",
    "field",
    "header_safe",
    "is_json_media_type",
    "json_response",
    "optional_id",
    "optional_str",
    "page_params",
    "parse_decision",
    "parse_input_messages",
    "parse_offset",
    "read_json",
    "read_json_object",
]

MAX_JSON_DEPTH = 64
"""Deepest accepted nesting of a JSON request body."""
MAX_OFFSET = 2**31 - 1
"""Largest accepted paging offset."""
_KEPT_ROLES = {Role.USER.value, Role.ASSISTANT.value, Role.SYSTEM.value}
_encoder = msgspec.json.Encoder()


class JsonResponse(Response):
    """A JSON response encoded with msgspec (structs keep their wire shape)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return _encoder.encode(content)


def json_response(content: Any, status: int = 200) -> JsonResponse:
    """``content`` (builtins or msgspec structs) as JSON."""
    return JsonResponse(content, status_code=status)


def is_json_media_type(content_type: str | None) -> bool:
    """True for ``application/json`` and ``application/<x>+json`` (parameters allowed).

    ``text/plain;x=json`` — a CORS "simple request" a browser sends cross-origin without a
    preflight — is not JSON."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    kind, _, subtype = media.partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


def decode_json(body: bytes) -> Any:
    """Parse a JSON body; :class:`BadRequest` when malformed or nested deeper than
    ``MAX_JSON_DEPTH``."""
    try:
        data = msgspec.json.decode(body)
    except msgspec.DecodeError as exc:
        raise BadRequest(f"invalid JSON body: {exc}") from None
    except RecursionError:
        raise BadRequest(f"invalid JSON body: nested deeper than {MAX_JSON_DEPTH}") from None
    # (a body with fewer brackets than the limit cannot nest deeper: no walk needed)
    shallow = body.count(b"{") + body.count(b"[") <= MAX_JSON_DEPTH
    if not shallow and json_depth(data) > MAX_JSON_DEPTH:
        raise BadRequest(f"invalid JSON body: nested deeper than {MAX_JSON_DEPTH}")
    return data


def json_depth(value: Any) -> int:
    """The nesting depth of decoded JSON (iterative: never recurses)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if depth > MAX_JSON_DEPTH:
            return depth
        stack.extend((child, depth + 1) for child in children)
    return deepest


async def read_json(request: Request) -> Any:
    """The parsed JSON body (415 without a JSON content type, 400 when malformed)."""
    if not is_json_media_type(request.headers.get("content-type")):
        raise UnsupportedMediaType("expected Content-Type: application/json")
    return decode_json(await request.body())


async def read_json_object(request: Request) -> dict[str, Any]:
    """The JSON body, which must be an object (422 otherwise)."""
    data = await read_json(request)
    if not isinstance(data, dict):
        raise UnprocessableEntity("expected a JSON object body")
    return data


def field(data: dict[str, Any], *names: str) -> Any:
    """The first present key of ``names`` (camelCase and snake_case aliases)."""
    for name in names:
        if name in data:
            return data[name]
    return None


def optional_str(data: dict[str, Any], *names: str) -> str | None:
    """A string field (422 when present with another type); blank → ``None``."""
    value = field(data, *names)
    if value is None:
        return None
    if not isinstance(value, str):
        raise UnprocessableEntity(f"field '{names[0]}' must be a string")
    return value.strip() or None


def header_safe(value: str) -> str:
    """``value`` for a response header: as is when ASCII, else percent-encoded UTF-8 (ids may be
    any Unicode, headers only Latin-1)."""
    return value if value.isascii() else quote(value, safe="")


def optional_id(data: dict[str, Any], *names: str) -> str | None:
    """An id field (:func:`optional_str`) that must follow the shared id rule (400)."""
    value = optional_str(data, *names)
    return None if value is None else edge_id(value, names[0])


def edge_id(value: str, what: str) -> str:
    """``value`` when it follows the shared id rule (``awaken_contract.ids``), else 400."""
    try:
        return check_id(value, what)
    except InvalidId as exc:
        raise BadRequest(f"invalid {exc}") from None


def parse_input_messages(raw: Any, *, required: bool = True) -> list[Message]:
    """``[{role, content}]`` → Messages. ``content`` is a string or a list of content blocks;
    roles other than user/assistant/system are dropped; none left → 400."""
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise UnprocessableEntity("field 'messages' must be an array")
    messages: list[Message] = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise UnprocessableEntity(f"messages[{index}] must be an object")
        role = item.get("role")
        content = item.get("content")
        if role is None or content is None:
            missing = "role" if role is None else "content"
            raise BadRequest(f"messages[{index}]: missing field '{missing}'")
        if not isinstance(role, str):
            raise UnprocessableEntity(f"messages[{index}].role must be a string")
        if role not in _KEPT_ROLES:
            continue
        blocks: list[AnyContentBlock]
        if isinstance(content, str):
            blocks = [TextBlock(text=content)]
        elif isinstance(content, list):
            try:
                blocks = msgspec.convert(content, list[AnyContentBlock])
            except msgspec.ValidationError as exc:
                raise UnprocessableEntity(f"messages[{index}].content: {exc}") from None
        else:
            raise UnprocessableEntity(f"messages[{index}].content must be a string or an array")
        message_id = item.get("id")
        messages.append(
            Message(
                role=Role(role),
                content=blocks,
                id=message_id if isinstance(message_id, str) and message_id else new_id(),
            )
        )
    if required and not messages:
        raise BadRequest("at least one message is required")
    return messages


def page_params(
    request: Request, *, default_limit: int = 50, clamp: bool = True
) -> tuple[int, int]:
    """``offset`` (default 0) and ``limit`` (default 50, clamped to 1..=200) from the query."""
    offset = _int_param(request, "offset", 0)
    limit = _int_param(request, "limit", default_limit)
    if clamp:
        limit = min(max(limit, 1), 200)
    return max(offset, 0), max(limit, 0)


def _int_param(request: Request, name: str, default: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    text = raw.strip()
    negative = text.startswith("-")
    value = parse_offset(text[1:] if negative else text)
    if value is None:
        raise BadRequest(f"query parameter '{name}' must be an integer (0..{MAX_OFFSET})")
    return -value if negative else value


def parse_offset(raw: str | None) -> int | None:
    """An unsigned ASCII decimal ``0..=MAX_OFFSET`` (``Last-Event-ID``, cursors, offsets);
    anything else (``²``, ``1e9``, 5000 digits) → ``None``."""
    if raw is None:
        return None
    text = raw.strip()
    if not text or len(text) > 10 or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= MAX_OFFSET else None


def parse_decision(data: dict[str, Any]) -> tuple[str, ToolCallResume]:
    """``{"toolCallId", "action": "resume"|"cancel", "payload"}`` → (call id, decision)."""
    call_id = field(data, "toolCallId", "tool_call_id")
    if call_id is None:
        raise BadRequest("missing field 'toolCallId'")
    if not isinstance(call_id, str):
        raise UnprocessableEntity("field 'toolCallId' must be a string")
    if not call_id.strip():
        raise BadRequest("toolCallId cannot be empty")
    edge_id(call_id.strip(), "toolCallId")
    action = data.get("action", "resume")
    if action not in ("resume", "cancel"):
        raise BadRequest(f"invalid action: {action}, expected 'resume' or 'cancel'")
    reason = data.get("reason")
    resume = ToolCallResume(
        action=ResumeDecisionAction(action),
        decision_id=new_id(),
        result=data.get("payload"),
        reason=reason if isinstance(reason, str) else None,
        updated_at=now_ms(),
    )
    return call_id.strip(), resume
