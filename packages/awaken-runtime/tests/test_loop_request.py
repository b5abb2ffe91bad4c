"""Inference request assembly: context placement, tool filters, overrides."""

import pytest
from awaken_contract.actions import (
    InferenceOverrideState,
    SetInferenceOverride,
    ToolFilterState,
)
from awaken_contract.contract.context_message import ContextMessage
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.errors import InferenceFailed
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
)
from awaken_contract.registry_spec import AgentSpec, InferenceOverride, ModelSpec, ReasoningEffort
from awaken_contract.state import StateCommand
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step
from awaken_runtime.loop_runner.request import (
    effective_overrides,
    filter_tools,
    place_context_messages,
)


def test_context_messages_are_placed_by_target() -> None:
    history = [Message.system("prompt"), Message.user("q1"), Message.assistant("a1")]
    context = [
        ContextMessage.system("s", "sys-ctx"),
        ContextMessage.session("se", Role.USER, "session-ctx"),
        ContextMessage.conversation("c", Role.USER, "conv-ctx"),
        ContextMessage.suffix_system("x", "suffix-ctx"),
    ]
    placed = place_context_messages(history, context, has_system_prompt=True)
    assert [m.text() for m in placed] == [
        "prompt",
        "sys-ctx",
        "session-ctx",
        "conv-ctx",
        "q1",
        "a1",
        "suffix-ctx",
    ]
    assert placed[0] is history[0] and len(history) == 3  # the input list is untouched
    no_prompt = place_context_messages([Message.user("q")], context[:1], has_system_prompt=False)
    assert [m.text() for m in no_prompt] == ["sys-ctx", "q"]


def test_tool_filters_use_the_union_of_include_lists_then_exclusions() -> None:
    tools = [ToolDescriptor(i, i, i) for i in ("a", "b", "c")]
    assert filter_tools(tools, None) is tools
    state = ToolFilterState(excluded=["b"], include_only=[["a"], ["b", "c"]])
    assert [t.id for t in filter_tools(tools, state)] == ["a", "c"]


def test_overrides_merge_spec_run_and_step() -> None:
    spec = AgentSpec("a").with_reasoning_effort(ReasoningEffort.HIGH)
    assert effective_overrides(AgentSpec("a"), None, None, "base") == ("base", None)
    model, rest = effective_overrides(
        spec,
        InferenceOverride(temperature=0.1, model="run-model"),
        InferenceOverrideState(InferenceOverride(temperature=0.7)),
        "base",
    )
    assert model == "run-model"
    assert rest is not None and rest.temperature == 0.7 and rest.model is None
    assert rest.reasoning_effort == ReasoningEffort.HIGH
    with pytest.raises(InferenceFailed, match="upstream_model cannot be empty"):
        effective_overrides(AgentSpec("a"), InferenceOverride(model=" "), None, "base")


class FastModel(PhaseHook):
    async def run(self, ctx: PhaseContext) -> StateCommand:
        return StateCommand().schedule_action(
            SetInferenceOverride, InferenceOverride(model="fast-model", max_tokens=64)
        )


class FastPlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("fast")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_phase_hook("fast", Phase.BEFORE_INFERENCE, FastModel())


async def test_step_override_reaches_the_executor() -> None:
    llm = ScriptedLlm([text_step("ok")])
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m").with_plugin("fast"))
        .with_plugin("fast", FastPlugin())
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="slow-model"))
        .build()
    )
    sink = VecEventSink()
    result = await runtime.run(
        RunRequest("o", [Message.user("hi")])
        .with_agent_id("a")
        .with_overrides(InferenceOverride(temperature=0.2)),
        sink,
    )
    assert result.termination.type is TerminationKind.NATURAL_END
    request = llm.requests[0]
    assert request.upstream_model == "fast-model"
    assert request.overrides.max_tokens == 64 and request.overrides.temperature == 0.2
    assert request.overrides.model is None
