"""Skills subsystem: discover, activate and load SKILL.md skill packages.

```python
from awaken_ext_skills import FsSkill, InMemorySkillRegistry, SkillSubsystem

result = FsSkill.discover("./skills")
for warning in result.warnings:
    print("skill warning:", warning)
registry = InMemorySkillRegistry.from_skills(FsSkill.into_arc_skills(result.skills))
subsystem = SkillSubsystem(registry)
builder.with_plugin("skills-discovery", subsystem.discovery_plugin())
builder.with_plugin("skills-active-instructions", subsystem.active_instructions_plugin())
```
"""

from awaken_ext_skills.allowed_tools import (
    AllowedToolsError,
    AllowedToolToken,
    is_tool_pattern,
    parse_allowed_tools,
)
from awaken_ext_skills.catalog import (
    DEFAULT_MAX_CATALOG_CHARS,
    DEFAULT_MAX_CATALOG_ENTRIES,
    render_catalog,
)
from awaken_ext_skills.embedded import (
    EmbeddedAsset,
    EmbeddedReference,
    EmbeddedSkill,
    EmbeddedSkillData,
)
from awaken_ext_skills.errors import (
    DuplicateSkillId,
    InvalidSkillArguments,
    InvalidSkillMd,
    InvalidSkillPath,
    PathEscapesRoot,
    ScriptTimeout,
    SkillError,
    SkillIoError,
    UnknownSkill,
    UnsupportedOperation,
    UnsupportedPath,
    UnsupportedRuntime,
)
from awaken_ext_skills.frontmatter import (
    ParsedSkillMd,
    SkillFrontmatter,
    parse_skill_md,
    substitute_arguments,
    validate_frontmatter,
    validate_skill_name,
)
from awaken_ext_skills.fs import DiscoveryResult, FsSkill, SkillWarning
from awaken_ext_skills.meta import SkillArgument, SkillContextMode, SkillMeta
from awaken_ext_skills.plugins import (
    ACTIVE_INSTRUCTIONS_KEY,
    ACTIVE_INSTRUCTIONS_PLUGIN_ID,
    CATALOG_KEY,
    DISCOVERY_PLUGIN_ID,
    SkillActiveInstructionsPlugin,
    SkillDiscoveryPlugin,
)
from awaken_ext_skills.policy import AllowedToolPolicy
from awaken_ext_skills.registry import (
    CompositeSkillRegistry,
    FsSkillRegistryManager,
    InMemorySkillRegistry,
    RegistrySource,
    SkillRegistry,
    registry_for,
)
from awaken_ext_skills.served import SKILLS_PLUGIN_ID, SkillsConfig, SkillsConfigKey, SkillsPlugin
from awaken_ext_skills.skill import (
    LoadedAsset,
    LoadedReference,
    ScriptResult,
    Skill,
    SkillActivation,
    media_type_for,
)
from awaken_ext_skills.state import (
    ActivateSkill,
    HideSkill,
    SetSkillVisibilityBatch,
    ShowSkill,
    ShowSkillBatch,
    SkillState,
    SkillStateKey,
    SkillVisibilityAction,
    SkillVisibilityKey,
    SkillVisibilityMode,
    SkillVisibilityState,
)
from awaken_ext_skills.subsystem import SKILLS_BUNDLE_ID, SkillSubsystem
from awaken_ext_skills.tools import (
    LOAD_SKILL_RESOURCE_TOOL_ID,
    SKILL_SCRIPT_TOOL_ID,
    SKILL_TOOL_ID,
    LoadSkillResourceTool,
    SkillActivateTool,
    SkillScriptTool,
)

__all__ = [
    "ACTIVE_INSTRUCTIONS_KEY",
    "ACTIVE_INSTRUCTIONS_PLUGIN_ID",
    "CATALOG_KEY",
    "DEFAULT_MAX_CATALOG_CHARS",
    "DEFAULT_MAX_CATALOG_ENTRIES",
    "DISCOVERY_PLUGIN_ID",
    "LOAD_SKILL_RESOURCE_TOOL_ID",
    "SKILLS_BUNDLE_ID",
    "SKILLS_PLUGIN_ID",
    "SKILL_SCRIPT_TOOL_ID",
    "SKILL_TOOL_ID",
    "ActivateSkill",
    "AllowedToolPolicy",
    "AllowedToolToken",
    "AllowedToolsError",
    "CompositeSkillRegistry",
    "DiscoveryResult",
    "DuplicateSkillId",
    "EmbeddedAsset",
    "EmbeddedReference",
    "EmbeddedSkill",
    "EmbeddedSkillData",
    "FsSkill",
    "FsSkillRegistryManager",
    "HideSkill",
    "InMemorySkillRegistry",
    "InvalidSkillArguments",
    "InvalidSkillMd",
    "InvalidSkillPath",
    "LoadSkillResourceTool",
    "LoadedAsset",
    "LoadedReference",
    "ParsedSkillMd",
    "PathEscapesRoot",
    "RegistrySource",
    "ScriptResult",
    "ScriptTimeout",
    "SetSkillVisibilityBatch",
    "ShowSkill",
    "ShowSkillBatch",
    "Skill",
    "SkillActivateTool",
    "SkillActivation",
    "SkillActiveInstructionsPlugin",
    "SkillArgument",
    "SkillContextMode",
    "SkillDiscoveryPlugin",
    "SkillError",
    "SkillFrontmatter",
    "SkillIoError",
    "SkillMeta",
    "SkillRegistry",
    "SkillScriptTool",
    "SkillState",
    "SkillStateKey",
    "SkillSubsystem",
    "SkillVisibilityAction",
    "SkillVisibilityKey",
    "SkillVisibilityMode",
    "SkillVisibilityState",
    "SkillWarning",
    "SkillsConfig",
    "SkillsConfigKey",
    "SkillsPlugin",
    "UnknownSkill",
    "UnsupportedOperation",
    "UnsupportedPath",
    "UnsupportedRuntime",
    "is_tool_pattern",
    "media_type_for",
    "parse_allowed_tools",
    "parse_skill_md",
    "registry_for",
    "render_catalog",
    "substitute_arguments",
    "validate_frontmatter",
    "validate_skill_name",
]
