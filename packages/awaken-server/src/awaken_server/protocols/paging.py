"""Message-history paging shared by the protocol history routes (http-api §5)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from awaken_contract.contract.message import Message
from starlette.requests import Request

from awaken_server.errors import BadRequest
from awaken_server.wire import page_params, parse_offset

T = TypeVar("T")


def include_internal(request: Request) -> bool:
    """``?visibility=all`` (any case) shows internal messages; anything else hides them."""
    return request.query_params.get("visibility", "").lower() == "all"


def visible(messages: Sequence[Message], request: Request) -> list[Message]:
    """``messages`` filtered by the request's ``visibility`` parameter."""
    if include_internal(request):
        return list(messages)
    return [m for m in messages if not m.is_internal]


def page(items: Sequence[T], request: Request) -> dict[str, Any]:
    """``{"messages", "total", "has_more", "next_cursor"}`` for ``offset``/``cursor``/``limit``."""
    offset, limit = page_params(request)
    cursor = request.query_params.get("cursor")
    if cursor is not None and cursor.strip():
        parsed = parse_offset(cursor)
        if parsed is None:
            raise BadRequest("cursor must be an unsigned integer offset")
        offset = parsed
    total = len(items)
    start = min(offset, total)
    chunk = list(items[start : start + limit])
    has_more = start + len(chunk) < total
    return {
        "messages": chunk,
        "total": total,
        "has_more": has_more,
        "next_cursor": str(start + len(chunk)) if has_more else None,
    }
