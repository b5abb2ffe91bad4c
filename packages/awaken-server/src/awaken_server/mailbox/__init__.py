"""The durable mailbox: jobs, leased workers, sweep, GC, interrupts and HITL decisions."""

from awaken_server.mailbox.config import MailboxConfig
from awaken_server.mailbox.service import (
    Mailbox,
    SubmitHandle,
    SubmitResult,
    SubmitStatus,
    WorkerState,
)
from awaken_server.mailbox.sink import FanoutEventSink, ReconnectableEventSink
from awaken_server.mailbox.submission import JobExtras, RunSubmission

__all__ = [
    "FanoutEventSink",
    "JobExtras",
    "Mailbox",
    "MailboxConfig",
    "ReconnectableEventSink",
    "RunSubmission",
    "SubmitHandle",
    "SubmitResult",
    "SubmitStatus",
    "WorkerState",
]
