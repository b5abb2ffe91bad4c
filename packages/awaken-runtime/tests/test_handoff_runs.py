"""Agent handoff: overlays and registered agents switched mid-run at step boundaries."""

from typing import Any

import pytest
from awaken_contract.contract.event import RunFinish
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import (
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolOutput,
    ToolResult,
)
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext, Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import StateCommand
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.extensions.handoff import (
    ActiveAgentIdKey,
    ActiveAgentKey,
    AgentOverlay,
    HandoffPlugin,
    HandoffState,
    activate_handoff,
    clear_handoff,
    request_handoff,
)
from awaken_stores import InMemoryStore


class Transfer(Tool):
    """Requests a handoff (or clears it with an empty agent)."""

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("transfer", "transfer", "Hand the conversation to another agent")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolOutput:
        agent = args.get("agent") or ""
        command = StateCommand()
        if agent == "":
            command.update(ActiveAgentKey, clear_handoff())
        elif args.get("now"):
            command.update(ActiveAgentKey, activate_handoff(agent))
        else:
            command.update(ActiveAgentKey, request_handoff(agent))
        return ToolOutput.with_command(ToolResult.success("transfer", {"to": agent}), command)


class Named(Tool):
    def __init__(self, name: str) -> None:
        self.name = name

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(self.name, self.name, f"The {self.name} tool")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success(self.name, {"ok": True})


