"""Context compaction, end to end, without an LLM account.

A long chat with a scripted model: once the thread passes 6 messages, the compactor agent (on a
second scripted "small" model) summarises the older part in the background. The next request
carries the system prompt, the summary, the bridge and the recent tail; the transcript keeps
every message.

Run: ``uv run python examples/compaction_demo.py``
"""

from __future__ import annotations

import asyncio

from awaken import AgentRuntimeBuilder, AgentSpec, ModelSpec, RunRequest
from awaken.contract.message import Message
from awaken.engine import ScriptedLlm, text_step
from awaken.ext_compact import CompactConfig, CompactConfigKey, CompactPlugin
from awaken.stores import InMemoryStore


async def main() -> None:
    main_model = ScriptedLlm([])
    small_model = ScriptedLlm([text_step("The user listed fruits: apple, banana, cherry.")])
    compact = CompactPlugin()
    store = InMemoryStore()
    runtime = (
        AgentRuntimeBuilder()
        .with_provider("main", main_model)
        .with_provider("small", small_model)
        .with_model("m", ModelSpec(id="m", provider="main", model="big-model"))
        .with_model("s", ModelSpec(id="s", provider="small", model="small-model"))
        .with_agent_spec(
            AgentSpec("assistant")
            .with_model("m")
            .with_system_prompt("Be brief.")
            .with_plugin("compact")
            .with_config(
                CompactConfigKey,
                CompactConfig(compactor="summarizer", trigger_messages=6, keep_recent_messages=2),
            )
        )
        .with_agent_spec(AgentSpec("summarizer").with_model("s").with_system_prompt("Summarize."))
        .with_plugin("compact", compact)
        .with_thread_run_store(store)
        .build()
    )
    compact.bind_agent_runner(runtime)

    for fruit in ("apple", "banana", "cherry", "durian"):
        request = RunRequest("chat", [Message.user(f"I like {fruit}")])
        await runtime.run(request.with_agent_id("assistant"))
    await compact.jobs.wait("chat")
    await runtime.run(
        RunRequest("chat", [Message.user("What do I like?")]).with_agent_id("assistant")
    )

    sent = main_model.requests[-1].messages
    for message in sent:
        print(f"{message.role.value:>9}: {message.text()[:70]}")
    assert "apple, banana, cherry" in sent[1].text()
    transcript = await store.load_messages("chat") or []
    assert len(transcript) == 10 and len(sent) < len(transcript)
    print(f"transcript: {len(transcript)} messages; request: {len(sent)} messages")


if __name__ == "__main__":
    asyncio.run(main())
