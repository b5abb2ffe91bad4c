"""Run routes: list, start (SSE), get, reconnect (``Last-Event-ID``), inputs, cancel, decision."""

from __future__ import annotations

from awaken_contract.contract.journal import JournaledThreadRunStore
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.storage import RunQuery
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from awaken_server.agent_lookup import require_agent
from awaken_server.errors import BadRequest
from awaken_server.journal_stream import journal_frames
from awaken_server.mailbox import RunSubmission
from awaken_server.routes.common import load_run, load_thread, status_filter, stream_hub
from awaken_server.run_control import cancel_response, decision_response
from awaken_server.security.principal import body_user_id, run_user_id
from awaken_server.security.streams import StreamRoute
from awaken_server.sse import parse_last_event_id, sse_response
from awaken_server.state import state_of
from awaken_server.thread_input import inject_messages
from awaken_server.wire import (
    field,
    header_safe,
    json_response,
    optional_id,
    page_params,
    parse_input_messages,
    read_json_object,
)

__all__ = ["run_routes"]


async def list_runs(request: Request) -> Response:
    """``GET /v1/runs?offset&limit&status``."""
    state = state_of(request)
    offset, limit = page_params(request)
    page = await state.store.list_runs(
        RunQuery(offset=offset, limit=limit, status=status_filter(request))
    )
    return json_response(page)


async def start_run(request: Request) -> Response:
    """``POST /v1/runs``: foreground submit, streamed as SSE (``id:`` from 0)."""
    state = state_of(request)
    data = await read_json_object(request)
    agent_id = optional_id(data, "agentId", "agent_id")
    if agent_id is None:
        raise BadRequest("agent_id cannot be empty")
    require_agent(state.runtime, agent_id)
    messages = parse_input_messages(field(data, "messages"))
    submission = RunSubmission(
        thread_id=optional_id(data, "threadId", "thread_id"),
        messages=messages,
        agent_id=agent_id,
        user_id=run_user_id(request, body_user_id(data)),
    )
    handle = await state.mailbox.submit(submission)
    headers = {
        "x-awaken-run-id": header_safe(handle.run_id),
        "x-awaken-thread-id": header_safe(handle.thread_id),
    }
    return stream_hub(state, handle.hub, None, handle.reservation, headers)


async def get_run(request: Request) -> Response:
    """``GET /v1/runs/:id``."""
    run = await load_run(state_of(request), request.path_params["id"])
    return json_response(run)


async def run_events(request: Request) -> Response:
    """``GET /v1/runs/:id/events``: replay frames after ``Last-Event-ID`` then the live tail.

    With a journaled store the events come from the run journal (any instance, across
    restarts; SSE ids are journal seqs — see :mod:`awaken_server.journal_stream`); otherwise
    from this process's replay buffer, 204 when it holds no events of the run."""
    state = state_of(request)
    run_id = request.path_params["id"]
    hub = state.hubs.get(run_id)
    after = parse_last_event_id(request.headers.get("last-event-id"))
    if after is None:
        raw = request.query_params.get("after")
        after = parse_last_event_id(raw)
    store = state.store
    if isinstance(store, JournaledThreadRunStore):
        run = await load_run(state, run_id)
        frames = journal_frames(
            store,
            run_id,
            after,
            hub,
            finished=run.status is RunStatus.DONE and (hub is None or hub.closed),
            max_batch=state.config.sse_buffer_size,
        )
        metrics = state.metrics
        metrics.sse_connections.inc()
        return sse_response(
            frames,
            heartbeat_interval=state.config.heartbeat_interval_secs,
            on_close=metrics.sse_connections.dec,
        )
    if hub is None:
        await load_run(state, run_id)
        return Response(status_code=204)
    return stream_hub(state, hub, after)


async def run_inputs(request: Request) -> Response:
    """``POST /v1/runs/:id/inputs``: more messages for a run (202)."""
    state = state_of(request)
    run = await load_run(state, request.path_params["id"])
    data = await read_json_object(request)
    messages = parse_input_messages(field(data, "messages"))
    mode = str(data.get("mode") or "queue")
    if mode in ("queue", "resume_open_run") and run.is_resumable_waiting():
        await state.mailbox.submit_background(
            RunSubmission(
                thread_id=run.thread_id,
                messages=messages,
                agent_id=run.agent_id,
                continue_run_id=run.run_id,
            )
        )
    elif mode in ("live_then_queue", "steer"):
        await state.mailbox.submit_live_then_queue(
            RunSubmission(
                thread_id=run.thread_id,
                messages=messages,
                agent_id=run.agent_id,
                user_id=run_user_id(request, body_user_id(data)),
            ),
            expected_run_id=run.run_id,
        )
    else:
        await load_thread(state, run.thread_id)
        user_id = run_user_id(request, body_user_id(data))
        await inject_messages(state, run.thread_id, messages, run.agent_id, mode, user_id)
    return json_response({"status": "inputs_accepted", "run_id": run.run_id}, 202)


async def cancel_run(request: Request) -> Response:
    """``POST /v1/runs/:id/cancel`` (id = run, job or thread id)."""
    return await cancel_response(state_of(request), request.path_params["id"], "run")


async def run_decision(request: Request) -> Response:
    """``POST /v1/runs/:id/decision``: approve/deny a suspended tool call (202)."""
    return await decision_response(request, state_of(request), request.path_params["id"], "run")


def run_routes() -> list[BaseRoute]:
    """The ``/v1/runs`` routes."""
    return [
        Route("/v1/runs", list_runs, methods=["GET"]),
        StreamRoute("/v1/runs", start_run, methods=["POST"]),
        Route("/v1/runs/{id}", get_run, methods=["GET"]),
        StreamRoute("/v1/runs/{id}/events", run_events, methods=["GET"]),
        Route("/v1/runs/{id}/inputs", run_inputs, methods=["POST"]),
        Route("/v1/runs/{id}/cancel", cancel_run, methods=["POST"]),
        Route("/v1/runs/{id}/decision", run_decision, methods=["POST"]),
    ]
