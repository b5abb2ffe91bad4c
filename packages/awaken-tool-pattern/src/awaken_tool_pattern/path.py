"""Field paths inside tool-call arguments (``a.b[*].c``, ``items[0].name``, ``*.password``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class FieldSegment:
    """An object member by name."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class IndexSegment:
    """An array element by position."""

    index: int

    def __str__(self) -> str:
        return f"[{self.index}]"


@dataclass(frozen=True, slots=True)
class AnyIndexSegment:
    """Every element of an array (``[*]``)."""

    def __str__(self) -> str:
        return "[*]"


@dataclass(frozen=True, slots=True)
class WildcardSegment:
    """Every member value of an object (``*``)."""

    def __str__(self) -> str:
        return "*"


PathSegment = FieldSegment | IndexSegment | AnyIndexSegment | WildcardSegment


def render_path(path: Sequence[PathSegment]) -> str:
    """Pattern text of a path: names joined by ``.``, indexes appended (``a.b[*].c``)."""
    out = ""
    for segment in path:
        if isinstance(segment, FieldSegment | WildcardSegment):
            out += ("." if out else "") + str(segment)
        else:
            out += str(segment)
    return out


def resolve_path(value: Any, path: Sequence[PathSegment]) -> list[Any]:
    """Every JSON value ``path`` reaches inside ``value`` (``[*]`` and ``*`` fan out)."""
    current: list[Any] = [value]
    for segment in path:
        following: list[Any] = []
        for item in current:
            if isinstance(segment, FieldSegment):
                if isinstance(item, dict) and segment.name in item:
                    following.append(item[segment.name])
            elif isinstance(segment, IndexSegment):
                if isinstance(item, list) and segment.index < len(item):
                    following.append(item[segment.index])
            elif isinstance(segment, AnyIndexSegment):
                if isinstance(item, list):
                    following.extend(item)
            elif isinstance(item, dict):
                following.extend(item.values())
        current = following
        if not current:
            break
    return current
