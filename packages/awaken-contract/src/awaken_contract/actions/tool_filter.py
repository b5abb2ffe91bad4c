"""The tool filter key: tools excluded from, or the allow-list of, the current step."""

from __future__ import annotations

import msgspec

from awaken_contract.state import KeyScope, MergeStrategy, StateKey


class ToolFilterState(msgspec.Struct):
    """``{"excluded": [id], "include_only": [[id]]}`` for the current step."""

    excluded: list[str] = msgspec.field(default_factory=list)
    include_only: list[list[str]] = msgspec.field(default_factory=list)

    def filter_ids(self, tool_ids: list[str]) -> list[str]:
        """Keep ids in the union of include-only lists (if any), then drop excluded ids."""
        ids = tool_ids
        if self.include_only:
            allowed = {t for group in self.include_only for t in group}
            ids = [t for t in ids if t in allowed]
        if self.excluded:
            excluded = set(self.excluded)
            ids = [t for t in ids if t not in excluded]
        return ids


class ExcludeToolUpdate(msgspec.Struct, frozen=True, gc=False):
    """Append an excluded id."""

    tool_id: str


class IncludeOnlyToolsUpdate(msgspec.Struct, frozen=True):
    """Append an include-only list."""

    tool_ids: list[str]


class ClearToolFilter(msgspec.Struct, frozen=True, gc=False):
    """Reset the filter (done after each inference request is built)."""


class ToolFilterKey(
    StateKey[ToolFilterState, ExcludeToolUpdate | IncludeOnlyToolsUpdate | ClearToolFilter]
):
    """``__runtime.tool_filter_state`` (commutative)."""

    KEY = "__runtime.tool_filter_state"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(
        cls,
        value: ToolFilterState,
        update: ExcludeToolUpdate | IncludeOnlyToolsUpdate | ClearToolFilter,
    ) -> ToolFilterState:
        if isinstance(update, ExcludeToolUpdate):
            return ToolFilterState([*value.excluded, update.tool_id], value.include_only)
        if isinstance(update, IncludeOnlyToolsUpdate):
            return ToolFilterState(value.excluded, [*value.include_only, list(update.tool_ids)])
        return ToolFilterState()
