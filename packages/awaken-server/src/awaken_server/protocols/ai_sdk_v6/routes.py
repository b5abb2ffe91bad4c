"""AI SDK v6 routes: chat / thread / agent runs, stream resume, history, cancel, interrupt.

Mount with ``create_app(state, extra_routes=ai_sdk_routes())``.
"""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.identity import AdapterKind
from awaken_contract.contract.suspension import ToolCallResume
from awaken_contract.ids import new_id
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from awaken_server.agent_lookup import require_agent
from awaken_server.mailbox.submission import RunSubmission
from awaken_server.protocols.ai_sdk_v6.encoder import AiSdkEncoder
from awaken_server.protocols.ai_sdk_v6.history import encode_history
from awaken_server.protocols.ai_sdk_v6.preview import start_preview
from awaken_server.protocols.ai_sdk_v6.request import ChatRequest, decode_chat_input
from awaken_server.protocols.control import cancel_thread, interrupt_thread
from awaken_server.protocols.frontend_context import with_frontend_context
from awaken_server.protocols.paging import page, visible
from awaken_server.protocols.relay import (
    EncodingSink,
    close_when_done,
    empty_stream,
    latest_run_id,
    stored_message_ids,
    stream_frames,
    submit_and_stream,
    waiting_targets,
)
from awaken_server.protocols.run_stream import (
    ProtocolCodec,
    live_decision_response,
    resume_response,
)
from awaken_server.security.principal import body_user_id, run_user_id
from awaken_server.security.streams import StreamRoute
from awaken_server.sse import RunEventHub, parse_last_event_id
from awaken_server.state import AppState, state_of
from awaken_server.wire import json_response, read_json

UI_MESSAGE_STREAM_HEADERS = {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache",
    "Connection": "keep-alive",
    "x-vercel-ai-ui-message-stream": "v1",
}
"""Response headers of every AI SDK streaming route."""

_TERMINAL_PARTS = frozenset({"finish", "error"})


def _is_terminal(part: dict[str, Any]) -> bool:
    return part.get("type") in _TERMINAL_PARTS


AI_SDK_CODEC = ProtocolCodec(lambda: AiSdkEncoder().encode, _is_terminal)
"""UI-message-stream parts of a run's events (one encoder per stream)."""


def _deliver_live(
    state: AppState, thread_id: str, decisions: list[tuple[str, ToolCallResume]]
) -> Response | None:
    """Hand decisions to the run waiting live on ``thread_id``; the stream of its continuation."""
    run_id = state.mailbox.active_run_id(thread_id)
    if run_id is None:
        return None
    return live_decision_response(state, AI_SDK_CODEC, run_id, decisions, UI_MESSAGE_STREAM_HEADERS)


async def _chat(
    request: Request, *, thread_id: str | None = None, agent_id: str | None = None
) -> Response:
    state = state_of(request)
    body = await read_json(request)
    chat_request = ChatRequest.from_json(body)
    user_id = run_user_id(request, body_user_id(body))
    require_agent(state.runtime, agent_id or chat_request.agent_id)
    thread_id = thread_id or chat_request.thread_id or new_id()
    chat = decode_chat_input(
        chat_request,
        known_ids=await stored_message_ids(state, thread_id),
        waiting_targets=await waiting_targets(state, thread_id),
    )
    if chat.decisions:
        live = _deliver_live(state, thread_id, chat.decisions)
        if live is not None:
            return live
    if not chat.messages and not chat.decisions:
        return empty_stream(UI_MESSAGE_STREAM_HEADERS)
    submission = RunSubmission(
        thread_id=thread_id,
        messages=with_frontend_context(chat.messages, chat.state),
        agent_id=agent_id or chat.agent_id,
        adapter=AdapterKind.AI_SDK,
        decisions=chat.decisions,
        user_id=user_id,
    )
    return await submit_and_stream(state, submission, AI_SDK_CODEC, UI_MESSAGE_STREAM_HEADERS)


async def chat(request: Request) -> Response:
    """``POST /v1/ai-sdk/chat``: run (or resume) the body's thread, streaming UI parts."""
    return await _chat(request)


async def thread_run(request: Request) -> Response:
    """``POST /v1/ai-sdk/threads/:thread_id/runs``: the path names the thread."""
    return await _chat(request, thread_id=request.path_params["thread_id"])


async def agent_run(request: Request) -> Response:
    """``POST /v1/ai-sdk/agents/:agent_id/runs``: the path names the agent."""
    return await _chat(request, agent_id=request.path_params["agent_id"])


async def agent_preview(request: Request) -> Response:
    """``POST /v1/ai-sdk/agent-previews/runs``: run a draft AgentSpec without persisting."""
    state = state_of(request)
    body = await read_json(request)
    hub = RunEventHub(new_id(), "preview", state.config.replay_buffer_capacity)
    sink = EncodingSink(AiSdkEncoder().encode, hub, _is_terminal)
    task = start_preview(state.runtime, body, sink, state.config.default_agent_id)
    close_when_done(task, hub)
    return stream_frames(state, hub, UI_MESSAGE_STREAM_HEADERS)


async def resume_stream(request: Request) -> Response:
    """``GET /v1/ai-sdk/chat/:thread_id/stream``: the thread's latest stream from the run
    journal after ``Last-Event-ID`` (its seq), then live; without it the whole current stream
    (204 when the thread's latest run finished, or nothing is left after the id)."""
    state = state_of(request)
    run_id = await latest_run_id(state, request.path_params["thread_id"])
    after = parse_last_event_id(request.headers.get("last-event-id"))
    return await resume_response(state, AI_SDK_CODEC, run_id, after, UI_MESSAGE_STREAM_HEADERS)


async def thread_messages(request: Request) -> Response:
    """``GET /v1/ai-sdk/threads/:thread_id/messages``: history as UI messages, paginated."""
    state = state_of(request)
    messages = await state.store.load_messages(request.path_params["thread_id"]) or []
    return json_response(page(encode_history(visible(messages, request)), request))


def ai_sdk_routes() -> list[BaseRoute]:
    """Every AI SDK v6 route."""
    return [
        StreamRoute("/v1/ai-sdk/chat", chat, methods=["POST"]),
        StreamRoute("/v1/ai-sdk/threads/{thread_id}/runs", thread_run, methods=["POST"]),
        StreamRoute("/v1/ai-sdk/agents/{agent_id}/runs", agent_run, methods=["POST"]),
        StreamRoute("/v1/ai-sdk/agent-previews/runs", agent_preview, methods=["POST"]),
        StreamRoute("/v1/ai-sdk/chat/{thread_id}/stream", resume_stream, methods=["GET"]),
        StreamRoute("/v1/ai-sdk/threads/{thread_id}/stream", resume_stream, methods=["GET"]),
        Route("/v1/ai-sdk/threads/{thread_id}/messages", thread_messages, methods=["GET"]),
        Route("/v1/ai-sdk/threads/{thread_id}/cancel", cancel_thread, methods=["POST"]),
        Route("/v1/ai-sdk/threads/{thread_id}/interrupt", interrupt_thread, methods=["POST"]),
    ]
