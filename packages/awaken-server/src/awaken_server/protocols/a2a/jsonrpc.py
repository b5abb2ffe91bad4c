"""A2A v1.0 JSON-RPC binding: ``POST /v1/a2a`` with ``{"jsonrpc": "2.0", "method", "params"}``.

The methods are the A2A v1.0 names (``SendMessage``, ``SendStreamingMessage``, ``GetTask``,
``ListTasks``, ``CancelTask``, ``SubscribeToTask``, the four ``…TaskPushNotificationConfig``
methods and ``GetExtendedAgentCard``); ``params`` are the same camelCase objects the
HTTP+JSON binding takes (the agent is chosen by ``params.tenant``, default agent when
absent). Results are the same objects too; streaming methods answer Server-Sent Events whose
``data`` is one JSON-RPC response per ``StreamResponse``. Errors are JSON-RPC error objects
(HTTP 200) with the A2A codes (``-32001`` task not found …) and the typed details as ``data``.
Every operation is delegated to :class:`~.service.A2aService`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from awaken_server.errors import ApiError
from awaken_server.protocols.a2a.card import request_origin
from awaken_server.protocols.a2a.checks import check_content_type, check_version
from awaken_server.protocols.a2a.errors import A2aError, JsonRpcCode
from awaken_server.protocols.a2a.service import A2aService
from awaken_server.protocols.a2a.wire import (
    CancelTaskRequest,
    GetExtendedAgentCardRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    PushNotificationConfig,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    TaskPushNotificationConfigRequest,
)
from awaken_server.sse import format_sse_data, sse_response
from awaken_server.state import state_of
from awaken_server.wire import decode_json

__all__ = ["JSONRPC_METHODS", "jsonrpc_endpoint"]

RequestId = str | int | None


class _RpcFailure(Exception):
    """A JSON-RPC protocol error (not an A2A one)."""

    def __init__(self, code: JsonRpcCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _encode(
    request_id: RequestId, *, result: Any = None, error: dict[str, Any] | None = None
) -> bytes:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
    if error is not None:
        body["error"] = error
    else:
        body["result"] = result
    return msgspec.json.encode(body)


def _answer(request_id: RequestId, **kwargs: Any) -> Response:
    return Response(_encode(request_id, **kwargs), media_type="application/json")


def _params(raw: Any, type_: type[Any]) -> Any:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise _RpcFailure(JsonRpcCode.INVALID_PARAMS, "params must be an object")
    try:
        return msgspec.convert(raw, type_)
    except msgspec.ValidationError as exc:
        raise _RpcFailure(JsonRpcCode.INVALID_PARAMS, f"invalid params: {exc}") from None


Unary = Callable[[A2aService, Any, Request], Awaitable[Any]]
Streaming = Callable[[A2aService, Any], Awaitable[AsyncIterator[StreamResponse]]]


async def _send(service: A2aService, p: SendMessageRequest, _: Request) -> Any:
    return {"task": await service.result(await service.send(p))}


async def _get(service: A2aService, p: GetTaskRequest, _: Request) -> Any:
    return await service.get_task(p.id, p.tenant, p.history_length)


async def _list(service: A2aService, p: ListTasksRequest, _: Request) -> Any:
    return await service.list_tasks(p, p.tenant)


async def _cancel(service: A2aService, p: CancelTaskRequest, _: Request) -> Any:
    return await service.cancel(p.id, p.tenant)


async def _create_push(service: A2aService, p: PushNotificationConfig, _: Request) -> Any:
    return await service.create_push(p.task_id or "", p, p.tenant)


async def _get_push(service: A2aService, p: TaskPushNotificationConfigRequest, _: Request) -> Any:
    return await service.get_push(p.task_id, p.id, p.tenant)


async def _list_push(
    service: A2aService, p: ListTaskPushNotificationConfigsRequest, _: Request
) -> Any:
    return await service.list_push(p.task_id, p.tenant, p.page_size, p.page_token)


async def _delete_push(
    service: A2aService, p: TaskPushNotificationConfigRequest, _: Request
) -> Any:
    await service.delete_push(p.task_id, p.id, p.tenant)
    return None


async def _extended_card(
    service: A2aService, p: GetExtendedAgentCardRequest, request: Request
) -> Any:
    authorization = request.headers.get("authorization")
    return service.extended_card(p.tenant, authorization, request_origin(request))


async def _stream_send(service: A2aService, p: SendMessageRequest) -> AsyncIterator[StreamResponse]:
    return service.stream(await service.send(p))


async def _subscribe(
    service: A2aService, p: SubscribeToTaskRequest
) -> AsyncIterator[StreamResponse]:
    return await service.subscribe(p.id, p.tenant)


_UNARY: dict[str, tuple[type[Any], Unary]] = {
    "SendMessage": (SendMessageRequest, _send),
    "GetTask": (GetTaskRequest, _get),
    "ListTasks": (ListTasksRequest, _list),
    "CancelTask": (CancelTaskRequest, _cancel),
    "CreateTaskPushNotificationConfig": (PushNotificationConfig, _create_push),
    "GetTaskPushNotificationConfig": (TaskPushNotificationConfigRequest, _get_push),
    "ListTaskPushNotificationConfigs": (ListTaskPushNotificationConfigsRequest, _list_push),
    "DeleteTaskPushNotificationConfig": (TaskPushNotificationConfigRequest, _delete_push),
    "GetExtendedAgentCard": (GetExtendedAgentCardRequest, _extended_card),
}
_STREAMING: dict[str, tuple[type[Any], Streaming]] = {
    "SendStreamingMessage": (SendMessageRequest, _stream_send),
    "SubscribeToTask": (SubscribeToTaskRequest, _subscribe),
}
JSONRPC_METHODS = frozenset({*_UNARY, *_STREAMING})
"""Every method name the binding answers."""


def _envelope(raw: bytes) -> tuple[RequestId, str, Any]:
    """``(id, method, params)`` of a JSON-RPC 2.0 request body."""
    try:
        body = decode_json(raw)
    except ApiError as exc:
        raise _RpcFailure(JsonRpcCode.PARSE_ERROR, exc.message) from None
    if isinstance(body, list):
        raise _RpcFailure(JsonRpcCode.INVALID_REQUEST, "batch requests are not supported")
    if not isinstance(body, dict):
        raise _RpcFailure(JsonRpcCode.INVALID_REQUEST, "a request must be a JSON object")
    request_id = body.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int | None):
        raise _RpcFailure(JsonRpcCode.INVALID_REQUEST, "id must be a string, integer or null")
    if body.get("jsonrpc") != "2.0":
        raise _RpcFailure(JsonRpcCode.INVALID_REQUEST, "'jsonrpc' must be exactly \"2.0\"")
    method = body.get("method")
    if not isinstance(method, str) or not method:
        raise _RpcFailure(JsonRpcCode.INVALID_REQUEST, "method must be a non-empty string")
    return request_id, method, body.get("params")


def _request_id(raw: bytes) -> RequestId:
    """The request's id, when the body is readable enough to have one."""
    try:
        body = msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):  # malformed, or nested too deep to decode
        return None
    value = body.get("id") if isinstance(body, dict) else None
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None


