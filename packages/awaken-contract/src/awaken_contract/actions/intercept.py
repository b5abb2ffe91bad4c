"""Tool interception: the payloads (block, suspend, set result; Block > Suspend > SetResult) and
the run-scoped ``ToolInterceptKey`` holding the winning one for the current call."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from awaken_contract.contract.suspension import SuspendTicket
from awaken_contract.contract.tool import ToolResult
from awaken_contract.errors import KeyDecode
from awaken_contract.model import Phase, ScheduledActionSpec
from awaken_contract.state import KeyScope, MergeStrategy, StateKey, decode_value


class ToolInterceptPayload:
    """What a gate or BeforeToolExecute plugin decides about a tool call.

    Variants :class:`InterceptBlock` (fail the call and end the run), :class:`InterceptSuspend`
    (park it for a decision) and :class:`InterceptSetResult` (skip execution, use this result),
    also reachable as ``ToolInterceptPayload.Block`` / ``.Suspend`` / ``.SetResult``. JSON is
    externally tagged: ``{"Block": {"reason": ...}}``, ``{"Suspend": SuspendTicket}``,
    ``{"SetResult": ToolResult}``.
    """

    __slots__ = ()
    #: Resolution priority: Block (3) > Suspend (2) > SetResult (1).
    priority: ClassVar[int] = 0
    tag: ClassVar[str] = ""

    Block: ClassVar[type[InterceptBlock]]
    Suspend: ClassVar[type[InterceptSuspend]]
    SetResult: ClassVar[type[InterceptSetResult]]

    def _body(self) -> Any:
        raise TypeError("ToolInterceptPayload is abstract; use Block, Suspend or SetResult")

    def to_json_value(self) -> dict[str, Any]:
        """The externally tagged JSON data."""
        return {self.tag: self._body()}

    @classmethod
    def from_json_value(cls, data: Any) -> ToolInterceptPayload:
        """Parse externally tagged JSON data (raises ``KeyDecode``)."""
        if not isinstance(data, dict) or len(data) != 1:
            raise KeyDecode(ToolInterceptAction.KEY, f"expected a one-key object, got {data!r}")
        ((tag, body),) = data.items()
        if tag == "Block":
            if not isinstance(body, dict) or not isinstance(body.get("reason"), str):
                raise KeyDecode(ToolInterceptAction.KEY, "Block needs a string 'reason'")
            return InterceptBlock(body["reason"])
        if tag == "Suspend":
            return InterceptSuspend(decode_value(body, SuspendTicket, key=ToolInterceptAction.KEY))
        if tag == "SetResult":
            return InterceptSetResult(decode_value(body, ToolResult, key=ToolInterceptAction.KEY))
        raise KeyDecode(ToolInterceptAction.KEY, f"unknown intercept variant {tag!r}")

    def outranks(self, other: ToolInterceptPayload | None) -> bool:
        """Whether this payload wins over ``other`` (strictly higher priority; ties keep the
        first)."""
        return other is None or self.priority > other.priority

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._body() == other._body()

    def __hash__(self) -> int:
        return hash((self.tag, repr(self._body())))

    def __repr__(self) -> str:
        slots: tuple[str, ...] = type(self).__slots__
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in slots)
        return f"{type(self).__name__}({fields})"


class InterceptBlock(ToolInterceptPayload):
    """Fail the call with ``reason``; the run ends ``Blocked``."""

    __slots__ = ("reason",)
    priority = 3
    tag = "Block"

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def _body(self) -> Any:
        return {"reason": self.reason}


class InterceptSuspend(ToolInterceptPayload):
    """Park the call until a decision arrives."""

    __slots__ = ("ticket",)
    priority = 2
    tag = "Suspend"

    def __init__(self, ticket: SuspendTicket) -> None:
        self.ticket = ticket

    def _body(self) -> Any:
        return msgspec.to_builtins(self.ticket)


class InterceptSetResult(ToolInterceptPayload):
    """Skip execution and use ``result`` (a pending result counts as a suspension)."""

    __slots__ = ("result",)
    priority = 1
    tag = "SetResult"

    def __init__(self, result: ToolResult) -> None:
        self.result = result

    def _body(self) -> Any:
        return msgspec.to_builtins(self.result)


ToolInterceptPayload.Block = InterceptBlock
ToolInterceptPayload.Suspend = InterceptSuspend
ToolInterceptPayload.SetResult = InterceptSetResult


class ToolInterceptState(msgspec.Struct):
    """The winning intercept for the tool call being executed (``None`` = proceed)."""

    payload: ToolInterceptPayload | None = None


class ToolInterceptKey(StateKey[ToolInterceptState, ToolInterceptPayload | None]):
    """``__runtime.tool_intercept``: an update keeps the higher-priority payload (ties keep the
    first); ``None`` clears it."""

    KEY = "__runtime.tool_intercept"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(
        cls, value: ToolInterceptState, update: ToolInterceptPayload | None
    ) -> ToolInterceptState:
        if update is None:
            return ToolInterceptState()
        if update.outranks(value.payload):
            return ToolInterceptState(update)
        return value


class ToolInterceptAction(ScheduledActionSpec[ToolInterceptPayload]):
    """Intercept the tool call being executed (scheduled from BeforeToolExecute hooks)."""

    KEY = "runtime.tool_intercept"
    PHASE = Phase.BEFORE_TOOL_EXECUTE

    @classmethod
    def encode_payload(cls, payload: ToolInterceptPayload) -> Any:
        return payload.to_json_value()

    @classmethod
    def decode_payload(cls, data: Any) -> ToolInterceptPayload:
        return ToolInterceptPayload.from_json_value(data)
