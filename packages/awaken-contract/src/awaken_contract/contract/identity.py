"""Who and what a run is: its ids, lineage and origin."""

from __future__ import annotations

import enum

import msgspec

from awaken_contract.codec import is_unset


class RunOrigin(enum.StrEnum):
    """Where a run came from."""

    USER = "user"
    SUBAGENT = "subagent"
    INTERNAL = "internal"


class RunRequestOrigin(enum.StrEnum):
    """Who asked for the run, on the request and on its stored record (wire values are Pascal
    case). The runtime maps it to the run identity's :class:`RunOrigin`."""

    USER = "User"
    A2A = "A2A"
    INTERNAL = "Internal"


class RunMode(enum.StrEnum):
    """How a run was started."""

    FOREGROUND = "foreground"
    SCHEDULED = "scheduled"
    RESUME = "resume"
    INTERNAL_WAKE = "internal_wake"


class AdapterKind(enum.StrEnum):
    """Which protocol adapter started the run."""

    INTERNAL = "internal"
    ACP = "acp"
    AI_SDK = "ai_sdk"
    AG_UI = "ag_ui"
    A2A = "a2a"


def _blank_to_none(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return value or None


class RunIdentity(msgspec.Struct, omit_defaults=True, gc=False):
    """Flat identity of a run: ids, lineage, trace ids, origin, mode and adapter."""

    thread_id: str
    run_id: str
    agent_id: str
    # UNSET default + __post_init__: defaults to USER but is always written to JSON.
    origin: RunOrigin = msgspec.UNSET  # type: ignore[assignment]
    parent_thread_id: str | None = None
    parent_run_id: str | None = None
    parent_tool_call_id: str | None = None
    dispatch_id: str | None = None
    session_id: str | None = None
    transport_request_id: str | None = None
    run_mode: RunMode = RunMode.FOREGROUND
    adapter: AdapterKind = AdapterKind.INTERNAL
    #: W3C ``traceparent`` of the request that started the run (tracing continues it).
    trace_parent: str | None = None
    #: The user the run acts for (Profile-scoped keys kept per user resolve to it).
    user_id: str | None = None

    def __post_init__(self) -> None:
        if is_unset(self.origin):
            self.origin = RunOrigin.USER
        # blank optional ids become None (checked inline: one identity per run)
        if self.parent_tool_call_id is not None:
            self.parent_tool_call_id = _blank_to_none(self.parent_tool_call_id)
        if self.dispatch_id is not None:
            self.dispatch_id = _blank_to_none(self.dispatch_id)
        if self.session_id is not None:
            self.session_id = _blank_to_none(self.session_id)
        if self.transport_request_id is not None:
            self.transport_request_id = _blank_to_none(self.transport_request_id)
        if self.user_id is not None:
            self.user_id = _blank_to_none(self.user_id)

    @classmethod
    def for_test(cls, thread_id: str = "thread-test", run_id: str = "run-test") -> RunIdentity:
        """An identity suitable for unit tests."""
        return cls(thread_id=thread_id, run_id=run_id, agent_id="test-agent")
