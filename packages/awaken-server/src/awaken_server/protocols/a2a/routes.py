"""A2A v1.0 HTTP+JSON routes: agent cards, ``message:send``/``message:stream``, tasks.

Mount with ``create_app(state, extra_routes=a2a_routes())``. Everything under ``/v1/a2a/`` is
one catch-all: the tail is matched against the default-agent shapes first, then the tenant
(``/v1/a2a/<agent_id>/...``) shapes. Tasks are Awaken runs submitted through the mailbox in
the background (they queue behind a thread's active run).
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
from awaken_contract.contract.suspension import ResumeDecisionAction, ToolCallResume
from awaken_contract.ids import id_problem, new_id, now_ms
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import Scope

from awaken_server.app import AppState, state_of
from awaken_server.errors import ApiError
from awaken_server.mailbox.submission import RunSubmission
from awaken_server.protocols.a2a.card import build_card, request_origin
from awaken_server.protocols.a2a.convert import ROLE_USER, blocks_from_parts
from awaken_server.protocols.a2a.errors import A2aError, FieldViolation
from awaken_server.protocols.a2a.push import PushConfigs, encode_frame, normalize_push_config
from awaken_server.protocols.a2a.tasks import TaskRef, TaskService
from awaken_server.protocols.a2a.wire import (
    A2A_PROTOCOL_VERSION,
    A2aMessage,
    ListTaskPushNotificationConfigsResponse,
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
from awaken_server.security.streams import StreamRoute
from awaken_server.sse import format_sse_data, sse_response
from awaken_server.wire import decode_json, parse_offset

__all__ = ["A2aService", "a2a_routes"]

POLL_INTERVAL_SECS = 0.1
"""How often blocking sends, streams and push drivers re-read the task."""
BLOCKING_TIMEOUT_SECS = 300.0
"""Longest a blocking ``message:send`` waits before answering with the current snapshot."""
CANCEL_WAIT_SECS = 5.0
"""How long ``:cancel`` waits for the run to reach ``canceled`` before answering."""
DECISION_PICKUP_SECS = 10.0
"""Longest a follow-up message waits for the interrupted run to take its answer up."""
_JSON_TYPES = ("application/json", "application/a2a+json")
_EXTRA_KEY = "a2a"


@dataclass(slots=True)
class A2aService:
    """Per-app A2A state: the task service and push configs."""

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

    # ------------------------------------------------------------------ tasks
    async def task_ref(self, task_id: str, tenant: str | None) -> TaskRef:
        """The task, visible through the route's tenant (404 ``TASK_NOT_FOUND``)."""
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
        """Frames for ``task`` from now until it is terminal or interrupted (polling)."""
        if first_as_task:
            yield StreamResponse(task=task)
        else:
            yield _status_frame(task)
        last_status = msgspec.json.encode(task.status)
        last_artifacts = msgspec.json.encode(task.artifacts or [])
        current = task
        while not current.status.state.ends_stream:
            await asyncio.sleep(POLL_INTERVAL_SECS)
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


def _status_frame(task: Task) -> StreamResponse:
    return StreamResponse(
        status_update=TaskStatusUpdateEvent(
            task_id=task.id, context_id=task.context_id, status=task.status
        )
    )


def _json(value: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(value), status_code=status, media_type="application/json")


# ---------------------------------------------------------------------- request checks
def _check_version(request: Request) -> None:
    requested = request.headers.get("a2a-version", "").strip()
    if not requested:
        for key, value in request.query_params.multi_items():
            if key.lower() == "a2a-version" and value.strip():
                requested = value.strip()
                break
    if requested and requested != A2A_PROTOCOL_VERSION:
        raise A2aError.version_not_supported(requested)


def _check_content_type(request: Request) -> None:
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media not in _JSON_TYPES:
        raise A2aError.invalid_field(
            "contentType", "Content-Type must be application/json or application/a2a+json"
        )


async def _body(request: Request, type_: type[Any]) -> Any:
    _check_content_type(request)
    try:
        data = decode_json(await request.body() or b"null")
    except ApiError as exc:
        raise A2aError.invalid_field("body", exc.message) from None
    if not isinstance(data, dict):
        raise A2aError.invalid_field("body", "invalid JSON body: expected an object")
    try:
        return msgspec.convert(data, type_)
    except msgspec.ValidationError as exc:
        raise A2aError.invalid_field("body", f"invalid request: {exc}") from None


