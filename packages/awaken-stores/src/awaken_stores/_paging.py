"""Offset/limit paging: of in-process results (memory and file backends) and SQL limits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

__all__ = ["page", "sql_limit"]

_MAX_SQL_LIMIT = 2**63 - 1

T = TypeVar("T")


def page(items: Sequence[T], offset: int, limit: int) -> list[T]:
    """``items[offset : offset + limit]`` with negative offsets and limits clamped to 0."""
    return list(items[max(offset, 0) :][: max(limit, 0)])


def sql_limit(limit: int) -> int:
    """``limit`` clamped to ``0..2**63-1`` (a BIGINT ``LIMIT``)."""
    return min(max(limit, 0), _MAX_SQL_LIMIT)
