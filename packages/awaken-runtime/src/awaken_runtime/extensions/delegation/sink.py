"""Event plumbing of delegated runs.

* :class:`ProgressForwardingSink` — the child run's sink: forwards only the
  ``tool-call-progress`` activity snapshots of tool calls the child started (and, nested, of
  calls whose ``parent_call_id`` is one of those) to the parent's activity sink, so UIs see
  nested progress without the child's run events.
* :func:`observe_sub_runs` — a context manager that also sends **every** event of every
  delegated run started inside it (at any nesting depth) to an observer sink; the child's
  ``run_start`` carries ``parent_run_id`` and ``identity.parent_tool_call_id``.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

from awaken_contract.contract.event import ActivitySnapshot, AgentEvent, ToolCallStart
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.progress import TOOL_CALL_PROGRESS_ACTIVITY_TYPE

__all__ = ["ProgressForwardingSink", "current_sub_run_observer", "observe_sub_runs"]

_OBSERVER: contextvars.ContextVar[EventSink | None] = contextvars.ContextVar(
    "awaken_sub_run_observer", default=None
)


def current_sub_run_observer() -> EventSink | None:
    """The observer installed by the innermost :func:`observe_sub_runs`, if any."""
    return _OBSERVER.get()


@contextmanager
def observe_sub_runs(sink: EventSink) -> Iterator[EventSink]:
    """Send every event of delegated runs started in this context to ``sink``."""
    token = _OBSERVER.set(sink)
    try:
        yield sink
    finally:
        _OBSERVER.reset(token)


class ProgressForwardingSink(EventSink):
    """Forwards the child's tool progress to ``parent`` (and everything to ``observer``)."""

    __slots__ = ("child_calls", "observer", "parent")

    def __init__(self, parent: EventSink | None, observer: EventSink | None = None) -> None:
        self.parent = parent
        self.observer = observer
        self.child_calls: set[str] = set()

    async def emit(self, event: AgentEvent) -> None:
        if self.observer is not None:
            await self.observer.emit(event)
        if isinstance(event, ToolCallStart):
            self.child_calls.add(event.id)
            return
        if (
            self.parent is None
            or not isinstance(event, ActivitySnapshot)
            or event.activity_type != TOOL_CALL_PROGRESS_ACTIVITY_TYPE
        ):
            return
        if event.message_id not in self.child_calls:
            content = event.content
            parent_call = content.get("parent_call_id") if isinstance(content, dict) else None
            if parent_call not in self.child_calls:
                return
            self.child_calls.add(event.message_id)  # a grandchild's call: nested progress
        await self.parent.emit(event)
