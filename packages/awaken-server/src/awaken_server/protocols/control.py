"""Thread control routes shared by the protocol adapters: cancel and interrupt."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from awaken_server.app import state_of
from awaken_server.errors import NotFound
from awaken_server.wire import json_response


async def cancel_thread(request: Request) -> Response:
    """``POST …/threads/:thread_id/cancel``: cancel the thread's run (202, or 404)."""
    thread_id = request.path_params["thread_id"]
    if not await state_of(request).mailbox.cancel(thread_id):
        raise NotFound(f"thread not found: {thread_id}")
    return json_response({"status": "cancel_requested", "thread_id": thread_id}, 202)


async def interrupt_thread(request: Request) -> Response:
    """``POST …/threads/:thread_id/interrupt``: supersede queued work, cancel the active run."""
    thread_id = request.path_params["thread_id"]
    result = await state_of(request).mailbox.interrupt(thread_id)
    if result.active_job is None and result.superseded_count == 0:
        raise NotFound(f"thread not found: {thread_id}")
    body = {
        "status": "interrupt_requested",
        "thread_id": thread_id,
        "superseded_dispatches": result.superseded_count,
    }
    return json_response(body, 202)
