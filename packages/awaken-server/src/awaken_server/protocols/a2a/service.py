"""Binding-neutral A2A operations: what ``SendMessage``, ``GetTask``, ``ListTasks`` … do.

Both bindings (HTTP+JSON in :mod:`.routes`, JSON-RPC in :mod:`.jsonrpc`) decode their
requests into the wire structs of :mod:`.wire`, call one :class:`A2aService` method and
encode its result or its :class:`~awaken_server.protocols.a2a.errors.A2aError` their own way.
Tasks are Awaken runs submitted through the mailbox in the background (they queue behind a
thread's active run).
"""

from __future__ import annotations

import asyncio
import hmac
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import msgspec
from awaken_contract.contract.identity import AdapterKind
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import RunRecord, RunRequestOrigin
from awaken_contract.ids import new_id

from awaken_server.errors import ApiError
from awaken_server.mailbox.submission import RunSubmission
from awaken_server.protocols.a2a.card import build_card
from awaken_server.protocols.a2a.convert import blocks_from_parts
from awaken_server.protocols.a2a.errors import A2aError
from awaken_server.protocols.a2a.push import PushConfigs, encode_frame, normalize_push_config
from awaken_server.protocols.a2a.requests import (
    clamp_page_size,
    decision_of,
    page_offset,
    parse_status,
    pending_targets,
    validate_send,
)
from awaken_server.protocols.a2a.tasks import TaskRef, TaskService
from awaken_server.protocols.a2a.watch import POLL_INTERVAL_SECS, task_changes
from awaken_server.protocols.a2a.wire import (
    A2aMessage,
    AgentCard,
    ListTaskPushNotificationConfigsResponse,
    ListTasksRequest,
    ListTasksResponse,
    PushNotificationConfig,
    SendMessageRequest,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from awaken_server.protocols.agent_directory import default_agent, is_runnable
from awaken_server.security.principal import body_user_id
from awaken_server.state import AppState

__all__ = ["A2aService", "Accepted", "decision_of", "parse_status"]

BLOCKING_TIMEOUT_SECS = 300.0
"""Longest a blocking send waits before answering with the current snapshot."""
CANCEL_WAIT_SECS = 5.0
"""How long a cancel waits for the run to reach ``canceled`` before answering."""
DECISION_PICKUP_SECS = 10.0
"""Longest a follow-up message waits for the interrupted run to take its answer up."""
_EXTRA_KEY = "a2a"


@dataclass(frozen=True, slots=True)
class Accepted:
    """A message the service took: the task it started or continued."""

    task_id: str
    thread_id: str
    tenant: str | None
    history_length: int | None
    return_immediately: bool


def _status_frame(task: Task) -> StreamResponse:
    return StreamResponse(
        status_update=TaskStatusUpdateEvent(
            task_id=task.id, context_id=task.context_id, status=task.status
        )
    )


def _submitted(task_id: str, thread_id: str, tenant: str | None) -> Task:
    return Task(
        id=task_id,
        context_id=thread_id,
        status=TaskStatus(state=TaskState.SUBMITTED),
        metadata={"tenant": tenant} if tenant else None,
    )


@dataclass(slots=True)
class A2aService:
    """Per-app A2A state (the task service and push configs) and the protocol operations."""

    state: AppState
    tasks: TaskService
    push: PushConfigs

    @classmethod
    def of(cls, state: AppState) -> A2aService:
        """The service of ``state`` (created on first use)."""
        service = state.extra.get(_EXTRA_KEY)
        if not isinstance(service, A2aService):
            tasks = TaskService(state)
            allowed = state.config.security.a2a_push_allowed_hosts
            service = cls(state, tasks, PushConfigs(tasks, allowed_hosts=allowed))
            state.extra[_EXTRA_KEY] = service
        return service

    # ------------------------------------------------------------------ agents
    def resolve_tenant(self, tenant: str) -> str:
        """``tenant`` when it is a runnable agent (404 otherwise)."""
        if not is_runnable(self.state.runtime, tenant):
            raise A2aError.not_found(f"agent not found: {tenant}")
        return tenant

    def public_agent(self) -> str:
        """The agent of the public card and of default routes."""
        agent = default_agent(self.state.runtime, self.state.config.default_agent_id)
        if agent is None:
            raise A2aError.not_found("no runnable local agents registered")
        return agent

    def _tenant(self, tenant: str | None) -> str | None:
        """The validated tenant of a request (``None``/blank: the default agent)."""
        value = (tenant or "").strip()
        return self.resolve_tenant(value) if value else None

    # ------------------------------------------------------------------ tasks
    async def task_ref(self, task_id: str, tenant: str | None) -> TaskRef:
        """The task, visible through the request's tenant (404 ``TASK_NOT_FOUND``)."""
        if not task_id.strip():
            raise A2aError.invalid_field("id", "task id is required")
        tenant = self._tenant(tenant)
        ref = await self.tasks.find(task_id)
        if ref is None or (tenant is not None and ref.agent_id != tenant):
            raise A2aError.task_not_found(task_id)
        return ref

    async def snapshot(self, task_id: str, **kwargs: Any) -> Task | None:
        """A fresh snapshot of ``task_id`` (None when it vanished)."""
        ref = await self.tasks.find(task_id)
        return None if ref is None else await self.tasks.snapshot(ref, **kwargs)

    async def updates(
        self, task: Task, *, history_length: int | None = None, first_as_task: bool = True
    ) -> AsyncIterator[StreamResponse]:
        """Frames for ``task`` from now until it is terminal or interrupted: the snapshot is
        re-read whenever the task's run journal commits (any instance; see :mod:`.watch`)."""
        if first_as_task:
            yield StreamResponse(task=task)
        else:
            yield _status_frame(task)
        last_status = msgspec.json.encode(task.status)
        last_artifacts = msgspec.json.encode(task.artifacts or [])
        current = task
        async with task_changes(self.state.store, task.id) as changed:
            while not current.status.state.ends_stream:
                await changed()
                fresh = await self.snapshot(task.id, history_length=history_length)
                if fresh is None:
                    return
                current = fresh
                status = msgspec.json.encode(current.status)
                if status != last_status:
                    last_status = status
                    yield _status_frame(current)
                artifacts = msgspec.json.encode(current.artifacts or [])
                if artifacts != last_artifacts:
                    last_artifacts = artifacts
                    items = current.artifacts or []
                    for index, artifact in enumerate(items):
                        yield StreamResponse(
                            artifact_update=TaskArtifactUpdateEvent(
                                task_id=current.id,
                                context_id=current.context_id,
                                artifact=artifact,
                                append=False,
                                last_chunk=index == len(items) - 1,
                            )
                        )

    async def start_push(self, ref: TaskRef) -> None:
        """Start a delivery driver for every stored config of the task."""
        task = await self.tasks.snapshot(ref)
        for config in await self.push.list(ref.thread_id, ref.task_id):
            frames = (encode_frame(f) async for f in self.updates(task, first_as_task=False))
            self.push.start_driver(ref.thread_id, config, frames)

    # ------------------------------------------------------------------ SendMessage
    async def send(self, body: SendMessageRequest, tenant: str | None = None) -> Accepted:
        """Start a task, or continue the interrupted task the message names.

        ``tenant`` is the binding's agent scope (the HTTP+JSON path segment); the body's
        ``tenant`` must agree with it.
        """
        config = body.configuration
        accepted = (config.accepted_output_modes if config else None) or []
        if accepted and not any(m.strip().lower() == "text/plain" for m in accepted):
            raise A2aError.content_type_not_supported(accepted)
        message = validate_send(body, tenant)
        scope = tenant or (body.tenant or body.agent_id or "").strip() or None
        agent_id = self._tenant(scope)

        tasks = self.tasks
        task_id = (message.task_id or "").strip() or None
        context_id = (message.context_id or "").strip() or None
        existing = await tasks.find(task_id) if task_id else None
        if existing is not None:
            if context_id and context_id != existing.thread_id:
                raise A2aError.invalid_field(
                    "message.contextId", "contextId does not match the task's context"
                )
            run = existing.run
            if run is None or existing.state() is TaskState.SUBMITTED:
                raise A2aError.invalid_field("message.taskId", "task is still in flight")
            if not run.is_resumable_waiting() or run.is_background_task_waiting():
                raise A2aError.invalid_field(
                    "message.taskId",
                    "taskId must reference an interrupted task; use contextId for a new task",
                )
        thread_id = existing.thread_id if existing is not None else (context_id or new_id())
        task_id = task_id or new_id()
        if agent_id is None and existing is None and not await tasks.thread_has_context(thread_id):
            agent_id = self.public_agent()

        push = None
        if config is not None:
            push = config.task_push_notification_config or config.push_notification_config
        if push is not None:
            normalized = normalize_push_config(push, task_id, tenant)
            await self.push.check_target(normalized)
            await self.push.upsert(thread_id, normalized)
        if existing is not None:
            assert existing.run is not None
            await self._continue(existing.run, message)
        else:
            await tasks.bind(thread_id, task_id, message.message_id)
            await self._submit(thread_id, message, agent_id, run_id_hint=task_id)
        ref = await tasks.find(task_id)
        if ref is not None:
            await self.start_push(ref)
        return Accepted(
            task_id=task_id,
            thread_id=thread_id,
            tenant=tenant,
            history_length=config.history_length if config else None,
            return_immediately=bool(config is not None and config.return_immediately),
        )

    async def _submit(
        self,
        thread_id: str,
        message: A2aMessage,
        agent_id: str | None,
        *,
        run_id_hint: str | None = None,
        continue_run_id: str | None = None,
    ) -> None:
        user = Message.user_with_content(blocks_from_parts(message.parts))
        user.id = message.message_id
        submission = RunSubmission(
            thread_id=thread_id,
            messages=[user],
            agent_id=agent_id,
            origin=RunRequestOrigin.A2A,
            adapter=AdapterKind.A2A,
            run_id_hint=run_id_hint,
            continue_run_id=continue_run_id,
        )
        try:
            submission.user_id = body_user_id(message.metadata)
            await self.state.mailbox.submit_background(submission)
        except ApiError as exc:
            status = "FAILED_PRECONDITION" if exc.status == 409 else "INVALID_ARGUMENT"
            raise A2aError(exc.status, status, exc.message) from None

    async def _continue(self, run: RunRecord, message: A2aMessage) -> None:
        """Continue the interrupted run: answer its pending tool calls with the message's
        decision (waiting, bounded, until the run took the answer up), or — when it waits for
        input without tool tickets — resume the same run with the message as new input."""
        targets = pending_targets(run)
        if not targets:
            await self._submit(run.thread_id, message, run.agent_id, continue_run_id=run.run_id)
            return
        resume = decision_of(message)
        delivered = False
        for target in sorted(targets):
            answered = await self.state.mailbox.decide(run.run_id, target, resume)
            delivered = answered is not None or delivered
        if not delivered:
            raise A2aError.invalid_field(
                "message.taskId", "the task has no pending input to answer"
            )
        deadline = time.monotonic() + DECISION_PICKUP_SECS
        while time.monotonic() < deadline:
            current = await self.state.store.load_run(run.run_id)
            if current is None or not (pending_targets(current) & targets):
                return
            await asyncio.sleep(POLL_INTERVAL_SECS)

    async def result(self, accepted: Accepted) -> Task:
        """The answer of a non-streaming send: the snapshot now (``returnImmediately``), else
        once the task is terminal or interrupted (bounded by ``BLOCKING_TIMEOUT_SECS``)."""
        task_id, history_length = accepted.task_id, accepted.history_length
        task = await self.snapshot(task_id, history_length=history_length)
        if not accepted.return_immediately:
            deadline = time.monotonic() + BLOCKING_TIMEOUT_SECS
            while (task is None or not task.status.state.ends_stream) and (
                time.monotonic() < deadline
            ):
                await asyncio.sleep(POLL_INTERVAL_SECS)
                task = await self.snapshot(task_id, history_length=history_length)
        return task or _submitted(task_id, accepted.thread_id, accepted.tenant)

    async def stream(
        self, accepted: Accepted, *, first: Task | None = None
    ) -> AsyncIterator[StreamResponse]:
        """The frames of a streaming send or a subscription: the task, then its updates."""
        task = first or await self.snapshot(
            accepted.task_id, history_length=accepted.history_length
        )
        task = task or _submitted(accepted.task_id, accepted.thread_id, accepted.tenant)
        async for frame in self.updates(task, history_length=accepted.history_length):
            yield frame

    # ------------------------------------------------------------------ tasks
    async def get_task(
        self, task_id: str, tenant: str | None, history_length: int | None = None
    ) -> Task:
        """``GetTask``."""
        if history_length is not None and history_length < 0:
            raise A2aError.invalid_field("historyLength", "historyLength must not be negative")
        ref = await self.task_ref(task_id, tenant)
        return await self.tasks.snapshot(ref, history_length=history_length)

    async def list_tasks(self, query: ListTasksRequest, tenant: str | None) -> ListTasksResponse:
        """``ListTasks``: newest first, offset page tokens."""
        tenant = self._tenant(tenant or query.tenant)
        context_id = (query.context_id or "").strip() or None
        status = parse_status(query.status) if query.status and query.status.strip() else None
        history_length = query.history_length or 0
        if history_length < 0:
            raise A2aError.invalid_field("historyLength", "historyLength must not be negative")
        page_size = clamp_page_size(query.page_size)
        offset = page_offset(query.page_token, "pageToken must be an offset from a previous page")
        rows: list[tuple[int, str, TaskRef]] = []
        for task_id in await self.tasks.all_task_ids():
            ref = await self.tasks.find(task_id)
            if ref is None:
                continue
            if tenant is not None and ref.agent_id != tenant:
                continue
            if context_id is not None and ref.thread_id != context_id:
                continue
            if status is not None and ref.state() is not status:
                continue
            rows.append((-ref.updated_ms(), task_id, ref))
        rows.sort(key=lambda r: (r[0], r[1]))
        chunk = rows[offset : offset + page_size]
        tasks = [
            await self.tasks.snapshot(
                ref,
                history_length=history_length,
                include_artifacts=bool(query.include_artifacts),
            )
            for _, _, ref in chunk
        ]
        next_offset = offset + len(chunk)
        response = ListTasksResponse(
            total_size=len(rows),
            page_size=page_size,
            next_page_token=str(next_offset) if next_offset < len(rows) else "",
        )
        if tasks:
            response.tasks = tasks
        return response

    async def cancel(self, task_id: str, tenant: str | None) -> Task:
        """``CancelTask``: cancel the queued job(s) or the running/parked run."""
        ref = await self.task_ref(task_id, tenant)
        state = ref.state()
        if state.is_terminal:
            raise A2aError.not_cancelable(task_id, state.value)
        mailbox = self.state.mailbox
        cancelled = False
        for job in await self.tasks.queued_jobs(ref.thread_id, task_id):
            cancelled = await mailbox.cancel(job.job_id) or cancelled
        if not cancelled:
            cancelled = await mailbox.cancel(task_id)
        if not cancelled:
            raise A2aError.not_cancelable(task_id, state.value)
        deadline = time.monotonic() + CANCEL_WAIT_SECS
        task = await self.snapshot(task_id)
        while (task is None or not task.status.state.is_terminal) and time.monotonic() < deadline:
            await asyncio.sleep(POLL_INTERVAL_SECS)
            task = await self.snapshot(task_id)
        if task is None:
            task = Task(
                id=task_id, context_id=ref.thread_id, status=TaskStatus(state=TaskState.CANCELED)
            )
        return task

    async def subscribe(self, task_id: str, tenant: str | None) -> AsyncIterator[StreamResponse]:
        """``SubscribeToTask``: checked now (unknown or terminal tasks raise before the first
        frame), then the task's frames."""
        ref = await self.task_ref(task_id, tenant)
        state = ref.state()
        if state.is_terminal:
            raise A2aError.unsupported(
                f"task {task_id} is in terminal state {state.value}",
                taskId=task_id,
                state=state.value,
            )
        first = await self.tasks.snapshot(ref)
        accepted = Accepted(task_id, ref.thread_id, tenant, None, False)
        return self.stream(accepted, first=first)

    # ------------------------------------------------------------------ push configs
    async def create_push(
        self, task_id: str, config: PushNotificationConfig, tenant: str | None
    ) -> PushNotificationConfig:
        """``CreateTaskPushNotificationConfig`` (starts delivery)."""
        ref = await self.task_ref(task_id, tenant)
        normalized = normalize_push_config(config, task_id, self._tenant(tenant))
        await self.push.check_target(normalized)
        await self.push.upsert(ref.thread_id, normalized)
        await self.start_push(ref)
        return normalized

    async def list_push(
        self, task_id: str, tenant: str | None, page_size: int | None, page_token: str | None
    ) -> ListTaskPushNotificationConfigsResponse:
        """``ListTaskPushNotificationConfigs``."""
        ref = await self.task_ref(task_id, tenant)
        configs = await self.push.list(ref.thread_id, task_id)
        offset = page_offset(page_token, "pageToken must be an offset")
        chunk = configs[offset : offset + clamp_page_size(page_size)]
        end = offset + len(chunk)
        listing = ListTaskPushNotificationConfigsResponse(
            next_page_token=str(end) if end < len(configs) else ""
        )
        if chunk:
            listing.configs = chunk
        return listing

    async def get_push(
        self, task_id: str, config_id: str, tenant: str | None
    ) -> PushNotificationConfig:
        """``GetTaskPushNotificationConfig``."""
        ref = await self.task_ref(task_id, tenant)
        return await self.push.get(ref.thread_id, task_id, config_id)

    async def delete_push(self, task_id: str, config_id: str, tenant: str | None) -> None:
        """``DeleteTaskPushNotificationConfig``."""
        ref = await self.task_ref(task_id, tenant)
        await self.push.delete(ref.thread_id, task_id, config_id)

    # ------------------------------------------------------------------ cards
    def extended_card(
        self, tenant: str | None, authorization: str | None, origin: str
    ) -> AgentCard:
        """``GetExtendedAgentCard``: the card behind the configured bearer token."""
        token = self.state.config.a2a_extended_card_bearer_token
        if not token:
            raise A2aError.extended_card_not_configured()
        scope = self._tenant(tenant)
        agent = scope or self.public_agent()
        if authorization is None:
            raise A2aError.unauthenticated("missing Authorization header for extendedAgentCard")
        scheme, _, credentials = authorization.strip().partition(" ")
        if scheme.lower() != "bearer":
            raise A2aError.unauthenticated("Authorization header must use Bearer authentication")
        if not hmac.compare_digest(credentials.strip().encode(), token.strip().encode()):
            raise A2aError.unauthenticated("invalid bearer token for extendedAgentCard")
        return build_card(agent, origin, tenant=scope is not None, extended_card=True)

    def public_card(self, origin: str) -> AgentCard:
        """The public card of the default agent."""
        extended = bool(self.state.config.a2a_extended_card_bearer_token)
        return build_card(self.public_agent(), origin, extended_card=extended)
