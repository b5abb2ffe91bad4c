"""The pending work key: whether background work keeps the run open."""

from __future__ import annotations

import msgspec

from awaken_contract.state import KeyScope, MergeStrategy, StateKey


class PendingWorkState(msgspec.Struct, gc=False):
    """``{"has_pending": bool}`` — background work that keeps a run from ending naturally."""

    has_pending: bool = False


class PendingWorkKey(StateKey[PendingWorkState, bool]):
    """``__runtime.pending_work``; the update is the new flag."""

    KEY = "__runtime.pending_work"
    MERGE = MergeStrategy.EXCLUSIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: PendingWorkState, update: bool) -> PendingWorkState:
        return PendingWorkState(update)
