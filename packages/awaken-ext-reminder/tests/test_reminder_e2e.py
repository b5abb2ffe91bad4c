"""End to end through ``AgentRuntimeBuilder``: a scripted model (the only mock), real tools,
a real SQLite file. Reminders reach the next inference and never the transcript."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.errors import KeyDecode
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_ext_reminder import ReminderPlugin, ReminderRulesConfig

pytest.importorskip("awaken_runtime")
pytest.importorskip("aiosqlite")

from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_stores import SqliteStore

BOOK_RULES = """{
    "rules": [
        {
            "tool": "Bash(command ~ 'rm *')",
            "output": { "status": "success" },
            "message": {
                "target": "suffix_system",
                "content": "A deletion command just succeeded. Verify the result."
            }
        }
    ]
}"""
HINT = "A deletion command just succeeded. Verify the result."


class Bash(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("Bash", "Bash", "Run a command").with_parameters(
            {"type": "object", "properties": {"command": {"type": "string"}}}
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("Bash", {"ran": args["command"]})


def _bash(n: int, command: str = "rm -rf build") -> Any:
    return tool_step([ToolCall(f"c{n}", "Bash", {"command": command})])


def _runtime(llm: ScriptedLlm, spec: AgentSpec, plugin: ReminderPlugin, db: Path) -> Any:
    store = SqliteStore(str(db))
    runtime = (
        AgentRuntimeBuilder()
        .with_provider("scripted", llm)
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_agent_spec(spec)
        .with_tool("Bash", Bash())
        .with_plugin("reminder", plugin)
        .with_thread_run_store(store)
        .build()
    )
    return runtime, store


def _texts(request: Any) -> list[tuple[Role, str]]:
    return [(m.role, m.text()) for m in request.messages]


async def test_the_book_setup_reminds_in_the_next_inference_only(tmp_path: Path) -> None:
    config = ReminderRulesConfig.from_str(BOOK_RULES, "json")
    spec = (
        AgentSpec("my-agent")
        .with_model("m")
        .with_system_prompt("You are a helpful assistant.")
        .with_hook_filter("reminder")
    )
    llm = ScriptedLlm([_bash(1), _bash(2, "ls"), text_step("Checked.")])
    runtime, store = _runtime(llm, spec, ReminderPlugin(config.into_rules()), tmp_path / "a.db")
    request = RunRequest("t1", [Message.user("clean up")]).with_agent_id("my-agent")
    result = await runtime.run(request)
    assert result.response == "Checked."
    first, second, third = (_texts(r) for r in llm.requests)
    assert (Role.SYSTEM, HINT) not in first
    assert second[-1] == (Role.SYSTEM, HINT)  # suffix_system: after the whole history
    assert second[-2][0] is Role.TOOL
    assert (Role.SYSTEM, HINT) not in third  # not persistent; `ls` does not match
    transcript = await store.load_messages("t1")
    assert transcript is not None and all(HINT not in m.text() for m in transcript)
    await store.close()


async def test_cooldown_skips_repeats_and_resets_every_run(tmp_path: Path) -> None:
    rules = {
        "rules": [
            {
                "name": "careful",
                "tool": "Bash",
                "message": {"target": "system", "content": "Be careful.", "cooldown_turns": 3},
            }
        ]
    }
    spec = (
        AgentSpec("a")
        .with_model("m")
        .with_system_prompt("Base.")
        .model_copy(update={"plugin_ids": ["reminder"], "sections": {"reminder": rules}})
    )
    steps = [_bash(i) for i in range(5)] + [text_step("done")]
    llm = ScriptedLlm([*steps, _bash(9), text_step("again")])
    runtime, store = _runtime(llm, spec, ReminderPlugin(), tmp_path / "b.db")
    await runtime.run(RunRequest("t", [Message.user("go")]).with_agent_id("a"))
    seen = [(Role.SYSTEM, "Be careful.") in _texts(r) for r in llm.requests]
    # after each of the 5 tool calls: injected, skipped, skipped, injected, skipped
    assert seen == [False, True, False, False, True, False]
    assert _texts(llm.requests[1])[:2] == [(Role.SYSTEM, "Base."), (Role.SYSTEM, "Be careful.")]
    second = await runtime.run(RunRequest("t", [Message.user("more")]).with_agent_id("a"))
    assert second.response == "again"
    # the throttle is run scoped: the next run's first match is injected again
    assert [(Role.SYSTEM, "Be careful.") in _texts(r) for r in llm.requests[6:]] == [False, True]
    await store.close()


async def test_every_matching_rule_fires_plugin_rules_first(tmp_path: Path) -> None:
    plugin_rules = ReminderRulesConfig.validate_section(
        {"rules": [{"name": "p", "tool": "*", "message": {"target": "session", "content": "P"}}]}
    ).into_rules()
    section = {
        "rules": [
            {"name": "s", "tool": "Bash(rm *)", "message": {"target": "session", "content": "S"}},
            {"name": "z", "tool": "Bash(ls)", "message": {"target": "session", "content": "Z"}},
        ]
    }
    spec = (
        AgentSpec("a")
        .with_model("m")
        .with_system_prompt("Base.")
        .model_copy(update={"plugin_ids": ["reminder"], "sections": {"reminder": section}})
    )
    llm = ScriptedLlm([_bash(1), text_step("ok")])
    runtime, store = _runtime(llm, spec, ReminderPlugin(plugin_rules), tmp_path / "c.db")
    await runtime.run(RunRequest("t", [Message.user("go")]).with_agent_id("a"))
    texts = [text for _, text in _texts(llm.requests[1])]
    assert "P" in texts and "S" in texts and "Z" not in texts
    await store.close()


async def test_an_invalid_section_fails_the_run_before_inference(tmp_path: Path) -> None:
    bad = {"rules": [{"tool": "Bash(", "message": {"target": "system", "content": "x"}}]}
    spec = (
        AgentSpec("a")
        .with_model("m")
        .model_copy(update={"plugin_ids": ["reminder"], "sections": {"reminder": bad}})
    )
    llm = ScriptedLlm([text_step("never")])
    runtime, store = _runtime(llm, spec, ReminderPlugin(), tmp_path / "d.db")
    with pytest.raises(KeyDecode) as err:
        await runtime.run(RunRequest("t", [Message.user("go")]).with_agent_id("a"))
    assert err.value.key == "reminder" and "invalid pattern `Bash(`" in err.value.message
    assert llm.requests == []
    await store.close()
