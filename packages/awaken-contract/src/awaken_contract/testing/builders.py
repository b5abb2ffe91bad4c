"""Small builders for conformance tests: runs, threads, jobs and deliberately bad values."""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.mailbox import MailboxJob
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import RunRecord, Thread, ThreadMetadata
from awaken_contract.state import PersistedState

__all__ = ["Unencodable", "make_job", "make_run", "make_thread", "poisoned_run"]


class Unencodable:
    """A value no store can serialize; used to make a checkpoint fail part-way."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Unencodable:
        raise TypeError("Unencodable cannot be copied")


def make_run(
    run_id: str,
    thread_id: str = "t-1",
    *,
    status: RunStatus = RunStatus.RUNNING,
    created_at: int = 100,
    updated_at: int | None = None,
    agent_id: str = "agent",
    **fields: Any,
) -> RunRecord:
    """A run record with sensible defaults (timestamps in seconds)."""
    return RunRecord(
        run_id=run_id,
        thread_id=thread_id,
        agent_id=agent_id,
        status=status,
        created_at=created_at,
        updated_at=created_at if updated_at is None else updated_at,
        **fields,
    )


def poisoned_run(run_id: str, thread_id: str = "t-1") -> RunRecord:
    """A run whose state cannot be serialized: checkpointing it must fail and change nothing."""
    return make_run(
        run_id,
        thread_id,
        status=RunStatus.DONE,
        termination_reason=TerminationReason.natural_end(),
        state=PersistedState(revision=1, extensions={"poison": Unencodable()}),
    )


def make_thread(
    thread_id: str, *, title: str | None = None, updated_at: int | None = None
) -> Thread:
    """A thread with optional title and updated_at (ms)."""
    return Thread(id=thread_id, metadata=ThreadMetadata(title=title, updated_at=updated_at))


def make_job(
    mailbox_id: str = "t-1",
    *,
    now: int = 1_000,
    priority: int = 128,
    max_attempts: int = 5,
    dedupe_key: str | None = None,
    text: str = "hello",
) -> MailboxJob:
    """A Queued job with ``created_at = updated_at = available_at = now``."""
    return MailboxJob.new(
        mailbox_id,
        messages=[Message.user(text)],
        agent_id="agent",
        priority=priority,
        max_attempts=max_attempts,
        dedupe_key=dedupe_key,
        now=now,
    )
