"""Thread routes: CRUD, summaries, message history and injection, mailbox, control, runs."""

from __future__ import annotations

from typing import Any

import msgspec
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.mailbox import MailboxJobStatus
from awaken_contract.contract.message import Message
from awaken_contract.contract.storage import MessageQuery, RunQuery, Thread, ThreadMetadata
from awaken_contract.ids import now_ms
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from awaken_server.agent_lookup import require_agent
from awaken_server.errors import BadRequest, NotFound, UnprocessableEntity
from awaken_server.mailbox import RunSubmission
from awaken_server.routes.common import load_thread, status_filter
from awaken_server.run_control import cancel_response, decision_response, interrupt_response
from awaken_server.security.principal import body_user_id, run_user_id
from awaken_server.state import state_of
from awaken_server.thread_input import inject_messages
from awaken_server.wire import (
    field,
    json_response,
    optional_id,
    page_params,
    parse_input_messages,
    read_json,
    read_json_object,
)

__all__ = ["thread_routes"]


async def list_threads(request: Request) -> Response:
    """``GET /v1/threads?offset&limit`` → thread ids, most recent first."""
    state = state_of(request)
    offset, limit = page_params(request)
    ids = await state.store.list_threads(offset, limit)
    return json_response({"items": ids, "offset": offset, "limit": limit})


async def create_thread(request: Request) -> Response:
    """``POST /v1/threads`` with ``{"title"?}`` → 201 Thread."""
    state = state_of(request)
    data = await read_json_object(request)
    title = data.get("title")
    if title is not None and not isinstance(title, str):
        raise UnprocessableEntity("field 'title' must be a string")
    now = now_ms()
    thread = Thread.new()
    thread.metadata = ThreadMetadata(created_at=now, updated_at=now, title=title)
    await state.store.save_thread(thread)
    return json_response(thread, 201)


async def thread_summaries(request: Request) -> Response:
    """``GET /v1/threads/summaries`` → id, title, updated_at and agent of each thread."""
    state = state_of(request)
    offset, limit = page_params(request)
    items: list[dict[str, Any]] = []
    for thread_id in await state.store.list_threads(offset, limit):
        thread = await state.store.load_thread(thread_id)
        if thread is None:
            continue
        latest = await state.store.latest_run(thread_id)
        items.append(
            {
                "id": thread.id,
                "title": thread.metadata.title,
                "updated_at": thread.metadata.updated_at,
                "agent_id": latest.agent_id if latest is not None else None,
            }
        )
    return json_response({"items": items, "offset": offset, "limit": limit})


async def get_thread(request: Request) -> Response:
    """``GET /v1/threads/:id``."""
    return json_response(await load_thread(state_of(request), request.path_params["id"]))


async def patch_thread(request: Request) -> Response:
    """``PATCH /v1/threads/:id`` (and ``/metadata``): replace title, merge ``custom`` keys."""
    state = state_of(request)
    thread = await load_thread(state, request.path_params["id"])
    data = await read_json_object(request)
    metadata = thread.metadata
    if "title" in data:
        title = data["title"]
        if title is not None and not isinstance(title, str):
            raise UnprocessableEntity("field 'title' must be a string")
        metadata.title = title
    custom = data.get("custom")
    if custom is not None:
        if not isinstance(custom, dict):
            raise UnprocessableEntity("field 'custom' must be an object")
        metadata.custom.update(custom)
    metadata.updated_at = now_ms()
    await state.store.update_thread_metadata(thread.id, metadata)
    return json_response(await load_thread(state, thread.id))


async def delete_thread(request: Request) -> Response:
    """``DELETE /v1/threads/:id`` → 204."""
    state = state_of(request)
    thread = await load_thread(state, request.path_params["id"])
    await state.store.delete_thread(thread.id)
    return Response(status_code=204)


async def thread_messages(request: Request) -> Response:
    """``GET /v1/threads/:id/messages?offset&cursor&limit&visibility``."""
    state = state_of(request)
    thread = await load_thread(state, request.path_params["id"])
    offset, limit = page_params(request)
    cursor = request.query_params.get("cursor")
    visibility = (request.query_params.get("visibility") or "").lower()
    query = MessageQuery(
        offset=offset, limit=limit, cursor=cursor, include_internal=visibility == "all"
    )
    try:
        query.start()
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    page = await state.store.load_messages_page(thread.id, query)
    return json_response(page)


async def post_thread_messages(request: Request) -> Response:
    """``POST /v1/threads/:id/messages`` → 202 ``{"status": "running"|"queued"}``."""
    state = state_of(request)
    thread = await load_thread(state, request.path_params["id"])
    data = await read_json_object(request)
    messages = parse_input_messages(field(data, "messages"))
    mode = data.get("mode") or "queue"
    if not isinstance(mode, str):
        raise UnprocessableEntity("field 'mode' must be a string")
    agent_id = optional_id(data, "agentId", "agent_id")
    require_agent(state.runtime, agent_id)
    user_id = run_user_id(request, body_user_id(data))
    status = await inject_messages(state, thread.id, messages, agent_id, mode, user_id)
    return json_response({"status": status.value, "thread_id": thread.id}, 202)