def _int_query(request: Request, name: str, default: int | None) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or not raw.strip():
        return default
    text = raw.strip()
    if text.startswith("-") and parse_offset(text[1:]) is not None:
        raise A2aError.invalid_field(name, f"{name} must not be negative")
    value = parse_offset(text)
    if value is None:
        raise A2aError.invalid_field(name, f"{name} must be an integer")
    return value


def _page_token(request: Request, message: str) -> int:
    """The ``pageToken`` query parameter (an offset; absent → 0)."""
    token = (request.query_params.get("pageToken") or "").strip()
    offset = parse_offset(token) if token else 0
    if offset is None:
        raise A2aError.invalid_field("pageToken", message)
    return offset


_STATUS_ALIASES = {
    "submitted": TaskState.SUBMITTED,
    "working": TaskState.WORKING,
    "input_required": TaskState.INPUT_REQUIRED,
    "input-required": TaskState.INPUT_REQUIRED,
    "auth_required": TaskState.AUTH_REQUIRED,
    "auth-required": TaskState.AUTH_REQUIRED,
    "completed": TaskState.COMPLETED,
    "failed": TaskState.FAILED,
    "canceled": TaskState.CANCELED,
    "cancelled": TaskState.CANCELED,
    "rejected": TaskState.REJECTED,
}


def _parse_status(raw: str) -> TaskState:
    value = raw.strip()
    for state in TaskState:
        if value.upper() == state.value:
            return state
    alias = _STATUS_ALIASES.get(value.lower())
    if alias is None:
        raise A2aError.invalid_field("status", f"unknown task state: {raw}")
    return alias


# ---------------------------------------------------------------------- handlers
async def _send(
    service: A2aService, request: Request, tenant: str | None, *, stream: bool
) -> Response:
    body: SendMessageRequest = await _body(request, SendMessageRequest)
    config = body.configuration
    accepted = (config.accepted_output_modes if config else None) or []
    if accepted and not any(m.strip().lower() == "text/plain" for m in accepted):
        raise A2aError.content_type_not_supported(accepted)
    violations: list[FieldViolation] = []
    body_tenant = (body.tenant or body.agent_id or "").strip()
    if tenant and body_tenant and tenant != body_tenant:
        violations.append(("tenant", "tenant in the body does not match the route"))
    message = body.message
    if message is None:
        violations.append(("message", "message is required"))
    else:
        if message.role != ROLE_USER:
            violations.append(("message.role", "role must be ROLE_USER"))
        if not message.message_id.strip():
            violations.append(("message.messageId", "messageId is required"))
        for name, value in (
            ("message.messageId", message.message_id),
            ("message.taskId", message.task_id),
            ("message.contextId", message.context_id),
        ):
            problem = id_problem(value.strip()) if value and value.strip() else None
            if problem is not None:
                violations.append((name, f"{name.split('.')[-1]} {problem}"))
        if not message.parts:
            violations.append(("message.parts", "at least one part is required"))
        for index, part in enumerate(message.parts):
            if part.payload_count() != 1:
                violations.append(
                    (f"message.parts[{index}]", "a part needs exactly one of text, raw, url, data")
                )
    if violations:
        raise A2aError.invalid(violations)
    assert message is not None
    agent_id = service.resolve_tenant(tenant or body_tenant) if (tenant or body_tenant) else None

    tasks = service.tasks
    task_id = (message.task_id or "").strip() or None
    context_id = (message.context_id or "").strip() or None
    existing = await tasks.find(task_id) if task_id else None
    continue_run = False
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
        continue_run = True
    thread_id = existing.thread_id if existing is not None else (context_id or new_id())
    task_id = task_id or new_id()
    if agent_id is None and not continue_run and not await tasks.thread_has_context(thread_id):
        agent_id = service.public_agent()

    push = None
    if config is not None:
        push = config.task_push_notification_config or config.push_notification_config
    if push is not None:
        normalized = normalize_push_config(push, task_id, tenant)
        await service.push.check_target(normalized)
        await service.push.upsert(thread_id, normalized)
    if continue_run:
        assert existing is not None and existing.run is not None
        await _continue(service, existing.run, message)
    else:
        user = Message.user_with_content(blocks_from_parts(message.parts))
        user.id = message.message_id
        submission = RunSubmission(
            thread_id=thread_id,
            messages=[user],
            agent_id=agent_id,
            origin=RunRequestOrigin.A2A,
            adapter=AdapterKind.A2A,
            run_id_hint=task_id,
        )
        await tasks.bind(thread_id, task_id, message.message_id)
        try:
            await service.state.mailbox.submit_background(submission)
        except ApiError as exc:
            status = "FAILED_PRECONDITION" if exc.status == 409 else "INVALID_ARGUMENT"
            raise A2aError(exc.status, status, exc.message) from None
    ref = await tasks.find(task_id)
    if ref is not None:
        await service.start_push(ref)
    history_length = config.history_length if config else None

    if stream:
        return _stream(service, task_id, thread_id, tenant, history_length)
    if config is not None and config.return_immediately:
        task = await service.snapshot(task_id, history_length=history_length)
        return _json({"task": task or _submitted(task_id, thread_id, tenant)})
    deadline = time.monotonic() + BLOCKING_TIMEOUT_SECS
    task = await service.snapshot(task_id, history_length=history_length)
    while (task is None or not task.status.state.ends_stream) and time.monotonic() < deadline:
        await asyncio.sleep(POLL_INTERVAL_SECS)
        task = await service.snapshot(task_id, history_length=history_length)
    return _json({"task": task or _submitted(task_id, thread_id, tenant)})


