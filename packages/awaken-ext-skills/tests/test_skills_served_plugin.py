"""``SkillsPlugin``: the skills of each agent's ``skills.directories`` (the serve entry point)."""

from __future__ import annotations

from pathlib import Path

import pytest
from awaken_contract.contract.identity import RunIdentity
from awaken_contract.contract.tool import ToolCallContext, ToolOutput, ToolResult
from awaken_contract.errors import ConfigLoadError
from awaken_contract.host import HostedPlugin
from awaken_contract.registry_spec import AgentSpec, AgentSystemConfig
from awaken_contract.state import MutationBatch
from awaken_ext_skills import (
    SkillActivateTool,
    SkillError,
    SkillsConfig,
    SkillsConfigKey,
    SkillsPlugin,
)


def _agent(agent_id: str, *directories: Path) -> AgentSpec:
    spec = AgentSpec(agent_id).with_plugin("skills")
    return spec.with_config(
        SkillsConfigKey, SkillsConfig(directories=[str(d) for d in directories])
    )


def _one_skill(root: Path, name: str) -> Path:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d {name}\n---\nBody.\n")
    return root


async def test_each_agent_gets_the_skills_of_its_own_folders(tmp_path: Path) -> None:
    first = _one_skill(tmp_path / "a", "alpha")
    second = _one_skill(tmp_path / "b", "beta")
    plugin = SkillsPlugin()
    assert isinstance(plugin, HostedPlugin)
    one, two, both = _agent("one", first), _agent("two", second), _agent("both", first, second)
    assert plugin.registry_for(one).ids() == ["alpha"]
    assert plugin.registry_for(two).ids() == ["beta"]
    assert plugin.registry_for(both).ids() == ["alpha", "beta"]
    assert plugin.registry_for(_agent("again", first)) is plugin.registry_for(one)  # cached
    assert plugin.registry_for(AgentSpec("none")).ids() == []
    tool = SkillActivateTool(plugin.registry_for)
    ctx = ToolCallContext("c1", "skill", RunIdentity.for_test(), agent_spec=two)
    ok = await tool.execute({"skill": "beta"}, ctx)
    assert isinstance(ok, ToolOutput) and ok.result.message == "Launching skill: beta"
    other = ToolCallContext("c2", "skill", RunIdentity.for_test(), agent_spec=one)
    unknown = await tool.execute({"skill": "beta"}, other)  # not in agent one's folders
    assert isinstance(unknown, ToolResult) and unknown.status.value == "error"
    await plugin.start(AgentSystemConfig(agents=[one, two]))
    assert [s["id"] for s in plugin.status()["skills"]] == ["alpha", "beta"]  # type: ignore[index, union-attr]


async def test_unreadable_folders_fail_activation_and_host_start(tmp_path: Path) -> None:
    plugin = SkillsPlugin()
    broken = _agent("broken", tmp_path / "missing")
    with pytest.raises(SkillError, match="failed to access skills root"):
        plugin.on_activate(broken, MutationBatch())
    with pytest.raises(ConfigLoadError, match="agent 'broken': skills: io error"):
        await plugin.start(AgentSystemConfig(agents=[broken]))
    with pytest.raises(Exception, match="directories"):
        SkillsConfigKey.decode({"directories": "not-a-list"})
