"""RunRequest: what a caller hands the runtime to start or resume a run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from awaken_contract.contract.identity import AdapterKind, RunMode, RunRequestOrigin
from awaken_contract.contract.message import Message
from awaken_contract.contract.suspension import ToolCallResume
from awaken_contract.contract.tool import ToolDescriptor

if TYPE_CHECKING:
    from awaken_contract.contract.checkpoint_writer import CheckpointWriter
    from awaken_contract.contract.run_plan import RunPlan
    from awaken_contract.registry_spec import InferenceOverride

__all__ = ["RunRequest", "RunRequestOrigin"]


@dataclass(slots=True)
class RunRequest:
    """Input of ``AgentRuntime.run``: a thread, new messages and options.

    ``RunRequest("thread-1", [Message.user("hi")]).with_agent_id("assistant")``
    """

    thread_id: str
    messages: list[Message] = field(default_factory=list)
    agent_id: str | None = None
    messages_already_persisted: bool = False
    overrides: InferenceOverride | None = None
    decisions: list[tuple[str, ToolCallResume]] = field(default_factory=list)
    frontend_tools: list[ToolDescriptor] = field(default_factory=list)
    origin: RunRequestOrigin = RunRequestOrigin.USER
    run_mode: RunMode = RunMode.FOREGROUND
    adapter: AdapterKind = AdapterKind.INTERNAL
    parent_run_id: str | None = None
    parent_thread_id: str | None = None
    continue_run_id: str | None = None
    run_id_hint: str | None = None
    dispatch_id_hint: str | None = None
    dispatch_id: str | None = None
    session_id: str | None = None
    transport_request_id: str | None = None
    #: W3C ``traceparent`` of the caller (an HTTP request's header); tracing continues it.
    trace_parent: str | None = None
    plan: RunPlan | None = None
    """The run planned at submission (mailbox); the runtime then picks nothing itself."""
    user_id: str | None = None
    """The user the run acts for (validated by the id rule); a resumed run keeps its own."""
    checkpoint_writer: CheckpointWriter | None = None
    """Commits the run's journaled checkpoints (the mailbox's rides its job on them)."""

    def with_agent_id(self, agent_id: str) -> RunRequest:
        """Run this agent."""
        self.agent_id = agent_id
        return self

    def with_user_id(self, user_id: str) -> RunRequest:
        """Act for this user: Profile-scoped keys kept per user resolve to them."""
        self.user_id = user_id
        return self

    def with_overrides(self, overrides: InferenceOverride) -> RunRequest:
        """Run-level inference overrides."""
        self.overrides = overrides
        return self

    def with_decision(self, call_id: str, decision: ToolCallResume) -> RunRequest:
        """Add a decision for a suspended call (by call id or suspension id)."""
        self.decisions.append((call_id, decision))
        return self

    def with_decisions(self, decisions: list[tuple[str, ToolCallResume]]) -> RunRequest:
        """Add several decisions."""
        self.decisions.extend(decisions)
        return self

    def with_frontend_tools(self, tools: list[ToolDescriptor]) -> RunRequest:
        """Tools the client executes; calling one suspends the run."""
        self.frontend_tools.extend(tools)
        return self

    def with_run_id(self, run_id: str) -> RunRequest:
        """Pre-allocate the run id."""
        self.run_id_hint = run_id
        return self

    def with_continue_run_id(self, run_id: str) -> RunRequest:
        """Continue an existing run (e.g. a waiting one)."""
        self.continue_run_id = run_id
        return self

    def with_parent(self, parent_run_id: str, parent_thread_id: str | None = None) -> RunRequest:
        """Set the run's lineage."""
        self.parent_run_id = parent_run_id
        self.parent_thread_id = parent_thread_id
        return self

    def with_origin(self, origin: RunRequestOrigin) -> RunRequest:
        """Who asked for the run."""
        self.origin = origin
        return self

    def with_adapter(self, adapter: AdapterKind) -> RunRequest:
        """Which protocol adapter started the run."""
        self.adapter = adapter
        return self

    def with_run_mode(self, run_mode: RunMode) -> RunRequest:
        """How the run was started."""
        self.run_mode = run_mode
        return self

    def with_dispatch_id(self, dispatch_id: str) -> RunRequest:
        """Trace id of the mailbox job that runs this request."""
        self.dispatch_id = dispatch_id
        return self

    def with_session_id(self, session_id: str) -> RunRequest:
        """Trace id of the client session."""
        self.session_id = session_id
        return self

    def with_messages_already_persisted(self, value: bool = True) -> RunRequest:
        """The messages are already in the thread log; don't append them again."""
        self.messages_already_persisted = value
        return self
