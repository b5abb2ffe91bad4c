"""``SkillsPlugin``: the skills subsystem configured per agent by its ``skills`` section.

The zero-argument plugin behind the ``skills`` entry point (``awaken serve``): an agent lists
``skills`` in ``plugin_ids`` and names its skill folders in ``sections.skills.directories``; the
catalog, the ``skill`` / ``load_skill_resource`` / ``skill_script`` tools and the active
instructions then use the skills discovered there (one registry per set of folders, shared by
the agents naming the same folders).
"""

from __future__ import annotations

import msgspec
from awaken_contract.errors import ConfigLoadError
from awaken_contract.host import JsonValue
from awaken_contract.plugin import ConfigSchema, Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.registry_spec import AgentSpec, AgentSystemConfig, PluginConfigKey
from awaken_contract.state import MutationBatch
from pydantic import BaseModel, ConfigDict, Field

from awaken_ext_skills.errors import SkillError
from awaken_ext_skills.plugins import SkillActiveInstructionsPlugin, SkillDiscoveryPlugin
from awaken_ext_skills.registry import (
    FsSkillRegistryManager,
    InMemorySkillRegistry,
    SkillRegistry,
)

__all__ = ["SKILLS_PLUGIN_ID", "SkillsConfig", "SkillsConfigKey", "SkillsPlugin"]

SKILLS_PLUGIN_ID = "skills"


class SkillsConfig(BaseModel):
    """Section ``skills``: the folders whose sub-folders with a ``SKILL.md`` are skills."""

    model_config = ConfigDict(extra="forbid")

    directories: list[str] = Field(default_factory=list)


class SkillsConfigKey(PluginConfigKey[SkillsConfig]):
    """Agent-spec section ``skills`` → :class:`SkillsConfig`."""

    KEY = "skills"
    CONFIG = SkillsConfig


class SkillsPlugin(Plugin):
    """Plugin ``skills`` (discovery + active instructions, the skills of each agent's folders)."""

    def __init__(self) -> None:
        self._registries: dict[tuple[str, ...], SkillRegistry] = {}
        self._served: list[tuple[str, ...]] = []

    def descriptor(self) -> PluginDescriptor:
        """``skills``."""
        return PluginDescriptor(SKILLS_PLUGIN_ID)

    def registry_for(self, spec: AgentSpec | None) -> SkillRegistry:
        """The skills of ``spec``'s folders (discovered once; raises ``SkillError`` for a folder
        that cannot be read or two skills with one id)."""
        if spec is None:
            return InMemorySkillRegistry()
        roots = tuple(spec.config(SkillsConfigKey).directories)
        if not roots:
            return InMemorySkillRegistry()
        registry = self._registries.get(roots)
        if registry is None:
            registry = FsSkillRegistryManager.discover_roots(list(roots))
            self._registries[roots] = registry
        return registry

    def register(self, registrar: PluginRegistrar) -> None:
        """The discovery and active-instructions components over :meth:`registry_for`."""
        SkillDiscoveryPlugin(self.registry_for).register(registrar)
        SkillActiveInstructionsPlugin(self.registry_for).register(registrar)

    def config_schemas(self) -> list[ConfigSchema]:
        """The ``skills`` section."""
        return [ConfigSchema.for_key(SkillsConfigKey)]

    def on_activate(self, agent_spec: AgentSpec, patch: MutationBatch) -> None:
        """Discover the agent's folders (an unreadable one fails activation)."""
        self.registry_for(agent_spec)

    # ------------------------------------------------------------------ host lifecycle
    async def start(self, system: AgentSystemConfig) -> None:
        """Discover the folders of every agent that enables ``skills`` (errors stop the host)."""
        served = []
        for agent in system.agents:
            if SKILLS_PLUGIN_ID in agent.plugin_ids:
                try:
                    self.registry_for(agent)
                except SkillError as exc:
                    raise ConfigLoadError(f"agent {agent.id!r}: skills: {exc}") from None
                served.append(tuple(agent.config(SkillsConfigKey).directories))
        self._served = served

    async def close(self) -> None:
        """Nothing to release."""

    def status(self) -> dict[str, JsonValue]:
        """``{"skills": [metadata of every skill the served agents can use]}``."""
        seen: dict[str, JsonValue] = {}
        for roots in self._served:
            registry = self._registries.get(roots)
            for skill_id, skill in sorted((registry.snapshot() if registry else {}).items()):
                seen.setdefault(skill_id, msgspec.to_builtins(skill.meta()))
        return {"skills": list(seen.values())}
