"""The skills plugins: ``skills-discovery`` (catalog + tools) and
``skills-active-instructions`` (instructions of active skills + ``allowed-tools``)."""

from __future__ import annotations

import logging

from awaken_contract.actions import (
    AddContextMessage,
    IncludeOnlyTools,
    InterceptSetResult,
    ToolInterceptPayload,
)
from awaken_contract.contract.context_message import ContextMessage
from awaken_contract.contract.tool import ToolResult
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
    ToolGateHook,
)
from awaken_contract.state import KeyScope, StateCommand, StateKeyOptions

from awaken_ext_skills.catalog import (
    DEFAULT_MAX_CATALOG_CHARS,
    DEFAULT_MAX_CATALOG_ENTRIES,
    render_catalog,
)
from awaken_ext_skills.errors import SkillError
from awaken_ext_skills.frontmatter import parse_skill_md
from awaken_ext_skills.meta import SkillMeta
from awaken_ext_skills.policy import AllowedToolPolicy
from awaken_ext_skills.registry import RegistrySource, registry_for
from awaken_ext_skills.state import (
    SkillStateKey,
    SkillVisibilityKey,
    SkillVisibilityMode,
    SkillVisibilityState,
)
from awaken_ext_skills.tools import LoadSkillResourceTool, SkillActivateTool, SkillScriptTool

__all__ = [
    "ACTIVE_INSTRUCTIONS_KEY",
    "ACTIVE_INSTRUCTIONS_PLUGIN_ID",
    "CATALOG_KEY",
    "DISCOVERY_PLUGIN_ID",
    "SkillActiveInstructionsPlugin",
    "SkillDiscoveryPlugin",
    "active_skill_ids",
    "is_visible",
]

logger = logging.getLogger(__name__)

DISCOVERY_PLUGIN_ID = "skills-discovery"
ACTIVE_INSTRUCTIONS_PLUGIN_ID = "skills-active-instructions"
CATALOG_KEY = "skill_catalog"
ACTIVE_INSTRUCTIONS_KEY = "active_skill_instructions"


def is_visible(meta: SkillMeta, state: SkillVisibilityState | None) -> bool:
    """Listed in the catalog? An explicit mode wins; otherwise skills that disable model
    invocation or are scoped to ``paths`` are hidden."""
    mode = state.modes.get(meta.id) if state is not None else None
    if mode is not None:
        return mode is SkillVisibilityMode.VISIBLE
    return meta.model_invocable and not meta.paths


def active_skill_ids(ctx: PhaseContext) -> list[str]:
    """Sorted ids of the skills activated in this run."""
    state = ctx.state(SkillStateKey)
    return sorted(set(state.active)) if state is not None else []


class _CatalogHook(PhaseHook):
    def __init__(self, registry: RegistrySource, max_entries: int, max_chars: int) -> None:
        self._registry = registry
        self._max_entries = max_entries
        self._max_chars = max_chars

    async def run(self, ctx: PhaseContext) -> StateCommand:
        visibility = ctx.state(SkillVisibilityKey)
        metas = [
            skill.meta()
            for skill in registry_for(self._registry, ctx.agent_spec).snapshot().values()
            if is_visible(skill.meta(), visibility)
        ]
        text = render_catalog(metas, max_entries=self._max_entries, max_chars=self._max_chars)
        command = StateCommand()
        if text:
            command.schedule_action(AddContextMessage, ContextMessage.system(CATALOG_KEY, text))
        return command