def decision_of(message: A2aMessage) -> ToolCallResume:
    """The decision an interrupted task's follow-up message carries.

    A ``data`` part holding an object is the decision result (``{"approved": false}`` or
    ``{"action": "cancel"}`` reject); otherwise the message text approves and is the result.
    """
    data = next((p.data for p in message.parts if isinstance(p.data, dict)), None)
    if data is not None:
        if data.get("approved") is False or data.get("action") == "cancel":
            reason = data.get("reason") if isinstance(data.get("reason"), str) else None
            return ToolCallResume(
                action=ResumeDecisionAction.CANCEL, result=data, reason=reason, updated_at=now_ms()
            )
        return ToolCallResume.resume(data)
    text = "\n".join(p.text for p in message.parts if p.text is not None)
    return ToolCallResume.resume(text)


def _pending_targets(run: RunRecord | None) -> set[str]:
    if run is None or run.waiting is None:
        return set()
    targets = {t.tool_call_id or t.ticket_id for t in run.waiting.tickets}
    return targets or set(run.waiting.ticket_ids)


async def _continue(service: A2aService, run: RunRecord, message: A2aMessage) -> None:
    """Answer every pending call of the interrupted run with the message's decision, then
    wait (bounded) until the run took the answer up."""
    resume = decision_of(message)
    targets = _pending_targets(run)
    delivered = False
    for target in sorted(targets):
        answered = await service.state.mailbox.decide(run.run_id, target, resume)
        delivered = answered is not None or delivered
    if not delivered:
        raise A2aError.invalid_field("message.taskId", "the task has no pending input to answer")
    deadline = time.monotonic() + DECISION_PICKUP_SECS
    while time.monotonic() < deadline:
        current = await service.state.store.load_run(run.run_id)
        if current is None or not (_pending_targets(current) & targets):
            return
        await asyncio.sleep(POLL_INTERVAL_SECS)


def _submitted(task_id: str, thread_id: str, tenant: str | None) -> Task:
    return Task(
        id=task_id,
        context_id=thread_id,
        status=TaskStatus(state=TaskState.SUBMITTED),
        metadata={"tenant": tenant} if tenant else None,
    )


def _stream(
    service: A2aService,
    task_id: str,
    thread_id: str,
    tenant: str | None,
    history_length: int | None,
    *,
    first: Task | None = None,
) -> Response:
    async def frames() -> AsyncIterator[bytes]:
        task = first or await service.snapshot(task_id, history_length=history_length)
        task = task or _submitted(task_id, thread_id, tenant)
        async for frame in service.updates(task, history_length=history_length):
            yield format_sse_data(msgspec.json.encode(frame))

    return sse_response(frames(), heartbeat_interval=service.state.config.heartbeat_interval_secs)


