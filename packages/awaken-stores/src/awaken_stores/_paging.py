"""Offset/limit paging of in-process results (memory and file backends)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

__all__ = ["page"]

T = TypeVar("T")


def page(items: Sequence[T], offset: int, limit: int) -> list[T]:
    """``items[offset : offset + limit]`` with negative offsets and limits clamped to 0."""
    return list(items[max(offset, 0) :][: max(limit, 0)])
