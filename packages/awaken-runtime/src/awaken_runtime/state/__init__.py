"""The run's state store (snapshots, commits, persistence) and the state model it commits."""

from awaken_contract.state import (
    KeyScope,
    MergeStrategy,
    MutationBatch,
    PersistedState,
    Snapshot,
    StateCommand,
    StateKey,
    StateKeyOptions,
    StateMap,
    UnknownKeyPolicy,
)

from awaken_runtime.state.store import CommitEvent, CommitHook, StateStore

__all__ = [
    "CommitEvent",
    "CommitHook",
    "KeyScope",
    "MergeStrategy",
    "MutationBatch",
    "PersistedState",
    "Snapshot",
    "StateCommand",
    "StateKey",
    "StateKeyOptions",
    "StateMap",
    "StateStore",
    "UnknownKeyPolicy",
]
