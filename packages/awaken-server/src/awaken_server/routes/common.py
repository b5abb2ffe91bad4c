"""Helpers shared by the thread and run routes."""

from __future__ import annotations

from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.storage import RunRecord, Thread
from starlette.requests import Request
from starlette.responses import StreamingResponse

from awaken_server.errors import BadRequest, NotFound
from awaken_server.sse import RunEventHub
from awaken_server.sse_response import DisconnectWatch, watched_stream
from awaken_server.state import AppState

__all__ = ["load_run", "load_thread", "status_filter", "stream_hub"]


def status_filter(request: Request) -> RunStatus | None:
    """The ``status`` query parameter (created/running/waiting/done) or 400."""
    raw = request.query_params.get("status")
    if raw is None or raw == "":
        return None
    try:
        return RunStatus(raw)
    except ValueError:
        raise BadRequest(f"invalid status filter: {raw}") from None


async def load_thread(state: AppState, thread_id: str) -> Thread:
    """The thread or 404 ``thread not found: <id>``."""
    thread = await state.store.load_thread(thread_id)
    if thread is None:
        raise NotFound(f"thread not found: {thread_id}")
    return thread


async def load_run(state: AppState, run_id: str) -> RunRecord:
    """The run or 404 ``run not found: <id>``."""
    run = await state.store.load_run(run_id)
    if run is None:
        raise NotFound(f"run not found: {run_id}")
    return run


def stream_hub(
    state: AppState,
    hub: RunEventHub,
    after: int | None,
    reserved: int | None = None,
    headers: dict[str, str] | None = None,
) -> StreamingResponse:
    """SSE of a run's hub from ``after`` (replay, then live) until the next terminal event
    (with extra response ``headers``)."""
    watch = DisconnectWatch()
    frames = hub.stream(
        after,
        heartbeat=state.config.heartbeat_interval_secs,
        reserved=reserved,
        max_batch=state.config.sse_buffer_size,
        before_wait=watch,
    )
    return watched_stream(frames, watch, state.metrics.sse_connections, headers)
