"""A2A v1.0 HTTP+JSON binding: agent cards, ``message:send``/``message:stream``, tasks.

Mount with ``create_app(state, extra_routes=a2a_routes())`` (which also mounts the JSON-RPC
binding of :mod:`.jsonrpc`). Everything under ``/v1/a2a/`` is one catch-all: the tail is
matched against the default-agent shapes first, then the tenant (``/v1/a2a/<agent_id>/...``)
shapes. The operations themselves live in :class:`~.service.A2aService`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import Scope

from awaken_server.errors import ApiError
from awaken_server.protocols.a2a.card import request_origin
from awaken_server.protocols.a2a.checks import check_content_type, check_version
from awaken_server.protocols.a2a.errors import A2aError
from awaken_server.protocols.a2a.jsonrpc import jsonrpc_endpoint
from awaken_server.protocols.a2a.service import A2aService
from awaken_server.protocols.a2a.wire import (
    ListTasksRequest,
    PushNotificationConfig,
    SendMessageRequest,
    StreamResponse,
)
from awaken_server.security.streams import StreamRoute
from awaken_server.sse import format_sse_data, sse_response
from awaken_server.state import state_of
from awaken_server.wire import decode_json, parse_offset

__all__ = ["A2aService", "a2a_routes"]


def _json(value: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(value), status_code=status, media_type="application/json")


# ---------------------------------------------------------------------- request checks
async def _body(request: Request, type_: type[Any]) -> Any:
    check_content_type(request)
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


# ---------------------------------------------------------------------- handlers
async def _send(
    service: A2aService, request: Request, tenant: str | None, *, stream: bool
) -> Response:
    body: SendMessageRequest = await _body(request, SendMessageRequest)
    accepted = await service.send(body, tenant)
    if stream:
        return _stream(service, service.stream(accepted))
    return _json({"task": await service.result(accepted)})


def _stream(service: A2aService, frames: AsyncIterator[StreamResponse]) -> Response:
    async def encoded() -> AsyncIterator[bytes]:
        async for frame in frames:
            yield format_sse_data(msgspec.json.encode(frame))

    return sse_response(encoded(), heartbeat_interval=service.state.config.heartbeat_interval_secs)


async def _list_tasks(service: A2aService, request: Request, tenant: str | None) -> Response:
    params = request.query_params
    query = ListTasksRequest(
        context_id=params.get("contextId"),
        status=params.get("status"),
        page_size=_int_query(request, "pageSize", None),
        page_token=params.get("pageToken"),
        history_length=_int_query(request, "historyLength", 0),
        include_artifacts=params.get("includeArtifacts", "").lower() == "true",
    )
    return _json(await service.list_tasks(query, tenant))


async def _push_route(
    service: A2aService,
    request: Request,
    task_id: str,
    config_id: str | None,
    tenant: str | None,
) -> Response:
    method = request.method
    if config_id is None and method == "POST":
        await service.task_ref(task_id, tenant)
        body: PushNotificationConfig = await _body(request, PushNotificationConfig)
        return _json(await service.create_push(task_id, body, tenant))
    if config_id is None and method == "GET":
        page_size = _int_query(request, "pageSize", None)
        token = request.query_params.get("pageToken")
        return _json(await service.list_push(task_id, tenant, page_size, token))
    if config_id is not None and method == "GET":
        return _json(await service.get_push(task_id, config_id, tenant))
    if config_id is not None and method == "DELETE":
        await service.delete_push(task_id, config_id, tenant)
        return Response(status_code=204)
    raise A2aError.not_found(f"unsupported A2A path: {request.url.path}")


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
        authorization = request.headers.get("authorization")
        return _json(service.extended_card(tenant, authorization, request_origin(request)))
    if n == 1 and method == "GET" and head == "tasks":
        return await _list_tasks(service, request, tenant)
    if n == 2 and head == "tasks":
        segment = segments[1]
        if method == "GET":
            history_length = _int_query(request, "historyLength", None)
            return _json(await service.get_task(segment, tenant, history_length))
        if method == "POST":
            task_id, sep, action = segment.rpartition(":")
            if not sep or action not in ("cancel", "subscribe"):
                raise A2aError.not_found(f"unsupported A2A task action path: {segment}")
            if not task_id.strip():
                raise A2aError.invalid_field("taskId", "task id is required")
            if action == "cancel":
                return _json(await service.cancel(task_id, tenant))
            return _stream(service, await service.subscribe(task_id, tenant))
    if 3 <= n <= 4 and head == "tasks" and segments[2] == "pushNotificationConfigs":
        if method == "POST" and n == 3:
            check_content_type(request)
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
        check_version(request)
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
    service = A2aService.of(state_of(request))
    try:
        check_version(request)
        card = service.public_card(request_origin(request))
    except A2aError as exc:
        return exc.response()
    return JSONResponse(msgspec.to_builtins(card))


def _opens_stream(scope: Scope) -> bool:
    path = str(scope.get("path", ""))
    return scope.get("method") == "POST" and path.endswith((":stream", ":subscribe"))


def a2a_routes() -> list[BaseRoute]:
    """The A2A routes: public card, JSON-RPC (``POST /v1/a2a``) and the HTTP+JSON catch-all."""
    return [
        Route("/.well-known/agent-card.json", public_card, methods=["GET"]),
        # JSON-RPC streams answer text/event-stream, which frees their request slot.
        Route("/v1/a2a", jsonrpc_endpoint, methods=["POST"]),
        StreamRoute(
            "/v1/a2a/{tail:path}",
            a2a_endpoint,
            methods=["GET", "POST", "DELETE"],
            when=_opens_stream,
        ),
    ]
