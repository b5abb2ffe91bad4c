"""What the server needs from an agent runtime, and calls into its control plane.

The server drives ``awaken_runtime.AgentRuntime`` (``run(request, sink)`` plus the active-run
control API: ``cancel``, ``cancel_and_wait_by_thread``, ``send_decision``, ``send_messages``).
It is typed structurally so that any object with ``run`` works; control methods that a runtime
lacks simply report "not delivered".
"""

from __future__ import annotations

import inspect
from typing import Any, Protocol, runtime_checkable

from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.suspension import ToolCallResume

__all__ = [
    "AgentRunner",
    "runtime_cancel",
    "runtime_cancel_and_wait",
    "runtime_send_decision",
    "runtime_send_messages",
]


@runtime_checkable
class AgentRunner(Protocol):
    """The one method every runtime has: run a request, streaming events to ``sink``."""

    async def run(self, request: RunRequest, sink: EventSink) -> Any:
        """Run to the end (or until suspended and no longer waited on)."""


async def _call(runtime: object, name: str, *args: Any) -> bool:
    method = getattr(runtime, name, None)
    if method is None:
        return False
    result = method(*args)
    if inspect.isawaitable(result):
        result = await result
    return bool(result)


async def runtime_cancel(runtime: object, id: str) -> bool:
    """Cancel the active run addressed by run id or thread id."""
    if await _call(runtime, "cancel", id):
        return True
    return await _call(runtime, "cancel_by_run_id", id) or await _call(
        runtime, "cancel_by_thread", id
    )


async def runtime_cancel_and_wait(runtime: object, thread_id: str) -> bool:
    """Cancel the thread's active run and wait (bounded by the runtime) until it released."""
    if hasattr(runtime, "cancel_and_wait_by_thread"):
        return await _call(runtime, "cancel_and_wait_by_thread", thread_id)
    return await runtime_cancel(runtime, thread_id)


async def runtime_send_decision(
    runtime: object, id: str, call_id: str, resume: ToolCallResume
) -> bool:
    """Deliver a decision to the active run addressed by run id or thread id."""
    return await _call(runtime, "send_decision", id, call_id, resume)


async def runtime_send_messages(runtime: object, id: str, messages: list[Message]) -> bool:
    """Push messages into the active run's inbox (picked up at the next step boundary)."""
    return await _call(runtime, "send_messages", id, messages)
