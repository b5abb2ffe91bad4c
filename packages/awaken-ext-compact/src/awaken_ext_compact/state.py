"""The thread's summary: its text and the last history message it covers."""

from __future__ import annotations

import msgspec
from awaken_contract.state import KeyScope, MergeStrategy, StateKey

__all__ = ["CompactSummary", "CompactSummaryKey"]


class CompactSummary(msgspec.Struct, frozen=True):
    """A cumulative summary of the thread up to message ``through_id`` (``covered`` messages)."""

    text: str
    through_id: str
    covered: int
    created_at_ms: int


class CompactSummaryKey(StateKey[CompactSummary | None, CompactSummary]):
    """``compact.summary``: the latest summary of the thread (Thread scope, persisted)."""

    KEY = "compact.summary"
    MERGE = MergeStrategy.EXCLUSIVE
    SCOPE = KeyScope.THREAD

    @classmethod
    def default(cls) -> CompactSummary | None:
        return None

    @classmethod
    def apply(cls, value: CompactSummary | None, update: CompactSummary) -> CompactSummary:
        if value is not None and value.covered >= update.covered:
            return value
        return update
