"""Filesystem discovery over a directory of good and bad skills, resources and scripts."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from awaken_ext_skills import (
    DuplicateSkillId,
    EmbeddedSkill,
    EmbeddedSkillData,
    FsSkill,
    FsSkillRegistryManager,
    InMemorySkillRegistry,
    InvalidSkillArguments,
    InvalidSkillMd,
    InvalidSkillPath,
    PathEscapesRoot,
    ScriptTimeout,
    SkillError,
    SkillIoError,
    UnsupportedOperation,
    UnsupportedPath,
    UnsupportedRuntime,
)

GOOD = ["data-report", "free-form", "git-helper", "internal-only"]


def warnings_by_dir(root: Path) -> dict[str, str]:
    result = FsSkill.discover(root)
    out: dict[str, str] = {}
    for warning in result.warnings:
        path = Path(warning.path)
        name = path.parent.name if path.name == "SKILL.md" else path.name
        out[name] = warning.reason
    return out


def test_discovery_keeps_good_skills_and_warns_about_bad_ones(skills_root: Path) -> None:
    result = FsSkill.discover(skills_root)
    assert [s.id for s in result.skills] == GOOD
    assert [w.path for w in result.warnings] == sorted(w.path for w in result.warnings)
    warnings = warnings_by_dir(skills_root)
    assert warnings["Upper-Case"] == "directory name must be lowercase"
    assert warnings["no-skill-file"] == "missing SKILL.md"
    assert "missing YAML frontmatter" in warnings["no-frontmatter"]
    assert "unterminated YAML frontmatter" in warnings["unterminated"]
    assert "invalid YAML frontmatter" in warnings["bad-yaml"]
    assert "description must be non-empty" in warnings["no-description"]
    assert (
        warnings["mismatch"] == "frontmatter name 'other-name' does not match directory 'mismatch'"
    )
    assert 'context must be "inline" or "fork"' in warnings["bad-context"]
    assert "unbalanced parentheses" in warnings["bad-tools"]
    assert "metadata value for key 'n' must be a string" in warnings["bad-metadata"]
    assert "64 characters" in warnings["a" * 65]
    # hidden directories, plain files and symlinked directories are skipped silently
    assert not {".hidden", "README.txt", "linked-skill"} & set(warnings)
    assert len(result.warnings) == 11


def test_skill_meta_from_the_frontmatter(skills_root: Path) -> None:
    skills = {s.id: s for s in FsSkill.discover(skills_root).skills}
    meta = skills["data-report"].meta()
    assert meta.name == "data-report"
    assert meta.allowed_tools == ["read_file", "web_search"]
    assert meta.when_to_use == "the user uploads tabular data"
    assert meta.arguments[0].name == "file" and meta.argument_hint == "<file>"
    assert skills["internal-only"].meta().model_invocable is False
    assert skills["git-helper"].meta().allowed_tools == [
        "Bash(git status)",
        "read_file",
        "mcp__github__*",
    ]


def test_discovery_errors(skills_root: Path, tmp_path: Path) -> None:
    with pytest.raises(SkillIoError, match="failed to access skills root"):
        FsSkill.discover(tmp_path / "does-not-exist")
    other = tmp_path / "other"
    (other / "free-form").mkdir(parents=True)
    (other / "free-form" / "SKILL.md").write_text("---\nname: free-form\ndescription: d\n---\n")
    with pytest.raises(DuplicateSkillId, match="free-form"):
        FsSkill.discover_roots([skills_root, other])


async def test_activation_substitutes_arguments(skills_root: Path) -> None:
    skill = FsSkill.from_dir(skills_root / "data-report")
    activation = await skill.activate({"file": "sales.csv"})
    assert "Read sales.csv and summarise" in activation.instructions
    assert activation.instructions.startswith("# Data report")


async def test_references_and_assets(skills_root: Path) -> None:
    skill = FsSkill.from_dir(skills_root / "data-report")
    ref = await skill.load_reference("references/guide.md")
    assert ref.content == "Use medians, not means." and not ref.truncated
    assert ref.sha256 == hashlib.sha256(b"Use medians, not means.").hexdigest()
    dotted = await skill.load_reference("./references/./guide.md")
    assert dotted.content == ref.content
    big = await skill.load_reference("references/big.txt")
    assert big.truncated and big.bytes == 300 * 1024 and len(big.content) == 256 * 1024
    asset = await skill.load_asset("assets/logo.png")
    assert asset.media_type == "image/png" and asset.encoding == "base64"
    assert base64.b64decode(asset.content) == b"\x89PNG\r\n\x1a\nfake"


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("../secret.txt", InvalidSkillPath),
        ("references/../../secret.txt", InvalidSkillPath),
        ("references/../SKILL.md", InvalidSkillPath),
        ("/etc/passwd", InvalidSkillPath),
        ("~/secret.txt", InvalidSkillPath),
        ("", InvalidSkillPath),
        ("references\\..\\..\\secret.txt", InvalidSkillPath),
        ("references/guide.md\x00.png", InvalidSkillPath),
        ("SKILL.md", UnsupportedPath),
        ("assets/logo.png", UnsupportedPath),
        ("references/leak.md", PathEscapesRoot),
        ("references/up/secret.txt", PathEscapesRoot),
        ("references/missing.md", SkillIoError),
        ("references", UnsupportedPath),
    ],
)
async def test_reference_reads_cannot_escape_the_skill(
    skills_root: Path, path: str, error: type[SkillError]
) -> None:
    skill = FsSkill.from_dir(skills_root / "data-report")
    with pytest.raises(error):
        await skill.load_reference(path)


async def test_asset_symlink_escape_is_rejected(skills_root: Path) -> None:
    skill = FsSkill.from_dir(skills_root / "data-report")
    with pytest.raises(PathEscapesRoot, match="outside skill root"):
        await skill.load_asset("assets/leak.png")
    with pytest.raises(InvalidSkillPath):
        await skill.load_asset("/etc/passwd")


async def test_scripts(skills_root: Path) -> None:
    skill = FsSkill.from_dir(skills_root / "data-report")
    ok = await skill.run_script("scripts/count.py", ["a", "b c"])
    assert ok.exit_code == 0 and ok.stdout == "args 2 a b c\n" and ok.stderr == "warn\n"
    assert ok.sha256 == hashlib.sha256(b"args 2 a b c\nwarn\n").hexdigest()
    failing = await skill.run_script("scripts/count.py", [])
    assert failing.exit_code == 3
    shell = await skill.run_script("scripts/hello.sh", [])
    assert shell.stdout == "hello from data-report\n"  # cwd is the skill directory
    with pytest.raises(UnsupportedRuntime, match=r"tool\.rb"):
        await skill.run_script("scripts/tool.rb", [])
    with pytest.raises(UnsupportedPath):
        await skill.run_script("references/guide.md", [])
    with pytest.raises(InvalidSkillPath):
        await skill.run_script("../outside.py", [])
    with pytest.raises(InvalidSkillArguments, match="NUL"):
        await skill.run_script("scripts/count.py", ["a\x00b"])
    with pytest.raises(InvalidSkillArguments):
        await skill.run_script("scripts/count.py", ["x"] * 65)
    loud = await skill.run_script("scripts/loud.py", [])
    assert loud.truncated_stdout and len(loud.stdout) == 32 * 1024


async def test_script_timeout_kills_the_script(skills_root: Path) -> None:
    skill = FsSkill.from_dir(skills_root / "data-report")
    skill.script_timeout = 0.5
    with pytest.raises(ScriptTimeout, match=r"script timed out after 0\.5s"):
        await skill.run_script("scripts/hang.sh", [])


SKILL_MD = """---
name: builtin-skill
description: A compiled-in skill
allowed-tools: read_file
when-to-use: ignored for embedded skills
---
Builtin Skill

