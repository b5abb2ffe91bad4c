"""The run lifecycle state key (status, step, timestamps of the current run)."""

from __future__ import annotations

from typing import Any

import msgspec

from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.ids import now_ms
from awaken_contract.state import KeyScope, MergeStrategy, StateKey

# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_RUNNING = RunStatus.RUNNING
_WAITING = RunStatus.WAITING
_DONE = RunStatus.DONE
_CREATED = RunStatus.CREATED


class RunLifecycleState(msgspec.Struct, omit_defaults=True, gc=False):
    """``{"run_id", "status", "status_reason?", "updated_at" (ms), "step_count"}``."""

    run_id: str
    status: RunStatus
    updated_at: int
    step_count: int
    status_reason: str | None = None

    @classmethod
    def from_json_value(cls, data: Any) -> RunLifecycleState:
        """Decode, accepting ``done_reason`` / ``pause_reason`` for ``status_reason``."""
        return msgspec.convert(data, _RunLifecycleWire).to_state()


class _RunLifecycleWire(msgspec.Struct):
    run_id: str = ""
    status: RunStatus = _RUNNING
    updated_at: int = 0
    step_count: int = 0
    status_reason: str | None = None
    done_reason: str | None = None
    pause_reason: str | None = None

    def to_state(self) -> RunLifecycleState:
        reason = self.status_reason or self.done_reason or self.pause_reason
        return RunLifecycleState(self.run_id, self.status, self.updated_at, self.step_count, reason)


class RunLifecycleUpdate(msgspec.Struct, frozen=True, gc=False):
    """A lifecycle transition; build with the classmethods. ``at`` is unix ms."""

    target: RunStatus
    at: int
    run_id: str | None = None
    reason: str | None = None
    step_completed: bool = False

    @classmethod
    def start(cls, run_id: str, at: int | None = None) -> RunLifecycleUpdate:
        """Status running, reason cleared, step_count 0."""
        return cls(_RUNNING, now_ms() if at is None else at, run_id=run_id)

    @classmethod
    def step_completed_at(cls, at: int | None = None) -> RunLifecycleUpdate:
        """step_count + 1, status unchanged."""
        return cls(_RUNNING, now_ms() if at is None else at, step_completed=True)

    @classmethod
    def set_waiting(cls, pause_reason: str, at: int | None = None) -> RunLifecycleUpdate:
        """Status waiting with a reason (``suspended``, ``awaiting_tasks`` …)."""
        return cls(_WAITING, now_ms() if at is None else at, reason=pause_reason)

    @classmethod
    def set_running(cls, at: int | None = None) -> RunLifecycleUpdate:
        """Status running, reason cleared."""
        return cls(_RUNNING, now_ms() if at is None else at)

    @classmethod
    def done(cls, done_reason: str, at: int | None = None) -> RunLifecycleUpdate:
        """Status done with the done reason (``natural``, ``cancelled``, ``stopped:<code>`` …)."""
        return cls(_DONE, now_ms() if at is None else at, reason=done_reason)


class RunLifecycleKey(StateKey[RunLifecycleState, RunLifecycleUpdate]):
    """``__runtime.run_lifecycle``; updates the current status cannot reach are skipped."""

    KEY = "__runtime.run_lifecycle"
    MERGE = MergeStrategy.EXCLUSIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def default(cls) -> RunLifecycleState:
        return RunLifecycleState("", _CREATED, 0, 0)

    @classmethod
    def apply(cls, value: RunLifecycleState, update: RunLifecycleUpdate) -> RunLifecycleState:
        if not value.status.can_transition_to(update.target):
            return value
        if update.step_completed:
            return msgspec.structs.replace(
                value, step_count=value.step_count + 1, updated_at=update.at
            )
        if update.run_id is not None:
            return RunLifecycleState(update.run_id, _RUNNING, update.at, 0)
        return msgspec.structs.replace(
            value, status=update.target, status_reason=update.reason, updated_at=update.at
        )