async def _get_task(
    service: A2aService, request: Request, task_id: str, tenant: str | None
) -> Response:
    ref = await service.task_ref(task_id, tenant)
    history_length = _int_query(request, "historyLength", None)
    return _json(await service.tasks.snapshot(ref, history_length=history_length))


async def _list_tasks(service: A2aService, request: Request, tenant: str | None) -> Response:
    context_id = (request.query_params.get("contextId") or "").strip() or None
    raw_status = request.query_params.get("status")
    status = _parse_status(raw_status) if raw_status and raw_status.strip() else None
    history_length = _int_query(request, "historyLength", 0)
    page_size = min(max(_int_query(request, "pageSize", 50) or 1, 1), 100)
    offset = _page_token(request, "pageToken must be an offset from a previous page")
    include_artifacts = request.query_params.get("includeArtifacts", "").lower() == "true"
    rows: list[tuple[int, str, TaskRef]] = []
    for task_id in await service.tasks.all_task_ids():
        ref = await service.tasks.find(task_id)
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
        await service.tasks.snapshot(
            ref, history_length=history_length, include_artifacts=include_artifacts
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
    return _json(response)


async def _cancel(service: A2aService, task_id: str, tenant: str | None) -> Response:
    ref = await service.task_ref(task_id, tenant)
    state = ref.state()
    if state.is_terminal:
        raise A2aError.not_cancelable(task_id, state.value)
    mailbox = service.state.mailbox
    cancelled = False
    for job in await service.tasks.queued_jobs(ref.thread_id, task_id):
        cancelled = await mailbox.cancel(job.job_id) or cancelled
    if not cancelled:
        cancelled = await mailbox.cancel(task_id)
    if not cancelled:
        raise A2aError.not_cancelable(task_id, state.value)
    deadline = time.monotonic() + CANCEL_WAIT_SECS
    task = await service.snapshot(task_id)
    while (task is None or not task.status.state.is_terminal) and time.monotonic() < deadline:
        await asyncio.sleep(POLL_INTERVAL_SECS)
        task = await service.snapshot(task_id)
    if task is None:
        task = Task(
            id=task_id, context_id=ref.thread_id, status=TaskStatus(state=TaskState.CANCELED)
        )
    return _json(task)


async def _subscribe(service: A2aService, task_id: str, tenant: str | None) -> Response:
    ref = await service.task_ref(task_id, tenant)
    state = ref.state()
    if state.is_terminal:
        raise A2aError.unsupported(
            f"task {task_id} is in terminal state {state.value}", taskId=task_id, state=state.value
        )
    first = await service.tasks.snapshot(ref)
    return _stream(service, task_id, ref.thread_id, tenant, None, first=first)


async def _push_route(
    service: A2aService,
    request: Request,
    task_id: str,
    config_id: str | None,
    tenant: str | None,
) -> Response:
    ref = await service.task_ref(task_id, tenant)
    push = service.push
    method = request.method
    if config_id is None and method == "POST":
        body: PushNotificationConfig = await _body(request, PushNotificationConfig)
        config = normalize_push_config(body, task_id, tenant)
        await push.check_target(config)
        await push.upsert(ref.thread_id, config)
        await service.start_push(ref)
        return _json(config)
    if config_id is None and method == "GET":
        configs = await push.list(ref.thread_id, task_id)
        page_size = min(max(_int_query(request, "pageSize", 50) or 1, 1), 100)
        offset = _page_token(request, "pageToken must be an offset")
        chunk = configs[offset : offset + page_size]
        end = offset + len(chunk)
        listing = ListTaskPushNotificationConfigsResponse(
            next_page_token=str(end) if end < len(configs) else ""
        )
        if chunk:
            listing.configs = chunk
        return _json(listing)
    if config_id is not None and method == "GET":
        return _json(await push.get(ref.thread_id, task_id, config_id))
    if config_id is not None and method == "DELETE":
        await push.delete(ref.thread_id, task_id, config_id)
        return Response(status_code=204)
    raise A2aError.not_found(f"unsupported A2A path: {request.url.path}")


async def _extended_card(service: A2aService, request: Request, tenant: str | None) -> Response:
    token = service.state.config.a2a_extended_card_bearer_token
    if not token:
        raise A2aError.extended_card_not_configured()
    agent = service.resolve_tenant(tenant) if tenant else service.public_agent()
    header = request.headers.get("authorization")
    if header is None:
        raise A2aError.unauthenticated("missing Authorization header for extendedAgentCard")
    scheme, _, credentials = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        raise A2aError.unauthenticated("Authorization header must use Bearer authentication")
    if not hmac.compare_digest(credentials.strip().encode(), token.strip().encode()):
        raise A2aError.unauthenticated("invalid bearer token for extendedAgentCard")
    card = build_card(agent, request_origin(request), tenant=tenant is not None, extended_card=True)
    return _json(card)


# ---------------------------------------------------------------------- routing
async def _dispatch(
    service: A2aService, request: Request, segments: list[str], tenant: str | None
) -> Response | None:
    """Handle a default-agent shape (``tenant`` None) or the tail of a tenant route."""
    method = request.method
    if tenant is not None:
        service.resolve_tenant(tenant)
    n = len(segments)
    head = segments[0] if segments else ""
    if n == 1 and method == "POST" and head in ("message:send", "message:stream"):
        return await _send(service, request, tenant, stream=head == "message:stream")
    if n == 1 and method == "GET" and head == "extendedAgentCard":
        return await _extended_card(service, request, tenant)
    if n == 1 and method == "GET" and head == "tasks":
        return await _list_tasks(service, request, tenant)
    if n == 2 and head == "tasks":
        segment = segments[1]
        if method == "GET":
            return await _get_task(service, request, segment, tenant)
        if method == "POST":
            task_id, sep, action = segment.rpartition(":")
            if not sep or action not in ("cancel", "subscribe"):
                raise A2aError.not_found(f"unsupported A2A task action path: {segment}")
            if not task_id.strip():
                raise A2aError.invalid_field("taskId", "task id is required")
            if action == "cancel":
                return await _cancel(service, task_id, tenant)
            return await _subscribe(service, task_id, tenant)
    if 3 <= n <= 4 and head == "tasks" and segments[2] == "pushNotificationConfigs":
        if method == "POST" and n == 3:
            _check_content_type(request)
        return await _push_route(
            service, request, segments[1], segments[3] if n == 4 else None, tenant
        )
    return None


def _is_default_shape(segments: list[str]) -> bool:
    n = len(segments)
    head = segments[0] if segments else ""
    if n == 1:
        return head in ("message:send", "message:stream", "extendedAgentCard", "tasks")
    if head != "tasks":
        return False
    return n == 2 or (3 <= n <= 4 and segments[2] == "pushNotificationConfigs")


async def a2a_endpoint(request: Request) -> Response:
    """``/v1/a2a/...`` catch-all."""
    service = A2aService.of(state_of(request))
    tail = request.path_params.get("tail", "")
    segments = [s for s in tail.split("/") if s]
    try:
        _check_version(request)
        response: Response | None = None
        if _is_default_shape(segments):
            response = await _dispatch(service, request, segments, None)
        elif len(segments) >= 2 and _is_default_shape(segments[1:]):
            response = await _dispatch(service, request, segments[1:], segments[0])
        if response is None:
            raise A2aError.not_found(f"unsupported A2A path: /v1/a2a/{tail}")
        return response
    except A2aError as exc:
        return exc.response()


async def public_card(request: Request) -> Response:
    """``GET /.well-known/agent-card.json``: the public card of the default agent."""
    state = state_of(request)
    service = A2aService.of(state)
    try:
        _check_version(request)
        agent = service.public_agent()
    except A2aError as exc:
        return exc.response()
    extended = bool(state.config.a2a_extended_card_bearer_token)
    card = build_card(agent, request_origin(request), extended_card=extended)
    return JSONResponse(msgspec.to_builtins(card))


def _opens_stream(scope: Scope) -> bool:
    path = str(scope.get("path", ""))
    return scope.get("method") == "POST" and path.endswith((":stream", ":subscribe"))


def a2a_routes() -> list[BaseRoute]:
    """The A2A routes (public card + ``/v1/a2a`` catch-all)."""
    return [
        Route("/.well-known/agent-card.json", public_card, methods=["GET"]),
        StreamRoute(
            "/v1/a2a/{tail:path}",
            a2a_endpoint,
            methods=["GET", "POST", "DELETE"],
            when=_opens_stream,
        ),
    ]
