"""A2A tasks over Awaken runs: a task is a run (task id = run id) on a thread (context id).

Snapshots derive the task state from the durable run record and the mailbox job that
activates it; the task's history is the thread's messages inside the task's *binding window*
(thread metadata ``a2a.taskBindings``: from the message that started the task up to the one
that started the next task on the same thread).
"""

from __future__ import annotations

from typing import Any

import msgspec
from awaken_contract.contract.lifecycle import RunStatus, TerminationKind
from awaken_contract.contract.mailbox import MailboxJob, MailboxJobStatus
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import RunQuery, RunRecord, Thread
from awaken_contract.contract.suspension import WaitingReason

from awaken_server.protocols.a2a.convert import ROLE_AGENT, to_a2a_message
from awaken_server.protocols.a2a.wire import (
    A2aMessage,
    Artifact,
    Part,
    Task,
    TaskState,
    TaskStatus,
)
from awaken_server.state import AppState

__all__ = [
    "BINDINGS_KEY",
    "TaskBinding",
    "TaskRef",
    "TaskService",
    "job_state",
    "run_state",
]

BINDINGS_KEY = "a2a.taskBindings"
_MESSAGE_STATES = frozenset(
    {
        TaskState.COMPLETED,
        TaskState.FAILED,
        TaskState.REJECTED,
        TaskState.INPUT_REQUIRED,
        TaskState.AUTH_REQUIRED,
        TaskState.CANCELED,
    }
)


class TaskBinding(msgspec.Struct, omit_defaults=True):
    """The slice of a thread's messages that belongs to one task."""

    thread_id: str
    start_message_id: str | None = None
    end_message_id: str | None = None


class _Bindings(msgspec.Struct):
    tasks: dict[str, TaskBinding] = msgspec.field(default_factory=dict)


def run_state(run: RunRecord) -> TaskState:
    """The task state of a run (spec table: waiting reasons, termination kinds)."""
    if run.status is RunStatus.CREATED:
        return TaskState.SUBMITTED
    if run.status is RunStatus.RUNNING:
        return TaskState.WORKING
    if run.status is RunStatus.WAITING:
        reason = run.waiting.reason if run.waiting is not None else None
        if reason is WaitingReason.TOOL_PERMISSION:
            return TaskState.AUTH_REQUIRED
        if reason is WaitingReason.BACKGROUND_TASKS:
            return TaskState.WORKING
        return TaskState.INPUT_REQUIRED
    kind = run.termination_reason.type if run.termination_reason is not None else None
    if kind is TerminationKind.CANCELLED:
        return TaskState.CANCELED
    if kind is TerminationKind.BLOCKED:
        return TaskState.REJECTED
    if kind is TerminationKind.ERROR:
        return TaskState.FAILED
    return TaskState.COMPLETED


def job_state(job: MailboxJob) -> TaskState:
    """The task state of a mailbox job."""
    status = job.status
    if status is MailboxJobStatus.QUEUED:
        return TaskState.SUBMITTED
    if status in (MailboxJobStatus.CLAIMED, MailboxJobStatus.ACCEPTED):
        return TaskState.WORKING
    if status is MailboxJobStatus.DEAD_LETTER:
        return TaskState.FAILED
    return TaskState.CANCELED


class TaskRef(msgspec.Struct):
    """What a task id points at: its run (if recorded), job (if any), thread and agent."""

    task_id: str
    thread_id: str
    agent_id: str
    run: RunRecord | None
    job: MailboxJob | None

    def state(self) -> TaskState:
        """The run's state, unless its latest job says more: a not-yet-started run (or a new
        activation of a parked run) is what its job is; a job cancelled before the run
        finished makes the task canceled. The job that is executing the run (the record's
        dispatch) never overrides the record."""
        run, job = self.run, self.job
        if run is None:
            assert job is not None
            return job_state(job)
        if job is None or run.status is RunStatus.DONE:
            return run_state(run)
        if run.status is RunStatus.CREATED:
            return job_state(job)
        if job.status in (MailboxJobStatus.QUEUED, MailboxJobStatus.CLAIMED):
            # The job that produced the run record's state is the record's dispatch.
            return run_state(run) if job.job_id == run.dispatch_id else job_state(job)
        if job.status is not MailboxJobStatus.ACCEPTED:
            return job_state(job)
        return run_state(run)

    def updated_ms(self) -> int:
        """Last update (unix ms) of the run or job."""
        times = [self.run.updated_at * 1000] if self.run is not None else []
        if self.job is not None:
            times.append(self.job.updated_at)
        return max(times, default=0)


