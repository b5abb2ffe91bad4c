"""RunPlan: which run an activation is — decided once, carried unchanged into the runtime.

The mailbox plans a run when it is submitted (agent, run id, whether it resumes the thread's
waiting run and on which decision targets) and hands the plan, with the job, to the runtime
through ``RunRequest.plan``; the runtime then runs exactly that plan instead of choosing the
agent and run id again. Direct callers of the runtime pass no plan and the runtime plans the
same way. :func:`find_waiting_run` is the one rule for "the thread's waiting run".
"""

from __future__ import annotations

import enum

import msgspec

from awaken_contract.contract.storage import RunRecord, ThreadRunStore
from awaken_contract.contract.thread import Thread

__all__ = ["RunPlan", "find_waiting_run"]


class _Unread(enum.Enum):
    UNREAD = "unread"


_UNREAD = _Unread.UNREAD  # the caller did not read the thread's latest run


class RunPlan(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The run an activation executes.

    ``resumes`` is true when the activation continues the existing run ``run_id`` (a waiting
    run, or a run an earlier attempt already started); ``decision_targets`` are the ids that
    run waited on when it was planned (empty for a new run). With ``record_read`` the planner
    read the run's record just before handing the plan over and ``record`` is what it found
    (``None``: no record yet); the runtime then does not read it again.

    ``new_thread`` and ``new_run`` are set only by a planner that minted the ids itself, so
    that nothing can be stored under them: ``new_thread`` — the thread id was minted for this
    run (no thread, no runs, no messages: the runtime reads none of them); ``new_run`` — the
    run id was minted for this run (no record, no journal: the runtime reads neither and
    journals from seq 1). A plan without them reads as usual.
    """

    agent_id: str
    run_id: str
    resumes: bool = False
    decision_targets: tuple[str, ...] = ()
    """(A tuple: a plan holds no container the garbage collector must track per run.)"""
    record: RunRecord | None = None
    record_read: bool = False
    new_thread: bool = False
    new_run: bool = False

    @classmethod
    def resume(cls, run: RunRecord, agent_id: str | None = None) -> RunPlan:
        """Continue ``run`` (with ``agent_id``, else the run's own agent)."""
        return cls(
            agent_id=agent_id or run.agent_id,
            run_id=run.run_id,
            resumes=True,
            decision_targets=tuple(sorted(run.decision_targets())),
        )


async def find_waiting_run(
    store: ThreadRunStore,
    thread_id: str,
    latest: RunRecord | _Unread | None = _UNREAD,
    *,
    thread: Thread | _Unread | None = _UNREAD,
) -> RunRecord | None:
    """The run of ``thread_id`` that waits to be resumed: its open run, else its latest run
    (``latest`` / ``thread``: the thread's latest run / record as the caller already read
    them)."""
    if isinstance(thread, _Unread):
        thread = await store.load_thread(thread_id)
    if thread is not None and thread.open_run_id:
        run = await store.load_run(thread.open_run_id)
        if run is not None and run.thread_id == thread_id and run.is_resumable_waiting():
            return run
    if isinstance(latest, _Unread):
        latest = await store.latest_run(thread_id)
    if latest is not None and latest.is_resumable_waiting():
        return latest
    return None
