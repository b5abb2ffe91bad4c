"""The real agent loop on a long thread writes only the new messages at each step checkpoint."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.storage import ThreadRunStore
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_stores import InMemoryStore, SqliteStore


class Weather(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("get_weather", "Get Weather", "Weather for a city")

    async def execute(self, args: dict[str, Any], ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("get_weather", {"forecast": "sunny"})


def _runtime(store: ThreadRunStore) -> Any:
    """One tool call, then the answer ``Sunny.``, checkpointed into ``store``."""
    llm = ScriptedLlm(
        [tool_step([ToolCall("c1", "get_weather", {"city": "Oslo"})]), text_step("Sunny.")]
    )
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("assistant").with_model("m").with_max_rounds(4))
        .with_tool("get_weather", Weather())
        .with_provider("scripted", llm)
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_thread_run_store(store)
        .build()
    )


async def test_a_run_on_a_long_thread_appends_only_its_messages(tmp_path: Path) -> None:
    path = tmp_path / "awaken.db"
    store = SqliteStore(path)
    prior = [
        Message.user(f"old {i}") if i % 2 == 0 else Message.assistant(f"ok {i}") for i in range(300)
    ]
    await store.save_messages("t-long", prior)
    with sqlite3.connect(path) as conn:  # count every message row written from now on
        conn.executescript(
            "CREATE TABLE written (seq INTEGER);"
            "CREATE TRIGGER w_ins AFTER INSERT ON awaken_messages BEGIN"
            " INSERT INTO written VALUES (new.seq); END;"
            "CREATE TRIGGER w_upd AFTER UPDATE ON awaken_messages BEGIN"
            " INSERT INTO written VALUES (new.seq); END;"
        )
    runtime = _runtime(store)
    request = RunRequest("t-long", [Message.user("weather?")]).with_agent_id("assistant")
    result = await runtime.run(request, VecEventSink())
    assert result.response == "Sunny."
    stored = await store.load_messages("t-long")
    assert stored is not None and stored[:300] == prior and len(stored) == 304
    await store.close()
    with sqlite3.connect(path) as conn:
        written = sorted(r[0] for r in conn.execute("SELECT seq FROM written"))
    assert written == [301, 302, 303, 304]  # the prompt, the tool call, its result, the answer


async def test_a_run_on_the_memory_store_encodes_only_its_messages() -> None:
    """The memory store keeps one encoded row per message: the history's rows are the very
    same bytes after the run (never re-encoded), and the run added one row per new message."""
    store = InMemoryStore()
    prior = [Message.user(f"old {i}") for i in range(300)]
    await store.save_messages("t-long", prior)
    rows = list(store._messages["t-long"])
    runtime = _runtime(store)
    request = RunRequest("t-long", [Message.user("weather?")]).with_agent_id("assistant")
    assert (await runtime.run(request)).response == "Sunny."
    after = store._messages["t-long"]
    assert len(after) == 304 and all(a is b for a, b in zip(after, rows, strict=False))
    stored = await store.load_messages("t-long")
    assert stored is not None and stored[:300] == prior and stored[-1].text() == "Sunny."
