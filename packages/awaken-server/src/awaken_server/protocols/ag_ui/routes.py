"""AG-UI routes: runs (body-, thread- or agent-addressed), reconnect, interrupt and history.

Mount with ``create_app(state, extra_routes=ag_ui_routes())``.
"""

from __future__ import annotations

from typing import Any

from awaken_contract.codec import to_builtins
from awaken_contract.contract.identity import AdapterKind
from awaken_contract.ids import new_id
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from awaken_server.agent_lookup import require_agent
from awaken_server.mailbox.submission import RunSubmission
from awaken_server.protocols.ag_ui.encoder import AgUiEncoder
from awaken_server.protocols.ag_ui.request import AgUiRunInput, RunAgentInput, decode_run_input
from awaken_server.protocols.control import interrupt_thread
from awaken_server.protocols.frontend_context import with_frontend_context
from awaken_server.protocols.paging import page, visible
from awaken_server.protocols.relay import latest_run_id, submit_and_stream, waiting_targets
from awaken_server.protocols.run_stream import (
    ProtocolCodec,
    live_decision_response,
    resume_response,
)
from awaken_server.security.principal import body_user_id, run_user_id
from awaken_server.security.streams import StreamRoute
from awaken_server.sse import parse_last_event_id
from awaken_server.state import AppState, state_of
from awaken_server.wire import json_response, read_json

AG_UI_STREAM_HEADERS = {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache",
    "Connection": "keep-alive",
}
"""Response headers of every AG-UI streaming route."""

_TERMINAL_EVENTS = frozenset({"RUN_FINISHED", "RUN_ERROR"})


def _is_terminal(event: dict[str, Any]) -> bool:
    return event.get("type") in _TERMINAL_EVENTS


AG_UI_CODEC = ProtocolCodec(lambda: AgUiEncoder().encode, _is_terminal)
"""AG-UI events of a run's events (one encoder per stream)."""


def _deliver_live(state: AppState, thread_id: str, run: AgUiRunInput) -> Response | None:
    """Hand the decisions to the run waiting live on the thread; its stream, when accepted."""
    run_id = state.mailbox.active_run_id(thread_id)
    if run_id is None:
        return None
    live = live_decision_response(state, AG_UI_CODEC, run_id, run.decisions, AG_UI_STREAM_HEADERS)
    if live is not None and run.messages:
        state.runtime.send_messages(run_id, run.messages)
    return live


async def _run(
    request: Request, *, thread_id: str | None = None, agent_id: str | None = None
) -> Response:
    state = state_of(request)
    raw = await read_json(request)
    body = RunAgentInput.from_json(raw)
    user_id = run_user_id(request, body_user_id(raw, "forwardedProps"))
    require_agent(state.runtime, agent_id or body.agent_id)
    thread_id = thread_id or body.thread_id or new_id()
    stored = await state.store.load_messages(thread_id) or []
    run = decode_run_input(
        body,
        known_ids={m.id for m in stored if m.id},
        has_history=bool(stored),
        waiting_targets=await waiting_targets(state, thread_id),
    )
    if run.decisions:
        live = _deliver_live(state, thread_id, run)
        if live is not None:
            return live
    submission = RunSubmission(
        thread_id=thread_id,
        messages=with_frontend_context(run.messages, run.context),
        agent_id=agent_id or run.agent_id,
        adapter=AdapterKind.AG_UI,
        decisions=run.decisions,
        frontend_tools=run.frontend_tools,
        user_id=user_id,
    )
    return await submit_and_stream(state, submission, AG_UI_CODEC, AG_UI_STREAM_HEADERS)


async def run(request: Request) -> Response:
    """``POST /v1/ag-ui/run``: run the body's thread, streaming AG-UI events."""
    return await _run(request)


async def thread_run(request: Request) -> Response:
    """``POST /v1/ag-ui/threads/:thread_id/runs``: the path names the thread."""
    return await _run(request, thread_id=request.path_params["thread_id"])


async def agent_run(request: Request) -> Response:
    """``POST /v1/ag-ui/agents/:agent_id/runs``: the path names the agent."""
    return await _run(request, agent_id=request.path_params["agent_id"])


async def reconnect(request: Request) -> Response:
    """``GET /v1/ag-ui/threads/:thread_id/replay``: the thread's latest stream from the run
    journal after ``Last-Event-ID`` (its seq; or ``?after=``), then live; without an id the
    whole current stream (204 when the latest run finished or nothing is left)."""
    state = state_of(request)
    run_id = await latest_run_id(state, request.path_params["thread_id"])
    after = parse_last_event_id(request.headers.get("last-event-id"))
    if after is None:
        after = parse_last_event_id(request.query_params.get("after"))
    return await resume_response(state, AG_UI_CODEC, run_id, after, AG_UI_STREAM_HEADERS)


async def thread_messages(request: Request) -> Response:
    """``GET /v1/ag-ui/threads/:thread_id/messages``: ``{id, role, content: [blocks]}`` pages."""
    state = state_of(request)
    messages = await state.store.load_messages(request.path_params["thread_id"]) or []
    result = page(visible(messages, request), request)
    result["messages"] = [
        {"id": m.id, "role": m.role.value, "content": to_builtins(m.content)}
        for m in result["messages"]
    ]
    return json_response(result)


def ag_ui_routes() -> list[BaseRoute]:
    """Every AG-UI route."""
    return [
        StreamRoute("/v1/ag-ui/run", run, methods=["POST"]),
        StreamRoute("/v1/ag-ui/threads/{thread_id}/runs", thread_run, methods=["POST"]),
        StreamRoute("/v1/ag-ui/agents/{agent_id}/runs", agent_run, methods=["POST"]),
        StreamRoute("/v1/ag-ui/threads/{thread_id}/replay", reconnect, methods=["GET"]),
        Route("/v1/ag-ui/threads/{thread_id}/interrupt", interrupt_thread, methods=["POST"]),
        Route("/v1/ag-ui/threads/{thread_id}/messages", thread_messages, methods=["GET"]),
    ]
