"""The skill tools, the catalog and the hooks, against the plugin contract."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from awaken_contract.actions import AddContextMessage, IncludeOnlyTools, InterceptSetResult
from awaken_contract.contract.content import text_of
from awaken_contract.contract.context_message import ContextMessageTarget
from awaken_contract.contract.tool import ToolCallContext, ToolOutput, ToolResult
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext, PluginRegistrar
from awaken_contract.state import Snapshot, StateMap
from awaken_ext_skills import (
    AllowedToolPolicy,
    FsSkill,
    InMemorySkillRegistry,
    LoadSkillResourceTool,
    SkillActivateTool,
    SkillMeta,
    SkillScriptTool,
    SkillState,
    SkillStateKey,
    SkillSubsystem,
    SkillVisibilityKey,
    SkillVisibilityMode,
    SkillVisibilityState,
    render_catalog,
)
from awaken_ext_skills.meta import SkillContextMode


@pytest.fixture
def registry(skills_root: Path) -> InMemorySkillRegistry:
    return InMemorySkillRegistry.from_skills(FsSkill.discover(skills_root).skills)


def ctx() -> ToolCallContext:
    return ToolCallContext.test_default()


async def test_skill_tool_activates_and_updates_state(registry: InMemorySkillRegistry) -> None:
    out = await SkillActivateTool(registry).execute(
        {"skill": " data-report ", "arguments": {"file": "x.csv"}}, ctx()
    )
    assert isinstance(out, ToolOutput)
    assert out.result.data == {"activated": True, "skill_id": "data-report"}
    assert out.result.message == "Launching skill: data-report"
    assert out.command is not None
    ((key, name, update),) = out.command.patch.ops
    assert key is SkillStateKey and name == "skills"
    assert SkillStateKey.apply(SkillState(), update).active == ["data-report"]


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("skill", {}, "invalid_arguments"),
        ("skill", {"skill": "  "}, "invalid_arguments"),
        ("skill", {"skill": "nope"}, "unknown_skill"),
        ("load", {"skill": "data-report", "path": "../secret.txt"}, "invalid_path"),
        ("load", {"skill": "data-report", "path": "/etc/passwd"}, "invalid_path"),
        ("load", {"skill": "data-report", "path": "references/leak.md"}, "path_escapes_root"),
        ("load", {"skill": "data-report", "path": "scripts/count.py"}, "unsupported_path"),
        (
            "load",
            {"skill": "data-report", "path": "references/guide.md", "kind": "x"},
            "invalid_arguments",
        ),
        (
            "load",
            {"skill": "data-report", "path": "references/guide.md", "kind": "asset"},
            "invalid_arguments",
        ),
        ("load", {"skill": "data-report", "path": "references/none.md"}, "io_error"),
        ("script", {"skill": "data-report", "script": "scripts/tool.rb"}, "unsupported_runtime"),
        ("script", {"skill": "data-report", "script": "../x.py"}, "invalid_path"),
    ],
)
async def test_tool_failures_are_error_results_with_codes(
    registry: InMemorySkillRegistry, tool: str, args: dict[str, Any], code: str
) -> None:
    tools = {
        "skill": SkillActivateTool(registry),
        "load": LoadSkillResourceTool(registry),
        "script": SkillScriptTool(registry),
    }
    result = await tools[tool].execute(args, ctx())
    assert isinstance(result, ToolResult) and result.is_error
    assert result.data["error"]["code"] == code
    assert result.message is not None and result.message.startswith(f"[{code}] ")


async def test_load_skill_resource_and_script_tools(registry: InMemorySkillRegistry) -> None:
    ref = await LoadSkillResourceTool(registry).execute(
        {"skill": "data-report", "path": "references/guide.md"}, ctx()
    )
    assert isinstance(ref, ToolResult) and ref.data["kind"] == "reference"
    assert ref.data["content"] == "Use medians, not means." and ref.data["loaded"] is True
    asset = await LoadSkillResourceTool(registry).execute(
        {"skill": "data-report", "path": "assets/logo.png", "kind": "asset"}, ctx()
    )
    assert isinstance(asset, ToolResult)
    assert asset.data["media_type"] == "image/png" and asset.data["encoding"] == "base64"
    script = await SkillScriptTool(registry).execute(
        {"skill": "data-report", "script": "scripts/count.py", "args": ["a", 7, "b"]}, ctx()
    )
    assert isinstance(script, ToolResult)
    assert script.data["ok"] is True and script.data["stdout"] == "args 2 a b\n"
    failed = await SkillScriptTool(registry).execute(
        {"skill": "data-report", "script": "scripts/count.py"}, ctx()
    )
    assert isinstance(failed, ToolResult) and failed.is_success
    assert failed.data["ok"] is False and failed.data["exit_code"] == 3


def meta(skill_id: str, **kw: Any) -> SkillMeta:
    base: dict[str, Any] = {
        "id": skill_id,
        "name": skill_id,
        "description": f"About {skill_id}",
        "allowed_tools": [],
        "user_invocable": True,
        "model_invocable": True,
        "context": SkillContextMode.INLINE,
    }
    base.update(kw)
    return SkillMeta(**base)


def test_catalog_rendering() -> None:
    text = render_catalog(
        [
            meta("b-skill", when_to_use="b <things> & more"),
            meta("a-skill", name="Pretty A"),
        ]
    )
    assert text is not None
    lines = text.splitlines()
    assert lines[:9] == [
        "<available_skills>",
        "<skill>",
        "<name>a-skill</name>",
        "<description>Pretty A: About a-skill</description>",
        "</skill>",
        "<skill>",
        "<name>b-skill</name>",
        "<description>About b-skill — When: b &lt;things&gt; &amp; more</description>",
        "</skill>",
    ]
    assert "</available_skills>" in lines and "<skills_usage>" in lines
    for needle in ('"skill"', '"load_skill_resource"', '"skill_script"', '"references/'):
        assert needle in text
    assert render_catalog([]) is None


def test_catalog_limits() -> None:
    metas = [meta(f"s-{i:02d}") for i in range(40)]
    text = render_catalog(metas)
    assert text is not None and text.count("<skill>") == 32
    assert "Note: available_skills truncated (total=40, shown=32)." in text
    small = render_catalog(metas, max_entries=100, max_chars=300)
    assert small is not None and len(small.encode()) <= 300
    unicode = render_catalog([meta("x", description="é" * 400)], max_chars=301)
    assert unicode is not None and len(unicode.encode()) <= 301


def test_allowed_tool_policy() -> None:
    policy = AllowedToolPolicy.for_skills(
        [
            meta("a", allowed_tools=["Bash(git status)", "read_file"]),
            meta("b", allowed_tools=["mcp__gh__*"]),
        ]
    )
    assert policy is not None
    assert policy.allows("Bash") and policy.allows("read_file") and policy.allows("skill")
    assert policy.allows("mcp__gh__create_issue") and not policy.allows("write_file")
    assert policy.include_only() is None  # a glob makes the list open-ended
    exact = AllowedToolPolicy.for_skills([meta("a", allowed_tools=["read_file"])])
    assert exact is not None
    assert exact.include_only() == ["load_skill_resource", "read_file", "skill", "skill_script"]
    regex = AllowedToolPolicy.for_skills([meta("r", allowed_tools=["/^read_.*$/"])])
    assert regex is not None and regex.allows("read_x") and not regex.allows("xread_")
    # an active skill without allowed-tools lifts the restriction
    assert AllowedToolPolicy.for_skills([meta("a", allowed_tools=["x"]), meta("b")]) is None
    assert AllowedToolPolicy.for_skills([]) is None


class Recorder(PluginRegistrar):
    def __init__(self) -> None:
        self.keys: list[tuple[str, Any]] = []
        self.tools: dict[str, Any] = {}
        self.hooks: list[tuple[str, Phase, Any]] = []
        self.gates: list[Any] = []

    def register_key(self, key: Any, options: Any = None) -> None:
        self.keys.append((key.KEY, options))

    def register_profile_key(self, key: Any) -> None: ...

    def register_scheduled_action(self, action: Any, handler: Any) -> None: ...

    def register_effect(self, effect: Any, handler: Any) -> None: ...

    def register_phase_hook(self, plugin_id: str, phase: Phase, hook: Any) -> None:
        self.hooks.append((plugin_id, phase, hook))

    def register_tool_gate_hook(self, plugin_id: str, hook: Any) -> None:
        self.gates.append(hook)

    def register_tool(self, tool_id: str, tool: Any) -> None:
        self.tools[tool_id] = tool

    def register_request_transform(self, plugin_id: str, transform: Any) -> None: ...


def phase_ctx(
    active: list[str], visibility: SkillVisibilityState | None = None, **kw: Any
) -> PhaseContext:
    values: dict[str, Any] = {SkillStateKey.KEY: SkillState(active)}
    if visibility is not None:
        values[SkillVisibilityKey.KEY] = visibility
    base = PhaseContext.test_default(Phase.BEFORE_INFERENCE)
    return base.replace(snapshot=Snapshot(1, StateMap(values)), **kw)


async def test_plugins_register_and_hooks_emit_actions(registry: InMemorySkillRegistry) -> None:
    subsystem = SkillSubsystem(registry)
    discovery, active = subsystem.plugins()
    assert (discovery.plugin_id, active.plugin_id) == (
        "skills-discovery",
        "skills-active-instructions",
    )
    rec = Recorder()
    discovery.register(rec)
    active.register(rec)
    assert [k for k, _ in rec.keys] == ["skills", "skills.visibility"]
    assert sorted(rec.tools) == ["load_skill_resource", "skill", "skill_script"]
    (_, _, catalog_hook), (_, _, instructions_hook) = rec.hooks
    assert len(rec.gates) == 1

    # catalog: the disable-model-invocation skill is hidden unless made visible
    command = await catalog_hook.run(phase_ctx([]))
    (action,) = command.scheduled_actions
    assert action.key == AddContextMessage.KEY
    message = AddContextMessage.decode_payload(action.payload)
    assert message.key == "skill_catalog" and message.target is ContextMessageTarget.SYSTEM
    text = text_of(message.content)
    assert "<name>data-report</name>" in text and "internal-only" not in text
    shown = SkillVisibilityState(
        {"internal-only": SkillVisibilityMode.VISIBLE, "free-form": SkillVisibilityMode.HIDDEN}
    )
    shown_command = await catalog_hook.run(phase_ctx([], shown))
    text = text_of(
        AddContextMessage.decode_payload(shown_command.scheduled_actions[0].payload).content
    )
    assert "internal-only" in text and "free-form" not in text

    # nothing active: no instructions, no restriction
    assert (await instructions_hook.run(phase_ctx([]))).is_empty

    command = await instructions_hook.run(phase_ctx(["data-report", "ghost"]))
    by_key = {a.key: a for a in command.scheduled_actions}
    injected = AddContextMessage.decode_payload(by_key[AddContextMessage.KEY].payload)
    assert injected.key == "active_skill_instructions"
    assert injected.target is ContextMessageTarget.SUFFIX_SYSTEM
    assert text_of(injected.content) == (
        "<active_skill_instructions>\n"
        '<skill_instruction skill="data-report">\n'
        "# Data report\nRead ${file} and summarise the three biggest changes.\n"
        "</skill_instruction>\n"
        "</active_skill_instructions>"
    )
    assert IncludeOnlyTools.decode_payload(by_key[IncludeOnlyTools.KEY].payload) == [
        "load_skill_resource",
        "read_file",
        "skill",
        "skill_script",
        "web_search",
    ]

    gate = rec.gates[0]
    blocked = await gate.run(phase_ctx(["data-report"], tool_name="write_file"))
    assert isinstance(blocked, InterceptSetResult) and blocked.result.is_error
    assert "not allowed while skill(s) data-report are active" in (blocked.result.message or "")
    assert await gate.run(phase_ctx(["data-report"], tool_name="read_file")) is None
    assert await gate.run(phase_ctx([], tool_name="write_file")) is None
    assert await gate.run(phase_ctx(["free-form"], tool_name="write_file")) is None


@pytest.mark.parametrize(
    ("pattern", "allowed", "refused"),
    [
        ("mcp__gh__*", "mcp__gh__create_issue", "xmcp__gh__a"),
        ("read_?", "read_x", "read_xy"),
        ("tool_[!ab]", "tool_c", "tool_a"),
        ("/^read_.*$/", "read_x", "xread_"),
        ("/read_/", "xread_y", "write_file"),  # tool-pattern semantics: regex search
        ("/[/", None, "["),  # an invalid regex matches nothing and raises nothing
    ],
)
def test_allowed_tool_patterns_match_like_the_tool_pattern_dsl(
    pattern: str, allowed: str | None, refused: str
) -> None:
    policy = AllowedToolPolicy.for_skills([meta("p", allowed_tools=[pattern])])
    assert policy is not None
    if allowed is not None:
        assert policy.allows(allowed)
    assert not policy.allows(refused)
