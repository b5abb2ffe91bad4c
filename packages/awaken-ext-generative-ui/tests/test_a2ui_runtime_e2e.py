"""End to end through AgentRuntimeBuilder: instructions, a rejected call the model fixes, the
published surface."""

from awaken_contract.contract.event import ActivitySnapshot, ToolCallDone
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_ext_generative_ui import A2uiPlugin
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step

SURFACE = {
    "surfaceUpdate": {
        "surfaceId": "order-1",
        "components": [
            {"id": "root", "component": {"Card": {"child": "title"}}},
            {"id": "title", "component": {"Text": {"text": {"literalString": "New order"}}}},
        ],
    }
}
BEGIN = {"beginRendering": {"surfaceId": "order-1", "root": "root"}}
BAD_BEGIN = {"beginRendering": {"surfaceId": "order-1", "root": ""}}


async def test_model_sees_instructions_fixes_a_rejected_call_and_the_surface_is_published() -> None:
    llm = ScriptedLlm(
        [
            tool_step([ToolCall("c1", "render_a2ui", {"messages": [SURFACE, BAD_BEGIN]})]),
            tool_step([ToolCall("c2", "render_a2ui", {"messages": [SURFACE, BEGIN]})]),
            text_step("Here is the order form."),
        ]
    )
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(
            AgentSpec("ui-agent")
            .with_model("m")
            .with_system_prompt("Render structured UI when visual output helps.")
            .with_plugin("generative-ui")
        )
        .with_plugin("generative-ui", A2uiPlugin.with_catalog_id("my-catalog"))
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
        .build()
    )
    sink = VecEventSink()
    result = await runtime.run(
        RunRequest("t", [Message.user("Show an order form")]).with_agent_id("ui-agent"), sink
    )
    assert result.response == "Here is the order form." and result.steps == 3
    for request in llm.requests:
        assert "render_a2ui" in [t.id for t in request.tools]
        system = [m.text() for m in request.messages if m.role is Role.SYSTEM]
        assert system[0] == "Render structured UI when visual output helps."
        assert sum("my-catalog" in text for text in system) == 1  # ephemeral: once per step
    rejected = next(m for m in llm.requests[1].messages if m.tool_call_id == "c1")
    assert 'message[1]: "beginRendering.root" must not be empty' in rejected.text()
    events = sink.take()
    done = {e.id: e for e in events if isinstance(e, ToolCallDone)}
    assert done["c1"].result.is_error and done["c2"].result.data == {"rendered": True, "count": 2}
    [activity] = [e for e in events if isinstance(e, ActivitySnapshot)]
    assert activity.message_id == "a2ui-surface-c2"
    assert activity.content == {"a2ui_operations": [SURFACE, BEGIN]}