async def push_mailbox(request: Request) -> Response:
    """``POST /v1/threads/:id/mailbox`` with ``{"payload": any}`` → 201 job/run ids."""
    state = state_of(request)
    thread_id = request.path_params["id"]
    data = await read_json(request)
    if not isinstance(data, dict) or "payload" not in data:
        raise BadRequest("missing field 'payload'")
    payload = data["payload"]
    if isinstance(payload, dict) and isinstance(payload.get("text"), str) and payload["text"]:
        text = payload["text"]
    elif isinstance(payload, str) and payload:
        text = payload
    else:
        text = msgspec.json.encode(payload).decode()
    result = await state.mailbox.submit_background(
        RunSubmission(thread_id=thread_id, messages=[Message.user(text)])
    )
    return json_response(
        {"dispatch_id": result.job_id, "run_id": result.run_id, "thread_id": result.thread_id},
        201,
    )


async def list_mailbox(request: Request) -> Response:
    """``GET /v1/threads/:id/mailbox?limit&status`` → the thread's jobs."""
    state = state_of(request)
    _, limit = page_params(request)
    statuses = None
    raw = request.query_params.get("status")
    if raw:
        try:
            statuses = [MailboxJobStatus(raw)]
        except ValueError:
            raise BadRequest(f"invalid status filter: {raw}") from None
    jobs = await state.mailbox.store.list(request.path_params["id"], statuses, limit, 0)
    return json_response({"items": jobs})


async def cancel_thread(request: Request) -> Response:
    """``POST /v1/threads/:id/cancel`` → 202 or 404."""
    return await cancel_response(state_of(request), request.path_params["id"], "thread")


async def thread_decision(request: Request) -> Response:
    """``POST /v1/threads/:id/decision`` → 202 or 404."""
    state, thread_id = state_of(request), request.path_params["id"]
    return await decision_response(request, state, thread_id, "thread")


async def interrupt_thread(request: Request) -> Response:
    """``POST /v1/threads/:id/interrupt``: supersede queued jobs and cancel the active run."""
    return await interrupt_response(state_of(request), request.path_params["id"])


async def thread_runs(request: Request) -> Response:
    """``GET /v1/threads/:id/runs?offset&limit&status``."""
    state = state_of(request)
    offset, limit = page_params(request)
    page = await state.store.list_runs(
        RunQuery(
            offset=offset,
            limit=limit,
            thread_id=request.path_params["id"],
            status=status_filter(request),
        )
    )
    return json_response(page)


async def latest_run(request: Request) -> Response:
    """``GET /v1/threads/:id/runs/latest``."""
    state = state_of(request)
    thread_id = request.path_params["id"]
    run = await state.store.latest_run(thread_id)
    if run is None:
        raise NotFound(f"run not found: no runs for thread {thread_id}")
    return json_response(run)


async def active_run(request: Request) -> Response:
    """``GET /v1/threads/:id/runs/active`` → ``{"active_run": ActiveRun | null}``."""
    state = state_of(request)
    thread_id = request.path_params["id"]
    store = state.store
    run = None
    thread = await store.load_thread(thread_id)
    if thread is not None:
        if thread.active_run_id:
            candidate = await store.load_run(thread.active_run_id)
            if candidate is not None and candidate.status is RunStatus.RUNNING:
                run = candidate
        if run is None and thread.open_run_id:
            candidate = await store.load_run(thread.open_run_id)
            if candidate is not None and candidate.status in (RunStatus.RUNNING, RunStatus.WAITING):
                run = candidate
    if run is None:
        found = []
        for status in (RunStatus.RUNNING, RunStatus.WAITING):
            page = await store.list_runs(RunQuery(thread_id=thread_id, status=status, limit=200))
            found.extend(page.items)
        if found:
            run = max(found, key=lambda r: r.updated_at)
    if run is None:
        return json_response({"active_run": None})
    body: dict[str, Any] = {
        "thread_id": run.thread_id,
        "run_id": run.run_id,
        "agent_id": run.agent_id,
        "status": run.status.value,
    }
    if run.termination_reason is not None:
        body["termination_reason"] = msgspec.to_builtins(run.termination_reason)
    for key in ("dispatch_id", "session_id"):
        if getattr(run, key):
            body[key] = getattr(run, key)
    if run.waiting is not None:
        body["waiting"] = msgspec.to_builtins(run.waiting)
    return json_response({"active_run": body})


def thread_routes() -> list[BaseRoute]:
    """The ``/v1/threads`` routes."""
    t = "/v1/threads/{id}"
    return [
        Route("/v1/threads", list_threads, methods=["GET"]),
        Route("/v1/threads", create_thread, methods=["POST"]),
        Route("/v1/threads/summaries", thread_summaries, methods=["GET"]),
        Route(t, get_thread, methods=["GET"]),
        Route(t, patch_thread, methods=["PATCH"]),
        Route(t, delete_thread, methods=["DELETE"]),
        Route(f"{t}/metadata", patch_thread, methods=["PATCH"]),
        Route(f"{t}/messages", thread_messages, methods=["GET"]),
        Route(f"{t}/messages", post_thread_messages, methods=["POST"]),
        Route(f"{t}/mailbox", push_mailbox, methods=["POST"]),
        Route(f"{t}/mailbox", list_mailbox, methods=["GET"]),
        Route(f"{t}/cancel", cancel_thread, methods=["POST"]),
        Route(f"{t}/decision", thread_decision, methods=["POST"]),
        Route(f"{t}/interrupt", interrupt_thread, methods=["POST"]),
        Route(f"{t}/runs", thread_runs, methods=["GET"]),
        Route(f"{t}/runs/latest", latest_run, methods=["GET"]),
        Route(f"{t}/runs/active", active_run, methods=["GET"]),
    ]
