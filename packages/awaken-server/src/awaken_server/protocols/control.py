"""Thread control routes shared by the protocol adapters: cancel and interrupt."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from awaken_server.run_control import cancel_response, interrupt_response
from awaken_server.state import state_of


async def cancel_thread(request: Request) -> Response:
    """``POST …/threads/:thread_id/cancel``: cancel the thread's run (202, or 404)."""
    return await cancel_response(state_of(request), request.path_params["thread_id"], "thread")


async def interrupt_thread(request: Request) -> Response:
    """``POST …/threads/:thread_id/interrupt``: supersede queued work, cancel the active run."""
    return await interrupt_response(state_of(request), request.path_params["thread_id"])
