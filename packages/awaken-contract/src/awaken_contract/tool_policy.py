"""Tool policies: a simpler gate interface that sees only the call and the run's identity.

A :class:`ToolPolicyHook` receives a :class:`ToolPolicyContext` and answers with a
:class:`ToolPolicyDecision`. ``PluginRegistrar.register_tool_policy_hook`` adapts it into a
tool-gate hook: Allow / AuditOnly → proceed, Deny → Block, Suspend → Suspend,
ReplaceResult → SetResult.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from typing import Any

import msgspec

from awaken_contract.actions import (
    InterceptBlock,
    InterceptSetResult,
    InterceptSuspend,
    ToolInterceptPayload,
)
from awaken_contract.contract.identity import AdapterKind, RunMode
from awaken_contract.contract.suspension import SuspendTicket
from awaken_contract.contract.tool import ToolResult
from awaken_contract.errors import DecodeError
from awaken_contract.hooks import PhaseContext, ToolGateHook, ToolKind
from awaken_contract.state import decode_value

__all__ = [
    "ToolPolicyContext",
    "ToolPolicyDecision",
    "ToolPolicyDecisionKind",
    "ToolPolicyGateHook",
    "ToolPolicyHook",
]


class ToolPolicyContext(msgspec.Struct):
    """What a policy sees: run ids, mode, adapter, and the call (name, kind, arguments).

    ``dispatch_id`` is omitted from JSON when unset; every other key is always written.
    """

    thread_id: str
    run_id: str
    tool_name: str
    arguments: Any = None
    tool_kind: ToolKind = ToolKind.OTHER
    dispatch_id: str | msgspec.UnsetType = msgspec.UNSET
    run_mode: RunMode = RunMode.FOREGROUND
    adapter: AdapterKind = AdapterKind.INTERNAL

    @classmethod
    def from_phase_context(cls, ctx: PhaseContext) -> ToolPolicyContext | None:
        """Build from a gate context; ``None`` when the context names no tool."""
        if not ctx.tool_name:
            return None
        ident = ctx.run_identity
        return cls(
            thread_id=ident.thread_id,
            run_id=ident.run_id,
            tool_name=ctx.tool_name,
            arguments=ctx.tool_args,
            tool_kind=ctx.tool_kind or ToolKind.infer(ctx.tool_name),
            dispatch_id=ident.dispatch_id if ident.dispatch_id is not None else msgspec.UNSET,
            run_mode=ident.run_mode,
            adapter=ident.adapter,
        )


class ToolPolicyDecisionKind(enum.StrEnum):
    """The decision variants (wire names are Pascal)."""

    ALLOW = "Allow"
    DENY = "Deny"
    SUSPEND = "Suspend"
    REPLACE_RESULT = "ReplaceResult"
    AUDIT_ONLY = "AuditOnly"


class ToolPolicyDecision:
    """A policy's answer. JSON is externally tagged: ``"Allow"``, ``{"Deny": {"reason"}}``,
    ``{"Suspend": SuspendTicket}``, ``{"ReplaceResult": ToolResult}``, ``"AuditOnly"``."""

    __slots__ = ("kind", "reason", "result", "ticket")

    def __init__(
        self,
        kind: ToolPolicyDecisionKind,
        *,
        reason: str | None = None,
        ticket: SuspendTicket | None = None,
        result: ToolResult | None = None,
    ) -> None:
        self.kind = kind
        self.reason = reason
        self.ticket = ticket
        self.result = result

    @classmethod
    def allow(cls) -> ToolPolicyDecision:
        """Let the call run."""
        return cls(ToolPolicyDecisionKind.ALLOW)

    @classmethod
    def audit_only(cls) -> ToolPolicyDecision:
        """Let the call run (the policy only observed it)."""
        return cls(ToolPolicyDecisionKind.AUDIT_ONLY)

    @classmethod
    def deny(cls, reason: str) -> ToolPolicyDecision:
        """Block the call with a reason."""
        return cls(ToolPolicyDecisionKind.DENY, reason=reason)

    @classmethod
    def suspend(cls, ticket: SuspendTicket) -> ToolPolicyDecision:
        """Park the call for a decision."""
        return cls(ToolPolicyDecisionKind.SUSPEND, ticket=ticket)

    @classmethod
    def replace_result(cls, result: ToolResult) -> ToolPolicyDecision:
        """Skip execution and use ``result``."""
        return cls(ToolPolicyDecisionKind.REPLACE_RESULT, result=result)

    def to_intercept(self) -> ToolInterceptPayload | None:
        """The equivalent intercept (``None`` = proceed)."""
        kind = self.kind
        if kind is ToolPolicyDecisionKind.DENY:
            return InterceptBlock(self.reason or "")
        if kind is ToolPolicyDecisionKind.SUSPEND and self.ticket is not None:
            return InterceptSuspend(self.ticket)
        if kind is ToolPolicyDecisionKind.REPLACE_RESULT and self.result is not None:
            return InterceptSetResult(self.result)
        return None

    def to_json_value(self) -> Any:
        """Externally tagged JSON data."""
        kind = self.kind
        if kind is ToolPolicyDecisionKind.DENY:
            return {kind.value: {"reason": self.reason or ""}}
        if kind is ToolPolicyDecisionKind.SUSPEND:
            return {kind.value: msgspec.to_builtins(self.ticket)}
        if kind is ToolPolicyDecisionKind.REPLACE_RESULT:
            return {kind.value: msgspec.to_builtins(self.result)}
        return kind.value

    @classmethod
    def from_json_value(cls, data: Any) -> ToolPolicyDecision:
        """Parse externally tagged JSON data (raises ``DecodeError``)."""
        if data in ("Allow", "AuditOnly"):
            return cls(ToolPolicyDecisionKind(data))
        if isinstance(data, dict) and len(data) == 1:
            ((tag, body),) = data.items()
            if tag == "Deny" and isinstance(body, dict) and isinstance(body.get("reason"), str):
                return cls.deny(body["reason"])
            if tag == "Suspend":
                return cls.suspend(decode_value(body, SuspendTicket, key="ToolPolicyDecision"))
            if tag == "ReplaceResult":
                return cls.replace_result(decode_value(body, ToolResult, key="ToolPolicyDecision"))
        raise DecodeError("ToolPolicyDecision", f"unexpected value {data!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolPolicyDecision):
            return NotImplemented
        return bool(self.to_json_value() == other.to_json_value())

    def __hash__(self) -> int:
        return hash(repr(self.to_json_value()))

    def __repr__(self) -> str:
        return f"ToolPolicyDecision({self.to_json_value()!r})"


class ToolPolicyHook(ABC):
    """Decides about a tool call from its :class:`ToolPolicyContext`."""

    @abstractmethod
    async def evaluate(self, ctx: ToolPolicyContext) -> ToolPolicyDecision:
        """Return the decision for this call."""


class ToolPolicyGateHook(ToolGateHook):
    """Adapts a :class:`ToolPolicyHook` into a tool-gate hook."""

    __slots__ = ("policy",)

    def __init__(self, policy: ToolPolicyHook) -> None:
        self.policy = policy

    async def run(self, ctx: PhaseContext) -> ToolInterceptPayload | None:
        policy_ctx = ToolPolicyContext.from_phase_context(ctx)
        if policy_ctx is None:
            return None
        decision = await self.policy.evaluate(policy_ctx)
        return decision.to_intercept()
