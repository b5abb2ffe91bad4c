"""Tool progress: the activity payload a running tool reports."""

from __future__ import annotations

import enum

import msgspec

from awaken_contract.codec import is_unset

TOOL_CALL_PROGRESS_ACTIVITY_TYPE = "tool-call-progress"
TOOL_CALL_PROGRESS_SCHEMA = "tool-call-progress.v1"


class ProgressStatus(enum.StrEnum):
    """Status of a tool's progress report."""

    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


class ToolCallProgressState(msgspec.Struct, omit_defaults=True, gc=False):
    """Content of a ``tool-call-progress`` activity snapshot."""

    node_id: str
    call_id: str
    tool_name: str
    status: ProgressStatus
    schema: str = msgspec.UNSET  # type: ignore[assignment]  # always written
    progress: float | None = None
    loaded: int | None = None
    total: int | None = None
    message: str | None = None
    parent_node_id: str | None = None
    parent_call_id: str | None = None
    run_id: str | None = None
    parent_run_id: str | None = None
    thread_id: str | None = None

    def __post_init__(self) -> None:
        if is_unset(self.schema):
            self.schema = TOOL_CALL_PROGRESS_SCHEMA
