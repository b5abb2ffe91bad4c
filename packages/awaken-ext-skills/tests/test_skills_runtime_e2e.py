"""End to end with the real runtime and a scripted LLM: the catalog reaches the model, the
``skill`` tool activates a skill, its instructions are injected and ``allowed-tools`` limits
the tools (offered and callable) for the rest of the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.event import ToolCallDone
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_ext_skills import FsSkill, InMemorySkillRegistry, SkillSubsystem

pytest.importorskip("awaken_runtime")

from awaken_runtime.builder import AgentRuntimeBuilder
from awaken_runtime.testing import ScriptedLlm, text_step, tool_call_step


class FileTool(Tool):
    def __init__(self, tool_id: str) -> None:
        self.tool_id = tool_id
        self.calls: list[Any] = []

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(self.tool_id, self.tool_id, f"{self.tool_id} a file")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.calls.append(args)
        return ToolResult.success(self.tool_id, {"ok": True})


def all_text(request: InferenceRequest) -> str:
    return "\n".join(m.text() for m in request.messages)


async def test_skill_activation_in_a_real_run(skills_root: Path) -> None:
    registry = InMemorySkillRegistry.from_skills(
        FsSkill.into_arc_skills(FsSkill.discover(skills_root).skills)
    )
    subsystem = SkillSubsystem(registry)
    llm = ScriptedLlm(
        [
            tool_call_step(
                "c1", "skill", {"skill": "data-report", "arguments": {"file": "q3.csv"}}
            ),
            tool_call_step("c2", "write_file", {"path": "out.txt"}),
            tool_call_step("c3", "read_file", {"path": "q3.csv"}),
            text_step("Report done."),
        ]
    )
    read_file, write_file = FileTool("read_file"), FileTool("write_file")
    spec = (
        AgentSpec("skills-agent")
        .with_model("m")
        .with_system_prompt("Discover and activate skills when specialized help is useful.")
        .with_plugin("skills-discovery")
        .with_plugin("skills-active-instructions")
        .with_hook_filter("skills-discovery")
        .with_hook_filter("skills-active-instructions")
        .with_max_rounds(6)
    )
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(spec)
        .with_tool("read_file", read_file)
        .with_tool("write_file", write_file)
        .with_provider("scripted", llm)
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_plugin("skills-discovery", subsystem.discovery_plugin())
        .with_plugin("skills-active-instructions", subsystem.active_instructions_plugin())
        .build()
    )
    sink = VecEventSink()
    result = await runtime.run(
        RunRequest("thread-1", [Message.user("Analyse q3.csv")]).with_agent_id("skills-agent"),
        sink,
    )
    assert result.response == "Report done."

    first, second, third, last = llm.requests
    # step 1: the catalog is in context, nothing is active, every tool is offered
    assert "<available_skills>" in all_text(first) and "<name>data-report</name>" in all_text(first)
    assert "active_skill_instructions" not in all_text(first)
    assert {t.id for t in first.tools} >= {"skill", "read_file", "write_file"}
    # step 2: the instructions are injected and the tool list follows allowed-tools
    assert '<skill_instruction skill="data-report">' in all_text(second)
    assert "Read ${file} and summarise" in all_text(second)
    assert {t.id for t in second.tools} == {
        "skill",
        "load_skill_resource",
        "skill_script",
        "read_file",
    }  # web_search is allowed but not installed
    # the disallowed call was refused without running; the allowed one ran
    assert write_file.calls == [] and read_file.calls == [{"path": "q3.csv"}]
    done = {e.id: e for e in sink.take() if isinstance(e, ToolCallDone)}
    assert done["c1"].outcome == "succeeded"
    assert done["c2"].outcome == "failed"
    assert "not allowed while skill(s) data-report are active" in all_text(third)
    assert "Launching skill: data-report" in all_text(second)
    assert '<skill_instruction skill="data-report">' in all_text(last)
