"""The skills subsystem, end to end, without an LLM account.

A temporary ``skills/`` directory gets one good skill (with a reference file) and one broken
skill. Discovery keeps the good one and reports the broken one as a warning. A scripted model
then sees the catalog, activates the skill with the ``skill`` tool, loads its reference with
``load_skill_resource`` and tries a tool outside the skill's ``allowed-tools`` — which is
refused while the skill is active.

Run: ``uv run python examples/skills_demo.py``
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from awaken import AgentRuntimeBuilder, AgentSpec, ModelSpec, RunRequest
from awaken.contract.content import ContentBlock
from awaken.contract.event import ToolCallDone
from awaken.contract.event_sink import VecEventSink
from awaken.contract.executor import InferenceRequest, LlmExecutor
from awaken.contract.inference import StopReason, StreamResult
from awaken.contract.message import Message, ToolCall
from awaken.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken.ext_skills import FsSkill, InMemorySkillRegistry, SkillSubsystem

SKILL_MD = """---
name: data-report
description: Turn CSV files into a short findings report.
allowed-tools: read_file
when-to-use: the user uploads tabular data
---
# Data report
Read ${file}, then summarise the three biggest changes. Style rules are in
references/style.md.
"""


class ScriptedLlm(LlmExecutor):
    """Plays back prepared model turns and remembers what it was shown."""

    def __init__(self, turns: list[StreamResult]) -> None:
        self.turns = list(turns)
        self.requests: list[InferenceRequest] = []

    async def execute(self, request: InferenceRequest) -> StreamResult:
        self.requests.append(request)
        return self.turns.pop(0)

    def name(self) -> str:
        return "scripted"


class SimpleTool(Tool):
    def __init__(self, tool_id: str, output: str) -> None:
        self.tool_id, self.output = tool_id, output

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(self.tool_id, self.tool_id, f"{self.tool_id} a file").with_parameters(
            {"type": "object", "properties": {"path": {"type": "string"}}}
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success(self.tool_id, self.output)


def call(call_id: str, tool: str, args: dict[str, object]) -> StreamResult:
    return StreamResult(tool_calls=[ToolCall(call_id, tool, args)], stop_reason=StopReason.TOOL_USE)


def make_skills(root: Path) -> None:
    good = root / "data-report"
    (good / "references").mkdir(parents=True)
    (good / "SKILL.md").write_text(SKILL_MD)
    (good / "references" / "style.md").write_text("Bullet points, no more than 50 words.")
    bad = root / "Broken-Skill"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: broken-skill\n---\nno description\n")


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "skills"
        make_skills(root)
        result = FsSkill.discover(root)
        for warning in result.warnings:
            print(f"skill warning: {Path(warning.path).name}: {warning.reason}")
        registry = InMemorySkillRegistry.from_skills(FsSkill.into_arc_skills(result.skills))
        print("skills:", registry.ids())

        subsystem = SkillSubsystem(registry)
        llm = ScriptedLlm(
            [
                call("c1", "skill", {"skill": "data-report", "arguments": {"file": "q3.csv"}}),
                call(
                    "c2",
                    "load_skill_resource",
                    {"skill": "data-report", "path": "references/style.md"},
                ),
                call("c3", "write_file", {"path": "report.md"}),
                call("c4", "read_file", {"path": "q3.csv"}),
                StreamResult(
                    content=[ContentBlock.text("- Revenue up 12%\n- Churn down\n- EU flat")],
                    stop_reason=StopReason.END_TURN,
                ),
            ]
        )
        spec = (
            AgentSpec("skills-agent")
            .with_model("m")
            .with_system_prompt("Discover and activate skills when specialized help is useful.")
            .with_plugin("skills-discovery")
            .with_plugin("skills-active-instructions")
            .with_hook_filter("skills-discovery")
            .with_hook_filter("skills-active-instructions")
        )
        runtime = (
            AgentRuntimeBuilder()
            .with_agent_spec(spec)
            .with_tool("read_file", SimpleTool("read_file", "region,revenue\nEU,100"))
            .with_tool("write_file", SimpleTool("write_file", "written"))
            .with_provider("scripted", llm)
            .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
            .with_plugin("skills-discovery", subsystem.discovery_plugin())
            .with_plugin("skills-active-instructions", subsystem.active_instructions_plugin())
            .build()
        )
        sink = VecEventSink()
        request = RunRequest("demo", [Message.user("Summarise q3.csv")]).with_agent_id(
            "skills-agent"
        )
        run = await runtime.run(request, sink)

        first = "\n".join(m.text() for m in llm.requests[0].messages)
        start, end = first.index("<available_skills>"), first.index("</skills_usage>")
        print("\ncatalog shown to the model:\n" + first[start : end + len("</skills_usage>")])
        print("\ntools offered after activation:", sorted(t.id for t in llm.requests[1].tools))
        for event in sink.take():
            if isinstance(event, ToolCallDone):
                shown = event.result.message or event.result.data
                print(f"{event.id} {event.outcome}: {str(shown)[:90]}")
        print("\nanswer:\n" + (run.response or ""))


if __name__ == "__main__":
    asyncio.run(main())
