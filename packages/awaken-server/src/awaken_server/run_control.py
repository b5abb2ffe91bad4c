"""Cancel, interrupt and decision answers shared by the native and protocol routes.

``kind`` names what the id in the path is (``"run"`` or ``"thread"``): it picks the 404
message (``<kind> not found: <id>``) and the id key of the 202 body (``<kind>_id``).
"""

from __future__ import annotations

from typing import Literal

from starlette.requests import Request
from starlette.responses import Response

from awaken_server.errors import NotFound
from awaken_server.state import AppState
from awaken_server.wire import json_response, parse_decision, read_json_object

TargetKind = Literal["run", "thread"]


async def cancel_response(state: AppState, target_id: str, kind: TargetKind) -> Response:
    """Cancel the run behind a run, job or thread id: 202 ``cancel_requested`` or 404."""
    if not await state.mailbox.cancel(target_id):
        raise NotFound(f"{kind} not found: {target_id}")
    return json_response({"status": "cancel_requested", f"{kind}_id": target_id}, 202)


async def interrupt_response(state: AppState, thread_id: str) -> Response:
    """Supersede a thread's queued jobs and cancel its active run: 202 or 404."""
    result = await state.mailbox.interrupt(thread_id)
    if result.active_job is None and result.superseded_count == 0:
        raise NotFound(f"thread not found: {thread_id}")
    body = {
        "status": "interrupt_requested",
        "thread_id": thread_id,
        "superseded_dispatches": result.superseded_count,
    }
    return json_response(body, 202)


async def decision_response(
    request: Request, state: AppState, target_id: str, kind: TargetKind
) -> Response:
    """Deliver the body's tool-call decision to a run or thread: 202 ``decision_submitted``."""
    call_id, resume = parse_decision(await read_json_object(request))
    thread_scoped = kind == "thread"
    if await state.mailbox.decide(target_id, call_id, resume, thread_scoped=thread_scoped) is None:
        raise NotFound(f"{kind} not found: {target_id}")
    body = {"status": "decision_submitted", f"{kind}_id": target_id, "tool_call_id": call_id}
    return json_response(body, 202)
