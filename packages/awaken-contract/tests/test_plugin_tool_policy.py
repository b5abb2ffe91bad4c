"""Tool policies: decision JSON, mapping to intercepts, and the gate adapter."""

from __future__ import annotations

import msgspec
import pytest
from awaken_contract.actions import InterceptBlock, InterceptSetResult, InterceptSuspend
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.suspension import PendingToolCall, SuspendTicket
from awaken_contract.contract.tool import ToolResult
from awaken_contract.errors import DecodeError
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext, ToolKind
from awaken_contract.tool_policy import (
    ToolPolicyContext,
    ToolPolicyDecision,
    ToolPolicyGateHook,
    ToolPolicyHook,
)


def test_decision_golden_json_round_trip() -> None:
    ticket = SuspendTicket(pending=PendingToolCall("c1", "rm", {"p": "/"}))
    cases = [
        (ToolPolicyDecision.allow(), "Allow"),
        (ToolPolicyDecision.audit_only(), "AuditOnly"),
        (ToolPolicyDecision.deny("nope"), {"Deny": {"reason": "nope"}}),
        (ToolPolicyDecision.suspend(ticket), {"Suspend": msgspec.to_builtins(ticket)}),
    ]
    for decision, data in cases:
        assert decision.to_json_value() == data
        assert ToolPolicyDecision.from_json_value(data) == decision
    replaced = ToolPolicyDecision.replace_result(ToolResult.success("t", 1))
    parsed = ToolPolicyDecision.from_json_value(replaced.to_json_value())
    assert parsed.result is not None and parsed.result.data == 1
    with pytest.raises(DecodeError):
        ToolPolicyDecision.from_json_value({"Deny": {}})
    with pytest.raises(DecodeError):
        ToolPolicyDecision.from_json_value("Maybe")


def test_decisions_map_to_intercepts() -> None:
    ticket = SuspendTicket()
    result = ToolResult.error("t", "replaced")
    assert ToolPolicyDecision.allow().to_intercept() is None
    assert ToolPolicyDecision.audit_only().to_intercept() is None
    assert ToolPolicyDecision.deny("x").to_intercept() == InterceptBlock("x")
    assert ToolPolicyDecision.suspend(ticket).to_intercept() == InterceptSuspend(ticket)
    assert ToolPolicyDecision.replace_result(result).to_intercept() == InterceptSetResult(result)


class DenyShell(ToolPolicyHook):
    def __init__(self) -> None:
        self.seen: list[ToolPolicyContext] = []

    async def evaluate(self, ctx: ToolPolicyContext) -> ToolPolicyDecision:
        self.seen.append(ctx)
        if ctx.tool_kind is ToolKind.EXECUTE:
            return ToolPolicyDecision.deny(f"{ctx.tool_name} is not allowed")
        return ToolPolicyDecision.allow()


async def test_gate_adapter_builds_policy_context() -> None:
    policy = DenyShell()
    gate = ToolPolicyGateHook(policy)
    base = PhaseContext.test_default(Phase.TOOL_GATE).replace(
        run_identity=RunIdentity(thread_id="t1", run_id="r1", agent_id="a", dispatch_id="d1")
    )
    assert await gate.run(base) is None  # no tool name: no decision
    assert policy.seen == []
    blocked = await gate.run(base.replace(tool_name="bash", tool_args={"command": "ls"}))
    assert blocked == InterceptBlock("bash is not allowed")
    assert await gate.run(base.replace(tool_name="read_file")) is None
    first = policy.seen[0]
    assert (first.thread_id, first.run_id, first.dispatch_id) == ("t1", "r1", "d1")
    assert first.arguments == {"command": "ls"} and first.tool_kind is ToolKind.EXECUTE
    assert msgspec.to_builtins(first)["run_mode"] == "foreground"


def test_policy_context_json_omits_only_unset_dispatch_id() -> None:
    ctx = ToolPolicyContext(thread_id="t", run_id="r", tool_name="x")
    assert msgspec.to_builtins(ctx) == {
        "thread_id": "t",
        "run_id": "r",
        "tool_name": "x",
        "arguments": None,
        "tool_kind": "other",
        "run_mode": "foreground",
        "adapter": "internal",
    }
