"""Parallel tool modes re-check a gated call once earlier calls of the step have committed."""

from typing import Any

import pytest
from awaken_contract.actions import InterceptBlock, InterceptSuspend
from awaken_contract.contract.event import ToolCallDone
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.suspension import SuspendTicket, Suspension, ToolCallOutcome
from awaken_contract.contract.tool import (
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolExecutionMode,
    ToolOutput,
    ToolResult,
)
from awaken_contract.plugin import (
    PhaseContext,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
    ToolGateHook,
)
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import KeyScope, MergeStrategy, StateCommand, StateKey, StateKeyOptions
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step

PARALLEL = [ToolExecutionMode.PARALLEL_STREAMING, ToolExecutionMode.PARALLEL_BATCH_APPROVAL]


class Unlocked(StateKey[bool, bool]):
    KEY = "test.unlocked"
    MERGE = MergeStrategy.EXCLUSIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: bool, update: bool) -> bool:
        return update


class Unlock(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("unlock", "unlock", "Unlock the vault")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolOutput:
        return ToolOutput.with_command(
            ToolResult.success("unlock", {"unlocked": True}), StateCommand().update(Unlocked, True)
        )


class Vault(Tool):
    def __init__(self) -> None:
        self.opened = 0

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("vault", "vault", "Open the vault")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.opened += 1
        return ToolResult.success("vault", {"opened": True})


class LockGate(ToolGateHook):
    def __init__(self, suspend: bool) -> None:
        self.suspend = suspend

    async def run(self, ctx: PhaseContext) -> Any:
        if ctx.tool_name != "vault" or ctx.state(Unlocked):
            return None
        if self.suspend:
            return InterceptSuspend(SuspendTicket(suspension=Suspension(id="s1", action="unlock")))
        return InterceptBlock("the vault is locked")


class LockPlugin(Plugin):
    def __init__(self, suspend: bool = False) -> None:
        self.suspend = suspend

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("lock")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(Unlocked, StateKeyOptions(scope=KeyScope.RUN))
        registrar.register_tool_gate_hook("lock", LockGate(self.suspend))


async def run_step(mode: ToolExecutionMode, calls: list[ToolCall], *, suspend: bool = False):
    vault = Vault()
    llm = ScriptedLlm([tool_step(calls), text_step("done")])
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m").with_plugin("lock"))
        .with_tool("unlock", Unlock())
        .with_tool("vault", vault)
        .with_plugin("lock", LockPlugin(suspend))
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="x"))
        .with_tool_execution_mode(mode)
        .build()
    )
    sink = VecEventSink()
    result = await runtime.run(RunRequest("t", [Message.user("go")]).with_agent_id("a"), sink)
    done = {e.id: e for e in sink.take() if isinstance(e, ToolCallDone)}
    return result, done, vault


@pytest.mark.parametrize("mode", PARALLEL)
@pytest.mark.parametrize("suspend", [False, True])
async def test_gate_is_rechecked_after_an_earlier_call_unlocks(
    mode: ToolExecutionMode, suspend: bool
) -> None:
    calls = [ToolCall("c1", "unlock", {}), ToolCall("c2", "vault", {})]
    result, done, vault = await run_step(mode, calls, suspend=suspend)
    assert result.response == "done", result.termination
    assert done["c2"].outcome is ToolCallOutcome.SUCCEEDED, done["c2"].result
    assert vault.opened == 1


@pytest.mark.parametrize("mode", PARALLEL)
async def test_a_gate_still_closed_after_the_recheck_blocks(mode: ToolExecutionMode) -> None:
    # the vault call comes first: nothing earlier unlocks it, so it stays blocked
    calls = [ToolCall("c1", "vault", {}), ToolCall("c2", "unlock", {})]
    result, done, vault = await run_step(mode, calls)
    assert result.termination.type is TerminationKind.BLOCKED
    assert done["c1"].outcome is ToolCallOutcome.FAILED
    assert done["c1"].result.message == "the vault is locked"
    assert vault.opened == 0


@pytest.mark.parametrize("mode", PARALLEL)
async def test_calls_after_a_rechecked_call_all_run_in_model_order(
    mode: ToolExecutionMode,
) -> None:
    calls = [
        ToolCall("c1", "unlock", {}),
        ToolCall("c2", "vault", {}),
        ToolCall("c3", "unlock", {}),
    ]
    result, done, vault = await run_step(mode, calls)
    assert result.response == "done"
    assert vault.opened == 1
    assert list(done) == ["c1", "c2", "c3"]
    assert all(d.outcome is ToolCallOutcome.SUCCEEDED for d in done.values())
