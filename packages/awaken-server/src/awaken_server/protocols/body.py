"""Reading the common fields of a protocol request body (object, ``messages``, ids)."""

from __future__ import annotations

from typing import Any

from awaken_server.protocols.errors import ProtocolRequestError
from awaken_server.wire import edge_id


def body_messages(body: Any) -> tuple[dict[str, Any], list[Any]]:
    """The body as a JSON object and its ``messages`` array (absent or null → empty).

    Raises :class:`ProtocolRequestError` when the body is not an object or ``messages``
    is not an array.
    """
    if not isinstance(body, dict):
        raise ProtocolRequestError("request body must be a JSON object")
    raw_messages = body.get("messages")
    if raw_messages is None:
        raw_messages = []
    if not isinstance(raw_messages, list):
        raise ProtocolRequestError("messages must be an array")
    return body, raw_messages


def optional_id(body: dict[str, Any], *keys: str) -> str | None:
    """The first non-null of ``keys``, trimmed (blank → ``None``); 400 if it is not a string
    or breaks the shared id rule."""
    for key in keys:
        value = body.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise ProtocolRequestError(f"{keys[0]} must be a string")
        value = value.strip()
        if not value:
            return None
        return edge_id(value, keys[0])
    return None
