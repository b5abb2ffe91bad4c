"""The context window inside real runs: truncation and tool-output previews."""

from typing import Any

from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.registry_spec import AgentSpec, ContextWindowPolicy, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.context import estimate_tokens, estimate_tools_tokens
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_stores import InMemoryStore

FILLER = "w" * 800  # ~200 tokens


class Dump(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("dump", "dump", "Dump a big log")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success_with_message("dump", None, "\n".join(["log line"] * 5000))


def build(llm: ScriptedLlm, policy: ContextWindowPolicy | None, store: InMemoryStore) -> Any:
    spec = AgentSpec("a", model="m", system_prompt="sys", context_policy=policy)
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(spec)
        .with_tool("dump", Dump())
        .with_provider("p", llm)
        .with_model("m", ModelSpec(id="m", provider="p", model="model-1"))
        .with_thread_run_store(store)
        .build()
    )


def long_history() -> list[Message]:
    history: list[Message] = []
    for i in range(8):
        history.append(Message.user(f"u{i} {FILLER}"))
        history.append(
            Message.assistant_with_tool_calls(f"calling {i}", [ToolCall(f"c{i}", "dump", {})])
        )
        history.append(Message.tool(f"c{i}", f"r{i} {FILLER}"))
        history.append(Message.assistant(f"a{i} {FILLER}"))
    history.append(Message.user("latest question"))
    return history


async def test_requests_are_truncated_without_splitting_tool_pairs() -> None:
    policy = ContextWindowPolicy(
        max_context_tokens=1500, max_output_tokens=200, min_recent_messages=3
    )
    llm = ScriptedLlm([text_step("ok")])
    store = InMemoryStore()
    runtime = build(llm, policy, store)
    history = long_history()
    await runtime.run(RunRequest("t", history).with_agent_id("a"))
    sent = llm.requests[0].messages
    assert sent[0].text() == "sys" and sent[-1].text() == "latest question"
    assert len(sent) < len(history)
    tools_tokens = estimate_tools_tokens(llm.requests[0].tools)
    assert estimate_tokens(sent) <= 1500 - 200 - tools_tokens
    calls = {c.id for m in sent if m.tool_calls for c in m.tool_calls}
    results = {m.tool_call_id for m in sent if m.role is Role.TOOL}
    assert calls == results
    assert sent[1].role is not Role.TOOL
    # the thread log is not truncated
    log = await store.load_messages("t")
    assert log is not None and len(log) == len(history) + 1


async def test_without_a_policy_nothing_is_truncated() -> None:
    llm = ScriptedLlm([text_step("ok")])
    history = long_history()
    await build(llm, None, InMemoryStore()).run(RunRequest("t", history).with_agent_id("a"))
    assert len(llm.requests[0].messages) == len(history) + 1


async def test_big_tool_output_is_sent_as_a_preview_but_stored_in_full() -> None:
    llm = ScriptedLlm([tool_step([ToolCall("d1", "dump", {})]), text_step("done")])
    store = InMemoryStore()
    runtime = build(llm, ContextWindowPolicy(), store)
    await runtime.run(RunRequest("t", [Message.user("dump it")]).with_agent_id("a"))
    sent_tool = next(m for m in llm.requests[1].messages if m.role is Role.TOOL)
    assert "[Content compacted: original ~" in sent_tool.text()
    assert sent_tool.text().count("log line") == 24
    log = await store.load_messages("t")
    assert log is not None
    stored_tool = next(m for m in log if m.role is Role.TOOL)
    assert stored_tool.text().count("log line") == 5000
