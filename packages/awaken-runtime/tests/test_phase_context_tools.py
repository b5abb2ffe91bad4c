"""Hooks see the descriptors the agent offers the model (``ctx.tools``)."""

from typing import Any

from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext, Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import StateCommand
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step


class Echo(Tool):
    def __init__(self, tool_id: str) -> None:
        self.tool_id = tool_id

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(self.tool_id, self.tool_id, "echo")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success(self.tool_id, args)


class Recorder(Plugin):
    def __init__(self) -> None:
        self.seen: dict[Phase, list[str]] = {}

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("rec")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_tool("plugin_tool", Echo("plugin_tool"))

        async def hook(ctx: PhaseContext) -> StateCommand:
            self.seen[ctx.phase] = [d.id for d in ctx.tools]
            return StateCommand()

        registrar.register_phase_hook("rec", Phase.RUN_START, hook)
        registrar.register_phase_hook("rec", Phase.BEFORE_INFERENCE, hook)


async def test_hooks_see_agent_plugin_and_frontend_tools() -> None:
    plugin = Recorder()
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m").with_plugin("rec"))
        .with_plugin("rec", plugin)
        .with_tool("b_tool", Echo("b_tool"))
        .with_provider("llm", ScriptedLlm([text_step("ok")]))
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
        .build()
    )
    request = RunRequest("t", [Message.user("hi")]).with_agent_id("a")
    request = request.with_frontend_tools([ToolDescriptor("a_front", "a_front", "client side")])
    await runtime.run(request)
    expected = ["a_front", "b_tool", "plugin_tool"]
    assert plugin.seen == {Phase.RUN_START: expected, Phase.BEFORE_INFERENCE: expected}
