"""The tool call states key: the state of every tool call of the run by call id."""

from __future__ import annotations

import msgspec

from awaken_contract.contract.suspension import ToolCallState, ToolCallStatus
from awaken_contract.state import KeyScope, MergeStrategy, StateKey

# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_NEW = ToolCallStatus.NEW


class ToolCallStatesMap(msgspec.Struct):
    """``{"calls": {call_id: ToolCallState}}``."""

    calls: dict[str, ToolCallState] = msgspec.field(default_factory=dict)

    def get(self, call_id: str) -> ToolCallState | None:
        """The state of one call."""
        return self.calls.get(call_id)

    def with_status(self, status: ToolCallStatus) -> list[ToolCallState]:
        """Calls currently in ``status``, sorted by call id."""
        return sorted(
            (s for s in self.calls.values() if s.status is status), key=lambda s: s.call_id
        )


class PutToolCallState(msgspec.Struct, frozen=True):
    """Set one call's state (skipped when its status cannot move to the new one)."""

    state: ToolCallState


class ClearToolCallStates(msgspec.Struct, frozen=True, gc=False):
    """Forget every call state."""


#: What clearing leaves: one empty map shared by every run (state values are never mutated in
#: place; ``apply`` copies), so a cleared run keeps no map and dict of its own (ADR 0034).
_CLEARED = ToolCallStatesMap()


class ToolCallStatesKey(StateKey[ToolCallStatesMap, PutToolCallState | ClearToolCallStates]):
    """``__runtime.tool_call_states`` (thread scoped, commutative)."""

    KEY = "__runtime.tool_call_states"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.THREAD

    @classmethod
    def apply(
        cls, value: ToolCallStatesMap, update: PutToolCallState | ClearToolCallStates
    ) -> ToolCallStatesMap:
        if isinstance(update, ClearToolCallStates):
            return _CLEARED
        new = update.state
        current = value.calls.get(new.call_id)
        status = current.status if current is not None else _NEW
        if not status.can_transition_to(new.status):
            return value
        calls = dict(value.calls)
        calls[new.call_id] = new
        return ToolCallStatesMap(calls)
