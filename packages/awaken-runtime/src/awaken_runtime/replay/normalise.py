"""The one place where replay decides which differences between two event streams do not count.

An :class:`EventNormaliser` turns each ``AgentEvent`` into plain JSON data and

* **drops** wall-clock values: the fields in :data:`VOLATILE_FIELDS` (timestamps, durations),
  at any depth (a ``state_snapshot``'s lifecycle ``updated_at``, say);
* **renames** fresh ids: the values of the fields in :data:`ID_FIELDS` (a ``step_start``'s
  ``message_id``, …) become ``id-1``, ``id-2`` … in order of first appearance, so one id used
  twice stays one id, and two streams that allocate ids in the same pattern compare equal.

Everything else — every event, every other field — must be equal. Use one normaliser per
stream (ids are numbered per stream).
"""

from __future__ import annotations

from typing import Any

import msgspec
from awaken_contract.contract.event import AgentEvent

__all__ = ["ID_FIELDS", "VOLATILE_FIELDS", "EventNormaliser", "field_diff"]

VOLATILE_FIELDS = frozenset(
    {"created_at", "updated_at", "started_at", "finished_at", "timestamp", "duration_ms"}
)
"""Fields whose value is a clock reading: removed before comparing."""

ID_FIELDS = frozenset({"message_id"})
"""Fields whose value is an id allocated fresh by every run: renamed by first appearance."""


class EventNormaliser:
    """Normalises the events of one stream (see the module docstring)."""

    __slots__ = ("_ids",)

    def __init__(self) -> None:
        self._ids: dict[str, str] = {}

    def normalise(self, event: AgentEvent) -> dict[str, Any]:
        """``event`` as comparable JSON data."""
        data = msgspec.to_builtins(event)
        assert isinstance(data, dict)
        cleaned = self._walk(data)
        assert isinstance(cleaned, dict)
        return cleaned

    def _walk(self, value: Any) -> Any:
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for key, item in value.items():
                if key in VOLATILE_FIELDS:
                    continue
                if key in ID_FIELDS and isinstance(item, str) and item:
                    out[key] = self._ids.setdefault(item, f"id-{len(self._ids) + 1}")
                else:
                    out[key] = self._walk(item)
            return out
        if isinstance(value, list):
            return [self._walk(item) for item in value]
        return value


def field_diff(expected: Any, actual: Any, path: str = "", limit: int = 5) -> list[str]:
    """Up to ``limit`` lines ``path: expected != actual`` where two JSON values differ."""
    lines: list[str] = []
    _diff(expected, actual, path, lines, limit)
    return lines


_MISSING = "<missing>"


def _diff(expected: Any, actual: Any, path: str, lines: list[str], limit: int) -> None:
    if len(lines) >= limit or expected == actual:
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in [*expected, *(k for k in actual if k not in expected)]:
            _diff(
                expected.get(key, _MISSING),
                actual.get(key, _MISSING),
                f"{path}.{key}" if path else str(key),
                lines,
                limit,
            )
        return
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            _diff(left, right, f"{path}[{index}]", lines, limit)
        return
    lines.append(f"{path or '<event>'}: {_short(expected)} != {_short(actual)}")


def _short(value: Any, width: int = 80) -> str:
    text = value if value is _MISSING else msgspec.json.encode(value).decode()
    return text if len(text) <= width else text[: width - 1] + "…"
