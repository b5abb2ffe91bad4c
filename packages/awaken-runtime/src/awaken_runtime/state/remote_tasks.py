"""``DelegateRemoteTasksKey``: which remote task each delegate of a parent run talks to.

A remote backend (A2A) reports the task it used as a :class:`RemoteTaskRef`; the delegation
tool stores it in the parent's thread state, which every checkpoint persists with the run
record. A parent resumed later — in a fresh runtime or another process sharing the store —
reads it back and continues the same remote task instead of starting a new one.
"""

from __future__ import annotations

import msgspec
from awaken_contract.state import KeyScope, MergeStrategy, StateKey

__all__ = ["DelegateRemoteTasksKey", "RemoteTaskRef", "RemoteTasks"]


class RemoteTaskRef(msgspec.Struct, frozen=True, omit_defaults=True):
    """The remote task a parent run last talked to: continued while it waits for input."""

    task_id: str
    context_id: str | None
    last_state: str
    parent_run_id: str | None = None
    """The parent run that used it (a later run of the thread starts a new conversation)."""


RemoteTasks = dict[str, RemoteTaskRef]
"""Delegate agent id → its remote task."""


class DelegateRemoteTasksKey(StateKey[RemoteTasks, tuple[str, RemoteTaskRef]]):
    """``__runtime.delegate_remote_tasks`` (Thread scope so resumed runs restore it;
    Commutative: parallel calls to different delegates each set their own entry)."""

    KEY = "__runtime.delegate_remote_tasks"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.THREAD

    @classmethod
    def apply(cls, value: RemoteTasks, update: tuple[str, RemoteTaskRef]) -> RemoteTasks:
        agent_id, ref = update
        return {**value, agent_id: ref}
