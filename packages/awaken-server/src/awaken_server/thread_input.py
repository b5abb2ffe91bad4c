"""Input for an existing thread: queue it, steer the live run, interrupt, or resume the open run.

The one service behind ``POST /v1/threads/:id/messages`` and ``POST /v1/runs/:id/inputs``
(spec http-api §6.1); routes parse the request, this module decides how the mailbox gets it.
"""

from __future__ import annotations

from awaken_contract.contract.message import Message

from awaken_server.errors import BadRequest, NotFound
from awaken_server.mailbox import RunSubmission, SubmitStatus
from awaken_server.state import AppState

__all__ = ["MODES", "inject_messages"]

MODES = frozenset({"queue", "live_then_queue", "steer", "interrupt_then_queue", "resume_open_run"})
"""How input joins a thread."""


async def inject_messages(
    state: AppState,
    thread_id: str,
    messages: list[Message],
    agent_id: str | None,
    mode: str,
    user_id: str | None = None,
) -> SubmitStatus:
    """Deliver input to a thread according to ``mode`` (spec http-api §6.1); a new run acts
    for ``user_id``."""
    if mode not in MODES:
        raise BadRequest(f"invalid mode: {mode}")
    mailbox = state.mailbox
    if mode in ("live_then_queue", "steer"):
        result = await mailbox.submit_live_then_queue(
            RunSubmission(
                thread_id=thread_id, messages=messages, agent_id=agent_id, user_id=user_id
            )
        )
        return result.status
    if mode == "interrupt_then_queue":
        await mailbox.interrupt(thread_id)
    continue_run_id = None
    if mode == "resume_open_run":
        thread = await state.store.load_thread(thread_id)
        if thread is None:
            raise NotFound(f"thread not found: {thread_id}")
        run = await state.store.load_run(thread.open_run_id) if thread.open_run_id else None
        if run is None or not run.is_resumable_waiting():
            raise NotFound(f"run not found: {thread.open_run_id or thread_id}")
        continue_run_id = run.run_id
        agent_id = run.agent_id
    result = await mailbox.submit_background(
        RunSubmission(
            thread_id=thread_id,
            messages=messages,
            agent_id=agent_id,
            continue_run_id=continue_run_id,
            user_id=user_id,
        )
    )
    return result.status