class SpecRecorder(Plugin):
    """Records which agent spec the hooks see at every StepStart."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("spec-recorder")

    def register(self, registrar: PluginRegistrar) -> None:
        async def hook(ctx: PhaseContext) -> StateCommand:
            self.seen.append(ctx.agent_spec.id)
            return StateCommand()

        registrar.register_phase_hook("spec-recorder", Phase.STEP_START, hook)


def transfer(call_id: str, agent: str, **extra: Any) -> Any:
    return tool_step([ToolCall(call_id, "transfer", {"agent": agent, **extra})])


RESEARCHER = AgentOverlay(
    system_prompt="You research.", model="fast", allowed_tools=["search", "transfer"]
)


def build(llm: ScriptedLlm, *, store: InMemoryStore | None = None, recorder: Plugin | None = None):
    plugin_ids = ["agent_handoff", "spec-recorder"]
    base = AgentSpec(
        "orchestrator", model="m", system_prompt="You orchestrate.", plugin_ids=plugin_ids
    )
    writer = AgentSpec("writer", model="m", system_prompt="You write.", plugin_ids=plugin_ids)
    writer = writer.with_excluded_tools(["search"])
    builder = (
        AgentRuntimeBuilder()
        .with_agent_spec(base)
        .with_agent_spec(writer)
        .with_tool("transfer", Transfer())
        .with_tool("search", Named("search"))
        .with_tool("edit", Named("edit"))
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="model-main"))
        .with_model("fast", ModelSpec(id="fast", provider="llm", model="model-fast"))
        .with_plugin("agent_handoff", HandoffPlugin({"researcher": RESEARCHER}))
        .with_plugin("spec-recorder", recorder or SpecRecorder())
    )
    if store is not None:
        builder = builder.with_thread_run_store(store)
    return builder.build()


async def run(runtime: Any, agent: str | None = "orchestrator", thread: str = "t"):
    sink = VecEventSink()
    request = RunRequest(thread, [Message.user("go")])
    if agent is not None:
        request = request.with_agent_id(agent)
    result = await runtime.run(request, sink)
    return result, sink.take()


def system_prompt(request: Any) -> str:
    return str(request.messages[0].text())


def tool_ids(request: Any) -> list[str]:
    return [t.id for t in request.tools]


async def test_overlay_switches_prompt_model_and_tools_at_the_next_step() -> None:
    llm = ScriptedLlm([transfer("c1", "researcher"), text_step("Found it.")])
    recorder = SpecRecorder()
    result, events = await run(build(llm, recorder=recorder))
    assert result.termination == TerminationReason.natural_end()
    assert result.response == "Found it."
    first, second = llm.requests
    assert system_prompt(first) == "You orchestrate."
    assert first.upstream_model == "model-main"
    assert tool_ids(first) == ["edit", "search", "transfer"]
    assert system_prompt(second) == "You research."
    assert second.upstream_model == "model-fast"
    assert tool_ids(second) == ["search", "transfer"]
    # same run: one run_start / run_finish, history carried over
    names = [type(e).__name__ for e in events]
    assert names.count("RunStart") == 1 and names.count("RunFinish") == 1
    assert [m.role.value for m in second.messages[1:]] == ["user", "assistant", "tool"]
    # hooks see the active agent's spec
    assert recorder.seen == ["orchestrator", "researcher"]


async def test_handoff_to_a_registered_agent_and_back() -> None:
    llm = ScriptedLlm(
        [
            transfer("c1", "writer"),
            transfer("c2", ""),  # clear: back to the base agent
            text_step("Back."),
        ]
    )
    result, _ = await run(build(llm))
    assert result.response == "Back."
    prompts = [system_prompt(r) for r in llm.requests]
    assert prompts == ["You orchestrate.", "You write.", "You orchestrate."]
    assert tool_ids(llm.requests[1]) == ["edit", "transfer"]  # writer excludes search


async def test_activate_switches_at_the_next_boundary_too() -> None:
    llm = ScriptedLlm([transfer("c1", "researcher", now=True), text_step("ok")])
    await run(build(llm))
    assert system_prompt(llm.requests[1]) == "You research."


async def test_handoff_persists_on_the_thread() -> None:
    store = InMemoryStore()
    llm = ScriptedLlm([transfer("c1", "writer"), text_step("one"), text_step("two")])
    runtime = build(llm, store=store)
    await run(runtime)
    # next run without an agent id continues with the handed-off agent
    result, _ = await run(runtime, agent=None)
    assert result.response == "two"
    assert system_prompt(llm.requests[-1]) == "You write."
    latest = await store.latest_run("t")
    assert latest is not None and latest.state is not None
    assert latest.state.extensions[ActiveAgentIdKey.KEY] == "writer"
    assert latest.state.extensions[ActiveAgentKey.KEY] == {
        "active_agent": "writer",
        "requested_agent": None,
    }


async def test_unknown_handoff_target_blocks_the_run() -> None:
    llm = ScriptedLlm([transfer("c1", "ghost"), text_step("never")])
    result, events = await run(build(llm))
    assert result.termination == TerminationReason.blocked(
        "handoff resolve failed: agent not found: ghost"
    )
    assert len(llm.requests) == 1
    finish = events[-1]
    assert isinstance(finish, RunFinish) and finish.termination == result.termination
    names = [type(e).__name__ for e in events]
    assert names.count("StepStart") == names.count("StepEnd") == 1


def test_handoff_state_reducer() -> None:
    key = ActiveAgentKey
    state = key.apply(HandoffState(), request_handoff("a"))
    assert state == HandoffState(None, "a") and state.effective_agent() == "a"
    state = key.apply(state, activate_handoff("b"))
    assert state == HandoffState("b", None) and state.effective_agent() == "b"
    assert key.apply(state, clear_handoff()) == HandoffState()
    with pytest.raises(ValueError):
        request_handoff("  ")
    assert key.decode(key.encode(HandoffState("x", "y"))) == HandoffState("x", "y")


def test_overlay_apply_and_strict_config() -> None:
    base = AgentSpec("base", model="m", system_prompt="p", allowed_tools=["a"])
    spec = RESEARCHER.apply(base, "researcher")
    assert (spec.id, spec.model, spec.system_prompt) == ("researcher", "fast", "You research.")
    assert spec.allowed_tools == ["search", "transfer"] and base.allowed_tools == ["a"]
    assert AgentOverlay.model_validate({"model_id": "x"}).model == "x"
    with pytest.raises(ValueError):
        AgentOverlay.model_validate({"prompt": "typo"})


def test_handoff_wire_shapes() -> None:
    import msgspec
    from awaken_runtime.extensions.handoff import HandoffAction

    assert msgspec.to_builtins(request_handoff("x")) == {"type": "request", "agent": "x"}
    assert msgspec.to_builtins(activate_handoff("x")) == {"type": "activate", "agent": "x"}
    assert msgspec.to_builtins(clear_handoff()) == {"type": "clear"}
    decoded = msgspec.json.decode(b'{"type":"activate","agent":"w"}', type=HandoffAction)
    assert decoded == activate_handoff("w")
    encoded = ActiveAgentKey.encode(HandoffState("a"))
    assert encoded == {"active_agent": "a", "requested_agent": None}


async def test_exposed_handoff_tools_switch_and_return() -> None:
    llm = ScriptedLlm(
        [
            tool_step([ToolCall("c1", "transfer_to_researcher", {})]),
            tool_step([ToolCall("c2", "transfer_back", {})]),
            text_step("home"),
        ]
    )
    base = AgentSpec("boss", model="m", system_prompt="Base.", plugin_ids=["agent_handoff"])
    overlay = AgentOverlay(system_prompt="Research.")
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(base)
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="model-main"))
        .with_plugin("agent_handoff", HandoffPlugin({"researcher": overlay}, expose_tools=True))
        .build()
    )
    result, _ = await run(runtime, agent="boss")
    assert result.response == "home"
    assert [system_prompt(r) for r in llm.requests] == ["Base.", "Research.", "Base."]
    assert tool_ids(llm.requests[0]) == ["transfer_back", "transfer_to_researcher"]


async def test_overlay_handoff_persists_on_the_thread_without_an_agent_id() -> None:
    store = InMemoryStore()
    llm = ScriptedLlm([transfer("c1", "researcher"), text_step("one"), text_step("two")])
    runtime = build(llm, store=store)
    await run(runtime)
    # "researcher" is an overlay, not a registered agent: the run starts from the base agent
    # and its handoff plugin switches to the overlay before the first step
    result, _ = await run(runtime, agent=None)
    assert result.response == "two"
    assert system_prompt(llm.requests[-1]) == "You research."
    assert llm.requests[-1].upstream_model == "model-fast"
