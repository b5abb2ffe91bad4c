"""What a delegated run reports back: :class:`DelegateRunResult` and its status."""

from __future__ import annotations

import enum
from typing import Any

import msgspec
from awaken_contract.contract.lifecycle import TerminationKind, TerminationReason

from awaken_runtime.state.remote_tasks import RemoteTaskRef

__all__ = ["DelegateOutput", "DelegateRunResult", "DelegateRunStatus", "DelegateStatus"]


class DelegateStatus(enum.StrEnum):
    """Coarse outcome of a delegated run."""

    COMPLETED = "completed"
    WAITING_INPUT = "waiting_input"
    WAITING_AUTH = "waiting_auth"
    SUSPENDED = "suspended"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMEOUT = "timeout"


_BARE = frozenset({DelegateStatus.COMPLETED, DelegateStatus.CANCELLED, DelegateStatus.TIMEOUT})


class DelegateRunStatus(msgspec.Struct, frozen=True):
    """A status with an optional message; ``str()`` is its display form (``failed: boom``)."""

    kind: DelegateStatus
    message: str | None = None

    @classmethod
    def from_termination(cls, termination: TerminationReason) -> DelegateRunStatus:
        """Map a local run's termination (natural/behaviour → completed, suspended → suspended,
        cancelled → cancelled, stopped/blocked/error → failed)."""
        kind = termination.type
        if kind in (TerminationKind.NATURAL_END, TerminationKind.BEHAVIOR_REQUESTED):
            return cls(DelegateStatus.COMPLETED)
        if kind is TerminationKind.SUSPENDED:
            return cls(DelegateStatus.SUSPENDED)
        if kind is TerminationKind.CANCELLED:
            return cls(DelegateStatus.CANCELLED)
        if kind is TerminationKind.STOPPED:
            stopped = termination.stopped_reason
            assert stopped is not None
            detail = f"stopped: {stopped.code}"
            if stopped.detail:
                detail += f" ({stopped.detail})"
            return cls(DelegateStatus.FAILED, detail)
        return cls(DelegateStatus.FAILED, f"{kind.value}: {termination.message}")

    @property
    def is_waiting(self) -> bool:
        """Waiting for input, auth or a decision (the parent call becomes pending)."""
        return self.kind in (
            DelegateStatus.WAITING_INPUT,
            DelegateStatus.WAITING_AUTH,
            DelegateStatus.SUSPENDED,
        )

    def __str__(self) -> str:
        if self.kind in _BARE:
            return self.kind.value
        if self.message:
            return f"{self.kind.value}: {self.message}"
        if self.kind is DelegateStatus.FAILED:
            return "failed: unknown error"
        return self.kind.value


class DelegateOutput(msgspec.Struct, omit_defaults=True):
    """The delegate's output: final ``text``, ``artifacts`` and backend ``raw`` data."""

    text: str | None = None
    artifacts: list[Any] = msgspec.field(default_factory=list)
    raw: Any = None


class DelegateRunResult(msgspec.Struct, kw_only=True):
    """The result of one delegated run (local or remote)."""

    agent_id: str
    status: DelegateRunStatus
    response: str = ""
    output: DelegateOutput = msgspec.field(default_factory=DelegateOutput)
    steps: int = 0
    run_id: str | None = None
    termination: TerminationReason | None = None
    remote_task: RemoteTaskRef | None = None
    """The remote task a remote backend used (persisted by the delegation tool)."""

    def tool_data(self) -> dict[str, Any]:
        """The tool result data the parent model sees."""
        return {
            "agent_id": self.agent_id,
            "status": str(self.status),
            "response": self.response,
            "output": msgspec.to_builtins(self.output),
            "steps": self.steps,
        }
