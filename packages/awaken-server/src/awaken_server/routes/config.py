"""Config API: ``/v1/config/:namespace`` CRUD + ``$schema``, ``/v1/capabilities``, ``/v1/agents``.

Writes are validated with the namespace's pydantic model, persisted in the config store and
published as a new runtime (next run uses it). Without a config store every route answers 400
``config management API not enabled``.
"""

from __future__ import annotations

import logging
from typing import Any

from awaken_contract.errors import AwakenError
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from awaken_server.config_manager import NAMESPACES, ConfigRuntimeManager, namespace_model
from awaken_server.errors import ApiError, BadRequest, Conflict, NotFound
from awaken_server.security.admin import admin_gate_of
from awaken_server.security.provider_docs import check_provider_doc
from awaken_server.state import AppState, state_of
from awaken_server.wire import edge_id, json_response, page_params, read_json

__all__ = ["config_routes"]

_log = logging.getLogger("awaken.config")

NOT_ENABLED = "config management API not enabled"


class _RuntimeApplyFailed(ApiError):
    status = 500


def _store(state: AppState) -> Any:
    if state.config_store is None:
        raise BadRequest(NOT_ENABLED)
    return state.config_store


def _manager(state: AppState) -> ConfigRuntimeManager:
    _store(state)
    manager = state.config_manager
    if manager is None:
        raise BadRequest(NOT_ENABLED)
    assert isinstance(manager, ConfigRuntimeManager)
    return manager


def _namespace(request: Request) -> str:
    namespace: str = request.path_params["namespace"]
    if namespace_model(namespace) is None:
        raise NotFound(f"unknown namespace: {namespace}")
    return namespace


def redact(namespace: str, doc: Any) -> Any:
    """Never return secrets: provider ``api_key`` → ``has_api_key``; MCP ``env`` → key names."""
    if not isinstance(doc, dict):
        return doc
    out = dict(doc)
    if namespace == "providers":
        key = out.pop("api_key", None)
        if key:
            out["has_api_key"] = True
        headers = out.pop("headers", None)
        if headers:
            out["header_keys"] = sorted(headers)
    elif namespace == "mcp-servers":
        env = out.pop("env", None)
        if env:
            out["has_env"] = True
            out["env_keys"] = sorted(env)
    return out


_SECRET_FIELDS = {"providers": ("api_key", "headers"), "mcp-servers": ("env",)}
"""Fields never answered; a PUT without them keeps the stored value."""
_DISPLAY_FIELDS = {
    "providers": ("has_api_key", "header_keys"),
    "mcp-servers": ("has_env", "env_keys"),
}
"""What :func:`redact` answers in their place (ignored on writes)."""


def _normalize(namespace: str, doc: dict[str, Any], previous: Any, is_put: bool) -> dict[str, Any]:
    out = {k: v for k, v in doc.items() if k not in _DISPLAY_FIELDS.get(namespace, ())}
    for key in _SECRET_FIELDS.get(namespace, ()):
        if key in out and out[key] in ("", None):
            out.pop(key)
        elif key not in out and is_put and isinstance(previous, dict) and previous.get(key):
            out[key] = previous[key]
    return out


def _validate(namespace: str, doc: dict[str, Any]) -> None:
    model = NAMESPACES[namespace]
    try:
        model.model_validate(doc)
    except ValidationError as exc:
        detail = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'body'}: {err['msg']}"
            for err in exc.errors()
        )
        raise BadRequest(f"invalid payload: {detail}") from None


async def list_docs(request: Request) -> Response:
    """``GET /v1/config/:namespace?offset&limit``."""
    state = state_of(request)
    store = _store(state)
    namespace = _namespace(request)
    offset, limit = page_params(request, default_limit=100, clamp=False)
    items = [redact(namespace, doc) for _, doc in await store.list(namespace, offset, limit)]
    return json_response({"namespace": namespace, "items": items, "offset": offset, "limit": limit})


async def get_doc(request: Request) -> Response:
    """``GET /v1/config/:namespace/:id`` (``$schema`` → the JSON Schema)."""
    state = state_of(request)
    store = _store(state)
    namespace = _namespace(request)
    doc_id = request.path_params["id"]
    if doc_id == "$schema":
        return json_response(NAMESPACES[namespace].model_json_schema())
    doc = await store.get(namespace, doc_id)
    if doc is None:
        raise NotFound(f"{namespace}/{doc_id}")
    return json_response(redact(namespace, doc))


