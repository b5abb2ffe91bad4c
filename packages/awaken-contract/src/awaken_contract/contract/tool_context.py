"""``ToolCallContext``: what a tool sees while it runs (ids, identity, spec, state, sinks)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from awaken_contract.codec import to_builtins
from awaken_contract.contract.event import ActivityDelta, ActivitySnapshot, ToolCallStreamDelta
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.progress import (
    TOOL_CALL_PROGRESS_ACTIVITY_TYPE,
    ProgressStatus,
    ToolCallProgressState,
)

if TYPE_CHECKING:
    from awaken_contract.contract.cancellation import CancellationToken
    from awaken_contract.contract.event_sink import EventSink
    from awaken_contract.contract.storage import ProfileStore
    from awaken_contract.contract.suspension import ToolCallResume
    from awaken_contract.profile import ProfileAccess
    from awaken_contract.registry_spec import AgentSpec
    from awaken_contract.state import Snapshot

__all__ = ["ToolCallContext"]


class ToolCallContext(msgspec.Struct, eq=False):
    """What a tool sees while it runs: call ids, identity, agent spec, state and progress sinks.

    ``ToolCallContext(call_id, tool_name, run_identity, agent_spec=..., snapshot=..., ...)``
    (a msgspec struct: one is made per tool call, built in C)."""

    call_id: str
    tool_name: str
    run_identity: RunIdentity
    agent_spec: AgentSpec | None = None
    snapshot: Snapshot | None = None
    activity_sink: EventSink | None = None
    cancellation_token: CancellationToken | None = None
    resume_input: ToolCallResume | None = None
    suspension_id: str | None = None
    suspension_reason: str | None = None
    profile_store: ProfileStore | None = None

    @classmethod
    def test_default(cls, call_id: str = "call-test", tool_name: str = "test") -> ToolCallContext:
        """A context for unit-testing a tool outside a run."""
        return cls(call_id, tool_name, RunIdentity.for_test())

    def state(self, key: type[Any]) -> Any:
        """The current value of state key ``key`` (a StateKey class), or None."""
        if self.snapshot is None:
            return None
        return self.snapshot.get(key)

    @property
    def profile(self) -> ProfileAccess | None:
        """Profile entries of the run's agent and user (``None`` without a profile store)."""
        if self.profile_store is None:
            return None
        from awaken_contract.profile import ProfileAccess

        agent_id = self.agent_spec.id if self.agent_spec is not None else self.run_identity.agent_id
        return ProfileAccess.for_agent(self.profile_store, agent_id, self.run_identity.user_id)

    @property
    def is_cancelled(self) -> bool:
        """True when the run was cancelled."""
        return self.cancellation_token is not None and self.cancellation_token.is_cancelled

    async def report_progress(
        self,
        status: ProgressStatus,
        message: str | None = None,
        progress: float | None = None,
    ) -> None:
        """Report progress; UIs receive an ``activity_snapshot`` of type tool-call-progress."""
        if self.activity_sink is None:
            return
        ident = self.run_identity
        parent_call = ident.parent_tool_call_id
        state = ToolCallProgressState(
            node_id=f"tool_call:{self.call_id}",
            call_id=self.call_id,
            tool_name=self.tool_name,
            status=status,
            progress=progress,
            message=message,
            parent_node_id=f"tool_call:{parent_call}" if parent_call else f"run:{ident.run_id}",
            parent_call_id=parent_call,
            run_id=ident.run_id,
            parent_run_id=ident.parent_run_id,
            thread_id=ident.thread_id,
        )
        await self.activity_sink.emit(
            ActivitySnapshot(
                message_id=self.call_id,
                activity_type=TOOL_CALL_PROGRESS_ACTIVITY_TYPE,
                content=to_builtins(state),
                replace=True,
            )
        )

    async def report_activity(self, activity_type: str, content: Any) -> None:
        """Publish a full activity snapshot of ``activity_type``."""
        if self.activity_sink is None:
            return
        await self.activity_sink.emit(
            ActivitySnapshot(
                message_id=self.call_id,
                activity_type=activity_type,
                content=content,
                replace=True,
            )
        )

    async def report_activity_delta(self, activity_type: str, patch: Any) -> None:
        """Publish a JSON-Patch delta of an activity (a single op is wrapped in a list)."""
        if self.activity_sink is None:
            return
        ops = patch if isinstance(patch, list) else [patch]
        await self.activity_sink.emit(
            ActivityDelta(message_id=self.call_id, activity_type=activity_type, patch=ops)
        )

    async def stream_output(self, delta: str) -> None:
        """Stream a piece of the tool's output to UIs."""
        if self.activity_sink is None:
            return
        await self.activity_sink.emit(
            ToolCallStreamDelta(id=self.call_id, name=self.tool_name, delta=delta)
        )