class TaskService:
    """Task lookups, snapshots and binding bookkeeping for one server."""

    def __init__(self, state: AppState) -> None:
        self.state = state

    # ------------------------------------------------------------------ lookup
    async def _jobs_of(self, thread_id: str) -> list[MailboxJob]:
        return list(await self.state.mailbox.store.list(thread_id, None, 200, 0))

    async def job_for(self, thread_id: str, task_id: str) -> MailboxJob | None:
        """The latest-updated job of ``thread_id`` that activates run (or is job) ``task_id``."""
        jobs = [j for j in await self._jobs_of(thread_id) if task_id in (j.run_id, j.job_id)]
        return max(jobs, key=lambda j: (j.updated_at, j.created_at), default=None)

    async def queued_jobs(self, thread_id: str, task_id: str) -> list[MailboxJob]:
        """Queued jobs that would (re)activate the task's run."""
        return [
            j
            for j in await self._jobs_of(thread_id)
            if j.status is MailboxJobStatus.QUEUED and task_id in (j.run_id, j.job_id)
        ]

    async def find(self, task_id: str) -> TaskRef | None:
        """The task ``task_id`` (a run id, or a job id of a not-yet-recorded dispatch)."""
        store = self.state.store
        run = await store.load_run(task_id)
        if run is not None:
            job = await self.job_for(run.thread_id, task_id)
            return TaskRef(task_id, run.thread_id, run.agent_id, run, job)
        job = await self.state.mailbox.store.load(task_id)
        if job is None:
            return None
        return TaskRef(task_id, job.mailbox_id, job.agent_id, None, job)

    # ------------------------------------------------------------------ bindings
    async def _bindings(self, thread_id: str) -> tuple[Thread | None, _Bindings]:
        thread = await self.state.store.load_thread(thread_id)
        raw = thread.metadata.custom.get(BINDINGS_KEY) if thread is not None else None
        try:
            bindings = msgspec.convert(raw, _Bindings) if raw else _Bindings()
        except msgspec.ValidationError:
            bindings = _Bindings()
        return thread, bindings

    async def bind(self, thread_id: str, task_id: str, start_message_id: str) -> None:
        """Record a new task on ``thread_id``; open bindings end where it starts."""
        thread, bindings = await self._bindings(thread_id)
        for other_id, binding in bindings.tasks.items():
            if other_id != task_id and binding.end_message_id is None:
                binding.end_message_id = start_message_id
        bindings.tasks[task_id] = TaskBinding(thread_id, start_message_id)
        await self._write_custom(thread, thread_id, BINDINGS_KEY, msgspec.to_builtins(bindings))

    async def _write_custom(
        self, thread: Thread | None, thread_id: str, key: str, value: Any | None
    ) -> None:
        store = self.state.store
        if thread is None:
            thread = Thread.with_id(thread_id)
            await store.save_thread(thread)
        custom = dict(thread.metadata.custom)
        if value is None:
            custom.pop(key, None)
        else:
            custom[key] = value
        metadata = msgspec.structs.replace(thread.metadata, custom=custom)
        await store.update_thread_metadata(thread_id, metadata)

    async def read_custom(self, thread_id: str, key: str) -> Any | None:
        """A thread metadata ``custom`` entry."""
        thread = await self.state.store.load_thread(thread_id)
        return thread.metadata.custom.get(key) if thread is not None else None

    async def write_custom(self, thread_id: str, key: str, value: Any | None) -> None:
        """Set (or with ``None`` remove) a thread metadata ``custom`` entry."""
        thread = await self.state.store.load_thread(thread_id)
        await self._write_custom(thread, thread_id, key, value)

    async def thread_has_context(self, thread_id: str) -> bool:
        """True when the thread exists, has messages, a run or a job."""
        store = self.state.store
        if await store.load_thread(thread_id) is not None:
            return True
        if await store.load_messages(thread_id):
            return True
        if await store.latest_run(thread_id) is not None:
            return True
        return bool(await self._jobs_of(thread_id))

    # ------------------------------------------------------------------ snapshots
    async def history(self, ref: TaskRef) -> list[A2aMessage]:
        """The task's messages (binding window), as A2A messages."""
        messages: list[Message] = await self.state.store.load_messages(ref.thread_id) or []
        _, bindings = await self._bindings(ref.thread_id)
        binding = bindings.tasks.get(ref.task_id)
        if binding is not None:
            ids = [m.id for m in messages]
            start = ids.index(binding.start_message_id) if binding.start_message_id in ids else 0
            end = (
                ids.index(binding.end_message_id)
                if binding.end_message_id in ids
                else len(messages)
            )
            messages = messages[start:end]
        out: list[A2aMessage] = []
        for message in messages:
            converted = to_a2a_message(message, ref.task_id, ref.thread_id)
            if converted is not None:
                out.append(converted)
        return out

    async def snapshot(
        self,
        ref: TaskRef,
        *,
        history_length: int | None = None,
        include_artifacts: bool = True,
    ) -> Task:
        """The task as the client sees it now."""
        state = ref.state()
        history = await self.history(ref)
        status = TaskStatus(state=state)
        latest_agent = next((m for m in reversed(history) if m.role == ROLE_AGENT), None)
        if state in _MESSAGE_STATES:
            status.message = latest_agent or self._failure_message(ref, state)
        artifacts = None
        if include_artifacts and state is TaskState.COMPLETED and latest_agent is not None:
            artifacts = [
                Artifact(artifact_id="response", name="response", parts=list(latest_agent.parts))
            ]
        if history_length is not None:
            history = history[-history_length:] if history_length > 0 else []
        return Task(
            id=ref.task_id,
            context_id=ref.thread_id,
            status=status,
            artifacts=artifacts,
            history=history or None,
        )

    @staticmethod
    def _failure_message(ref: TaskRef, state: TaskState) -> A2aMessage | None:
        """An agent message carrying the error of a failed run without an agent reply."""
        run = ref.run
        if state is not TaskState.FAILED or run is None:
            return None
        reason = run.termination_reason
        detail = reason.value if reason is not None and isinstance(reason.value, str) else None
        text = detail
        if not text and ref.job is not None:
            text = ref.job.last_error or ref.job.run_error
        if not text:
            return None
        return A2aMessage(
            message_id=f"{ref.task_id}-error",
            role=ROLE_AGENT,
            parts=[Part(text=text)],
            task_id=ref.task_id,
            context_id=ref.thread_id,
        )

    async def all_task_ids(self) -> list[str]:
        """Every run id in the store plus every queued/claimed job without a run record."""
        ids: list[str] = []
        seen: set[str] = set()
        offset = 0
        while True:
            page = await self.state.store.list_runs(RunQuery(offset=offset, limit=200))
            for run in page.items:
                if run.run_id not in seen:
                    seen.add(run.run_id)
                    ids.append(run.run_id)
            offset += len(page.items)
            if not page.has_more or not page.items:
                break
        mailbox_store = self.state.mailbox.store
        for mailbox_id in await mailbox_store.queued_mailbox_ids():
            for job in await self._jobs_of(mailbox_id):
                task_id = job.run_id or job.job_id
                if job.status.is_terminal or task_id in seen:
                    continue
                seen.add(task_id)
                ids.append(task_id)
        return ids
