"""Draft agent preview (``POST /v1/ai-sdk/agent-previews/runs``, admin-only).

The draft AgentSpec overlays the live registries (same tools, models, providers, plugins) in a
throw-away runtime: no mailbox, no persistence, no replay buffer. The client sends the whole
transcript, so assistant text is kept and decisions are not filtered by waiting targets.

A draft never runs with less protection than a stored agent: it gets the plugins, plugin
sections (e.g. the permission policy) and tool limits of its base — the stored agent of the
same id, else the server's default agent (:func:`with_server_policy`). Remote (``endpoint``)
drafts are refused with 400.
"""

from __future__ import annotations

import asyncio
from typing import Any

from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.identity import AdapterKind
from awaken_contract.contract.request import RunRequest
from awaken_contract.errors import AwakenError
from awaken_contract.ids import new_id
from awaken_contract.registry_spec import AgentSpec
from awaken_contract.runtime import AgentRunResult, AgentRuntimeApi
from awaken_runtime.registry.registries import Registry, RegistrySet
from awaken_runtime.registry.resolver import RegistryResolver
from awaken_runtime.runtime import AgentRuntime
from pydantic import ValidationError

from awaken_server.protocols.ai_sdk_v6.request import ChatRequest, decode_chat_input
from awaken_server.protocols.errors import ProtocolRequestError
from awaken_server.protocols.frontend_context import with_frontend_context

DRAFT_AGENT_ID = "draft-preview"
NO_PREVIEW_INPUT = "no preview messages or interaction responses"


def draft_spec(raw: Any) -> AgentSpec:
    """The draft AgentSpec of a preview body (blank id → ``draft-preview``)."""
    if not isinstance(raw, dict):
        raise ProtocolRequestError("agent must be an AgentSpec object")
    data = dict(raw)
    if not str(data.get("id") or "").strip():
        data["id"] = DRAFT_AGENT_ID
    model = data.get("model", data.get("model_id"))
    if not isinstance(model, str) or not model.strip():
        raise ProtocolRequestError("preview agent model_id cannot be empty")
    try:
        return AgentSpec.model_validate(data)
    except ValidationError as exc:
        raise ProtocolRequestError(f"invalid preview agent '{data['id']}': {exc}") from None


def _overlay(registries: RegistrySet, spec: AgentSpec) -> RegistrySet:
    overlay = RegistrySet()
    for name in RegistrySet.__slots__:
        source = getattr(registries, name)
        if not isinstance(source, Registry):
            continue
        target: Registry[Any] = getattr(overlay, name)
        for item_id, item in source.items():
            target.register(item_id, item)
    overlay.agents.replace(spec.id, spec)
    return overlay


def _narrowed(base: list[str] | None, draft: list[str] | None) -> list[str] | None:
    """``allowed_tools`` of a draft limited to its base's (``None`` = no limit)."""
    if base is None:
        return draft
    if draft is None:
        return list(base)
    return [tool for tool in draft if tool in base]


def with_server_policy(spec: AgentSpec, base: AgentSpec | None) -> AgentSpec:
    """``spec`` with ``base``'s plugins, their sections and tool limits added (base wins)."""
    if base is None:
        return spec
    plugin_ids = list(dict.fromkeys([*base.plugin_ids, *spec.plugin_ids]))
    excluded = sorted({*(base.excluded_tools or []), *(spec.excluded_tools or [])})
    return spec.model_copy(
        update={
            "plugin_ids": plugin_ids,
            "sections": {**spec.sections, **base.sections},
            "allowed_tools": _narrowed(base.allowed_tools, spec.allowed_tools),
            "excluded_tools": excluded or None,
        }
    )


def preview_runtime(
    live: AgentRuntimeApi, spec: AgentSpec, default_agent_id: str = "default"
) -> AgentRuntime:
    """A runtime resolving ``spec`` over ``live``'s registries; 400 when a local draft fails."""
    registries = live.registries if isinstance(live, AgentRuntime) else None
    if registries is None:
        raise ProtocolRequestError("agent previews need a registry-backed runtime")
    resolver = live.resolver if isinstance(live, AgentRuntime) else None
    mode = resolver.tool_execution_mode if isinstance(resolver, RegistryResolver) else None
    if spec.endpoint is not None:
        raise ProtocolRequestError(
            f"invalid preview agent '{spec.id}': previews run local agents only "
            "(this draft has a remote endpoint)"
        )
    stored = registries.agents.get(spec.id) or registries.agents.get(default_agent_id)
    spec = with_server_policy(spec, stored)
    overlay = _overlay(registries, spec)
    preview_resolver = (
        RegistryResolver(overlay, mode) if mode is not None else RegistryResolver(overlay)
    )
    try:
        preview_resolver.resolve(spec.id)
    except AwakenError as exc:
        raise ProtocolRequestError(f"invalid preview agent '{spec.id}': {exc}") from None
    return AgentRuntime(preview_resolver, registries=overlay)


def preview_request(body: Any) -> tuple[AgentSpec, RunRequest]:
    """The draft spec and the run request of a preview body."""
    if not isinstance(body, dict):
        raise ProtocolRequestError("request body must be a JSON object")
    spec = draft_spec(body.get("agent"))
    chat = decode_chat_input(
        ChatRequest.from_json({k: v for k, v in body.items() if k != "agent"}),
        keep_assistant=True,
        empty_error=NO_PREVIEW_INPUT,
    )
    request = RunRequest(
        thread_id=chat.thread_id or new_id(),
        messages=with_frontend_context(chat.messages, chat.state),
        agent_id=spec.id,
        decisions=chat.decisions,
        adapter=AdapterKind.AI_SDK,
    )
    return spec, request


def start_preview(
    live: AgentRuntimeApi, body: Any, sink: EventSink, default_agent_id: str = "default"
) -> asyncio.Task[AgentRunResult]:
    """Validate a preview body and start its run on a throw-away runtime, events to ``sink``."""
    spec, request = preview_request(body)
    runtime = preview_runtime(live, spec, default_agent_id)
    return asyncio.ensure_future(runtime.run(request, sink))