class SkillDiscoveryPlugin(Plugin):
    """Injects the skill catalog before every inference and offers the tools ``skill``,
    ``load_skill_resource`` and ``skill_script``. Owns the ``skills`` and
    ``skills.visibility`` state keys (run scoped: activations last for the run)."""

    def __init__(
        self,
        registry: RegistrySource,
        *,
        max_entries: int = DEFAULT_MAX_CATALOG_ENTRIES,
        max_chars: int = DEFAULT_MAX_CATALOG_CHARS,
    ) -> None:
        self.registry = registry
        self.max_entries = max(max_entries, 1)
        self.max_chars = max(max_chars, 256)

    def with_limits(self, max_entries: int, max_chars: int) -> SkillDiscoveryPlugin:
        """The same plugin with other catalog limits (clamped to ≥ 1 entry, ≥ 256 bytes)."""
        return SkillDiscoveryPlugin(self.registry, max_entries=max_entries, max_chars=max_chars)

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(DISCOVERY_PLUGIN_ID)

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(SkillStateKey, StateKeyOptions(persistent=True, scope=KeyScope.RUN))
        registrar.register_key(
            SkillVisibilityKey, StateKeyOptions(persistent=False, scope=KeyScope.RUN)
        )
        for tool in (
            SkillActivateTool(self.registry),
            LoadSkillResourceTool(self.registry),
            SkillScriptTool(self.registry),
        ):
            registrar.register_tool(tool.descriptor().id, tool)
        registrar.register_phase_hook(
            DISCOVERY_PLUGIN_ID,
            Phase.BEFORE_INFERENCE,
            _CatalogHook(self.registry, self.max_entries, self.max_chars),
        )


def _active_metas(source: RegistrySource, ctx: PhaseContext) -> list[SkillMeta]:
    registry = registry_for(source, ctx.agent_spec)
    metas = []
    for skill_id in active_skill_ids(ctx):
        skill = registry.get(skill_id)
        if skill is not None:
            metas.append(skill.meta())
    return metas


class _InstructionsHook(PhaseHook):
    def __init__(self, registry: RegistrySource) -> None:
        self._registry = registry

    async def run(self, ctx: PhaseContext) -> StateCommand:
        command = StateCommand()
        blocks: list[str] = []
        for skill_id in active_skill_ids(ctx):
            skill = registry_for(self._registry, ctx.agent_spec).get(skill_id)
            if skill is None:
                continue
            try:
                body = parse_skill_md(await skill.read_instructions()).body.strip()
            except SkillError as exc:
                logger.warning("skill %s instructions unavailable: %s", skill_id, exc)
                continue
            if body:
                blocks.append(
                    f'<skill_instruction skill="{skill_id}">\n{body}\n</skill_instruction>'
                )
        if blocks:
            text = "<active_skill_instructions>\n" + "\n".join(blocks)
            text += "\n</active_skill_instructions>"
            command.schedule_action(
                AddContextMessage, ContextMessage.suffix_system(ACTIVE_INSTRUCTIONS_KEY, text)
            )
        policy = AllowedToolPolicy.for_skills(_active_metas(self._registry, ctx))
        if policy is not None:
            include = policy.include_only()
            if include is not None:
                command.schedule_action(IncludeOnlyTools, include)
        return command


class _AllowedToolsGate(ToolGateHook):
    def __init__(self, registry: RegistrySource) -> None:
        self._registry = registry

    async def run(self, ctx: PhaseContext) -> ToolInterceptPayload | None:
        tool = ctx.tool_name
        if tool is None:
            return None
        policy = AllowedToolPolicy.for_skills(_active_metas(self._registry, ctx))
        if policy is None or policy.allows(tool):
            return None
        return InterceptSetResult(ToolResult.error(tool, policy.denial(tool)))


class SkillActiveInstructionsPlugin(Plugin):
    """Injects the instructions of the active skills (after the history) and, while skills
    with ``allowed-tools`` are active, restricts the tools offered to the model
    (``IncludeOnlyTools``) and refuses calls to other tools. Install together with
    :class:`SkillDiscoveryPlugin`, which owns the ``skills`` key."""

    def __init__(self, registry: RegistrySource) -> None:
        self.registry = registry

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(ACTIVE_INSTRUCTIONS_PLUGIN_ID)

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_phase_hook(
            ACTIVE_INSTRUCTIONS_PLUGIN_ID, Phase.BEFORE_INFERENCE, _InstructionsHook(self.registry)
        )
        registrar.register_tool_gate_hook(
            ACTIVE_INSTRUCTIONS_PLUGIN_ID, _AllowedToolsGate(self.registry)
        )
