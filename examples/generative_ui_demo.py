"""Generative UI (A2UI v0.8), end to end, without an LLM account.

The scripted model first sends an invalid surface (an empty root): ``render_a2ui`` answers with
an error naming the JSON path, the model fixes it, and the validated messages are published as
an ``a2ui-surface`` activity — printed here as the AG-UI and AI SDK v6 frames a frontend gets.

Run: ``uv run python examples/generative_ui_demo.py``
"""

from __future__ import annotations

import asyncio
import json

from awaken import AgentRuntimeBuilder, AgentSpec, ModelSpec, RunRequest
from awaken.contract.event import ActivitySnapshot, ToolCallDone
from awaken.contract.event_sink import VecEventSink
from awaken.contract.message import Message, ToolCall
from awaken.engine import ScriptedLlm, text_step, tool_step
from awaken.ext_generative_ui import A2uiPlugin
from awaken_server.protocols.ag_ui import AgUiEncoder
from awaken_server.protocols.ai_sdk_v6 import AiSdkEncoder

CARD = {
    "surfaceUpdate": {
        "surfaceId": "order-1",
        "components": [
            {"id": "root", "component": {"Card": {"child": "title"}}},
            {"id": "title", "component": {"Text": {"text": {"literalString": "New order"}}}},
        ],
    }
}


def render(call_id: str, root: str) -> ToolCall:
    begin = {"beginRendering": {"surfaceId": "order-1", "root": root}}
    return ToolCall(call_id, "render_a2ui", {"messages": [CARD, begin]})


async def main() -> None:
    llm = ScriptedLlm(
        [
            tool_step([render("c1", "")]),
            tool_step([render("c2", "root")]),
            text_step("Here is your order card."),
        ]
    )
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("ui-agent").with_model("m").with_plugin("generative-ui"))
        .with_plugin("generative-ui", A2uiPlugin.with_catalog_id("my-catalog"))
        .with_provider("scripted", llm)
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .build()
    )
    sink = VecEventSink()
    result = await runtime.run(
        RunRequest("t-1", [Message.user("Show my order")]).with_agent_id("ui-agent"), sink
    )
    events = sink.take()
    first = next(e for e in events if isinstance(e, ToolCallDone) and e.id == "c1")
    print("model was told:", first.result.message)
    activity = next(e for e in events if isinstance(e, ActivitySnapshot))
    ag_ui, ai_sdk = AgUiEncoder(), AiSdkEncoder()
    for event in events:  # encoders are stateful: feed them the whole stream
        ag_frames, sdk_parts = ag_ui.encode(event), ai_sdk.encode(event)
        if event is activity:
            print("AG-UI :", json.dumps(ag_frames[0]))
            print("AI SDK:", json.dumps(sdk_parts[-1]))
    assert activity.content == {"a2ui_operations": render("x", "root").arguments["messages"]}
    print(result.response)


if __name__ == "__main__":
    asyncio.run(main())