Follow these instructions for ${topic}.
"""


async def test_embedded_skill() -> None:
    skill = EmbeddedSkill(
        EmbeddedSkillData(
            skill_md=SKILL_MD,
            references=[("references/a.md", "alpha")],
            assets=[("assets/x.bin", base64.b64encode(b"\x00\x01").decode(), None)],
        )
    )
    meta = skill.meta()
    assert meta.id == "builtin-skill" and meta.allowed_tools == ["read_file"]
    assert meta.when_to_use is None  # embedded skills take only id, description, tools
    assert (await skill.load_reference("references/a.md")).content == "alpha"
    assert (await skill.load_asset("assets/x.bin")).bytes == 2
    with pytest.raises(UnsupportedOperation, match="reference not available"):
        await skill.load_reference("references/b.md")
    with pytest.raises(UnsupportedOperation, match="do not support script execution"):
        await skill.run_script("scripts/x.sh", [])
    assert "for maths." in (await skill.activate({"topic": "maths"})).instructions
    with pytest.raises(InvalidSkillMd, match="invalid base64 asset 'assets/y'"):
        EmbeddedSkill(EmbeddedSkillData(SKILL_MD, assets=[("assets/y", "!!!")]))
    with pytest.raises(DuplicateSkillId):
        EmbeddedSkill.from_static_slice([EmbeddedSkillData(SKILL_MD), EmbeddedSkillData(SKILL_MD)])


def test_registries(skills_root: Path) -> None:
    skills = FsSkill.into_arc_skills(FsSkill.discover(skills_root).skills)
    registry = InMemorySkillRegistry.from_skills(skills)
    assert registry.ids() == GOOD and len(registry) == 4 and not registry.is_empty
    assert registry.get("data-report") is not None and registry.get("nope") is None
    with pytest.raises(DuplicateSkillId):
        registry.register(skills[0])
    manager = FsSkillRegistryManager.discover_roots([skills_root])
    assert manager.ids() == GOOD and manager.version == 1 and len(manager.warnings()) == 11
    (skills_root / "new-skill").mkdir()
    (skills_root / "new-skill" / "SKILL.md").write_text(
        "---\nname: new-skill\ndescription: n\n---\n"
    )
    manager.refresh()
    assert "new-skill" in manager and manager.version == 2
    with pytest.raises(SkillError, match="must be non-empty"):
        FsSkillRegistryManager([])


async def test_periodic_rediscovery(
    skills_root: Path, until: Callable[..., Awaitable[object]]
) -> None:
    manager = FsSkillRegistryManager.discover_roots([skills_root])
    with pytest.raises(SkillError, match="must be > 0"):
        manager.start_periodic_refresh(0)
    manager.start_periodic_refresh(0.05)
    try:
        assert manager.periodic_refresh_running()
        (skills_root / "late-skill").mkdir()
        (skills_root / "late-skill" / "SKILL.md").write_text(
            "---\nname: late-skill\ndescription: l\n---\n"
        )
        await until(lambda: "late-skill" in manager, message="late-skill discovered")
        assert manager.version > 1
    finally:
        await manager.stop_periodic_refresh()
    assert not manager.periodic_refresh_running()