async def _write(request: Request, *, is_put: bool) -> Response:
    state = state_of(request)
    manager = _manager(state)
    store = manager.config_store
    namespace = _namespace(request)
    body = await read_json(request)
    if not isinstance(body, dict):
        raise BadRequest("invalid payload: expected JSON object body")
    body_id = body.get("id")
    if not isinstance(body_id, str) or not body_id.strip():
        if is_put and body_id is None:
            body_id = request.path_params["id"]
            body = {**body, "id": body_id}
        else:
            raise BadRequest("missing 'id' field in body")
    edge_id(body_id, "id")
    doc_id = request.path_params["id"] if is_put else body_id
    if is_put and body_id != doc_id:
        raise BadRequest(f"invalid payload: path id '{doc_id}' does not match body id '{body_id}'")
    async with manager.lock:
        previous = await store.get(namespace, doc_id)
        if not is_put and previous is not None:
            raise Conflict(f"conflict: {namespace}/{doc_id} already exists")
        doc = _normalize(namespace, body, previous, is_put)
        _validate(namespace, doc)
        if namespace == "providers":
            check_provider_doc(
                doc,
                previous,
                patterns=state.config.security.api_key_env_patterns,
                is_admin=admin_gate_of(request).is_admin(request.scope),
            )
        await store.put(namespace, doc_id, doc)
        try:
            state.runtime = await manager.apply()
        except Exception as exc:
            if previous is None:
                await store.delete(namespace, doc_id)
            else:
                await store.put(namespace, doc_id, previous)
            _log.warning("config apply failed: %s", exc)
            if isinstance(exc, AwakenError | ValueError):
                raise BadRequest(f"invalid payload: {exc}") from None
            raise _RuntimeApplyFailed(f"runtime apply failed: {exc}") from None
    return json_response(redact(namespace, doc), 200 if is_put else 201)


async def create_doc(request: Request) -> Response:
    """``POST /v1/config/:namespace`` → 201 (409 when the id exists)."""
    return await _write(request, is_put=False)


async def put_doc(request: Request) -> Response:
    """``PUT /v1/config/:namespace/:id`` → 200 (upsert)."""
    return await _write(request, is_put=True)


async def delete_doc(request: Request) -> Response:
    """``DELETE /v1/config/:namespace/:id`` → 204."""
    state = state_of(request)
    manager = _manager(state)
    store = manager.config_store
    namespace = _namespace(request)
    doc_id = request.path_params["id"]
    async with manager.lock:
        previous = await store.get(namespace, doc_id)
        if previous is None:
            raise NotFound(f"not found: {namespace}/{doc_id}")
        await store.delete(namespace, doc_id)
        try:
            state.runtime = await manager.apply()
        except Exception as exc:
            await store.put(namespace, doc_id, previous)
            raise _RuntimeApplyFailed(f"runtime apply failed: {exc}") from None
    return Response(status_code=204)


async def capabilities(request: Request) -> Response:
    """``GET /v1/capabilities``."""
    state = state_of(request)
    _store(state)
    if state.capabilities is not None:
        return json_response(state.capabilities())
    manager = state.config_manager
    if isinstance(manager, ConfigRuntimeManager):
        return json_response(manager.capabilities())
    raise _RuntimeApplyFailed(
        "runtime apply failed: runtime does not expose a configurable registry snapshot"
    )


async def list_agents(request: Request) -> Response:
    """``GET /v1/agents`` = ``GET /v1/config/agents``."""
    request.path_params["namespace"] = "agents"
    return await list_docs(request)


async def get_agent(request: Request) -> Response:
    """``GET /v1/agents/:id`` = ``GET /v1/config/agents/:id``."""
    request.path_params["namespace"] = "agents"
    return await get_doc(request)


def config_routes() -> list[BaseRoute]:
    """Config, capabilities and agent alias routes."""
    ns = "/v1/config/{namespace}"
    return [
        Route("/v1/capabilities", capabilities, methods=["GET"]),
        Route(ns, list_docs, methods=["GET"]),
        Route(ns, create_doc, methods=["POST"]),
        Route(f"{ns}/{{id}}", get_doc, methods=["GET"]),
        Route(f"{ns}/{{id}}", put_doc, methods=["PUT"]),
        Route(f"{ns}/{{id}}", delete_doc, methods=["DELETE"]),
        Route("/v1/agents", list_agents, methods=["GET"]),
        Route("/v1/agents/{id}", get_agent, methods=["GET"]),
    ]
