"""RunSubmission: one request to run an agent, and its round trip through a job's extras.

Every way into the server (``POST /v1/runs``, thread messages, decisions, protocol adapters)
describes the run it wants as a :class:`RunSubmission`; the mailbox stores it as a durable
:class:`MailboxJob` (messages on the job, everything else in ``request_extras``) and rebuilds the
:class:`RunRequest` from the job when a worker executes it — possibly in another process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec
from awaken_contract.contract.identity import AdapterKind, RunMode
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.request import RunRequestOrigin as RequestOrigin
from awaken_contract.contract.run_plan import RunPlan
from awaken_contract.contract.storage import RunRequestOrigin
from awaken_contract.contract.suspension import ToolCallResume
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.registry_spec import InferenceOverride

from awaken_server.trace_context import incoming_trace_parent

__all__ = ["JobExtras", "RunSubmission"]


class JobExtras(msgspec.Struct, omit_defaults=True):
    """The ``request_extras`` of a job (spec mailbox §1.3)."""

    overrides: dict[str, Any] | None = None
    decisions: list[tuple[str, ToolCallResume]] = msgspec.field(default_factory=list)
    frontend_tools: list[ToolDescriptor] = msgspec.field(default_factory=list)
    continue_run_id: str | None = None
    run_id_hint: str | None = None
    parent_thread_id: str | None = None
    transport_request_id: str | None = None
    trace_parent: str | None = None
    run_mode: RunMode = RunMode.FOREGROUND
    adapter: AdapterKind = AdapterKind.INTERNAL
    user_id: str | None = None

    def is_default(self) -> bool:
        """True when every field has its default (the extras are then omitted)."""
        return self == _DEFAULT_EXTRAS


_DEFAULT_EXTRAS = JobExtras()
"""(compared with, never handed out)"""


@dataclass(slots=True)
class RunSubmission:
    """What a caller asks the mailbox to run."""

    thread_id: str | None = None
    messages: list[Message] = field(default_factory=list)
    agent_id: str | None = None
    origin: RunRequestOrigin = RunRequestOrigin.USER
    adapter: AdapterKind = AdapterKind.INTERNAL
    decisions: list[tuple[str, ToolCallResume]] = field(default_factory=list)
    frontend_tools: list[ToolDescriptor] = field(default_factory=list)
    overrides: InferenceOverride | None = None
    continue_run_id: str | None = None
    run_id_hint: str | None = None
    parent_run_id: str | None = None
    parent_thread_id: str | None = None
    transport_request_id: str | None = None
    trace_parent: str | None = field(default_factory=incoming_trace_parent)
    """W3C ``traceparent`` of the HTTP request that submitted the run."""
    user_id: str | None = None
    """The user the run acts for (the authenticated user or the body's ``userId``)."""

    def extras(self, run_mode: RunMode) -> JobExtras:
        """The durable extras of this submission."""
        overrides = None
        if self.overrides is not None and not self.overrides.is_empty():
            overrides = self.overrides.model_dump(mode="json")
        return JobExtras(
            overrides=overrides,
            decisions=list(self.decisions),
            frontend_tools=list(self.frontend_tools),
            continue_run_id=self.continue_run_id,
            run_id_hint=self.run_id_hint,
            parent_thread_id=self.parent_thread_id,
            transport_request_id=self.transport_request_id,
            trace_parent=self.trace_parent,
            run_mode=run_mode,
            adapter=self.adapter,
            user_id=self.user_id,
        )

    def run_mode(self, *, background: bool) -> RunMode:
        """Run mode normalization: decisions/continue → resume; internal → internal_wake;
        background → scheduled; else foreground."""
        if self.decisions or self.continue_run_id:
            return RunMode.RESUME
        if self.origin is RunRequestOrigin.INTERNAL:
            return RunMode.INTERNAL_WAKE
        return RunMode.SCHEDULED if background else RunMode.FOREGROUND


def extras_of(raw: Any) -> JobExtras:
    """Decode a job's ``request_extras`` (missing → defaults)."""
    if raw is None:
        return JobExtras()
    return msgspec.convert(raw, JobExtras)


def extras_to_builtins(extras: JobExtras) -> Any | None:
    """The JSON form stored on the job (``None`` when all defaults)."""
    return None if extras.is_default() else msgspec.to_builtins(extras)


def build_request(
    *,
    thread_id: str,
    plan: RunPlan,
    messages: list[Message],
    origin: RunRequestOrigin,
    extras: JobExtras,
    parent_run_id: str | None,
    dispatch_id: str,
    session_id: str,
) -> RunRequest:
    """The runtime request a worker executes for a job: the job's input under ``plan``."""
    request = RunRequest(
        thread_id=thread_id,
        messages=list(messages),
        agent_id=plan.agent_id or None,
        decisions=list(extras.decisions),
        frontend_tools=list(extras.frontend_tools),
        origin=RequestOrigin(origin.value),
        run_mode=extras.run_mode,
        adapter=extras.adapter,
        parent_run_id=parent_run_id,
        parent_thread_id=extras.parent_thread_id,
        dispatch_id=dispatch_id,
        session_id=session_id,
        transport_request_id=extras.transport_request_id,
        trace_parent=extras.trace_parent,
        plan=plan,
        user_id=extras.user_id,
    )
    if extras.overrides:
        request.overrides = InferenceOverride.model_validate(extras.overrides)
    return request