def _sse(
    service: A2aService, request_id: RequestId, frames: AsyncIterator[StreamResponse]
) -> Response:
    async def encoded() -> AsyncIterator[bytes]:
        try:
            async for frame in frames:
                yield format_sse_data(_encode(request_id, result=frame))
        except A2aError as exc:
            yield b"event: error\n" + format_sse_data(_encode(request_id, error=exc.rpc_error()))

    return sse_response(encoded(), heartbeat_interval=service.state.config.heartbeat_interval_secs)


async def jsonrpc_endpoint(request: Request) -> Response:
    """``POST /v1/a2a``: one JSON-RPC request (JSON answer, or SSE for streaming methods)."""
    service = A2aService.of(state_of(request))
    raw = await request.body()
    request_id = _request_id(raw)
    try:
        check_version(request)
        check_content_type(request)
        request_id, method, raw_params = _envelope(raw)
        if method in _STREAMING:
            type_, open_stream = _STREAMING[method]
            frames = await open_stream(service, _params(raw_params, type_))
            return _sse(service, request_id, frames)
        if method not in _UNARY:
            raise _RpcFailure(JsonRpcCode.METHOD_NOT_FOUND, f"method not found: {method}")
        type_, call = _UNARY[method]
        result = await call(service, _params(raw_params, type_), request)
        return _answer(request_id, result=result)
    except _RpcFailure as exc:
        return _answer(request_id, error={"code": int(exc.code), "message": exc.message})
    except A2aError as exc:
        return _answer(request_id, error=exc.rpc_error())
