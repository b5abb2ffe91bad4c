"""``SkillSubsystem``: the two skills plugins over one registry."""

from __future__ import annotations

from awaken_contract.plugin import Plugin

from awaken_ext_skills.catalog import DEFAULT_MAX_CATALOG_CHARS, DEFAULT_MAX_CATALOG_ENTRIES
from awaken_ext_skills.plugins import SkillActiveInstructionsPlugin, SkillDiscoveryPlugin
from awaken_ext_skills.registry import SkillRegistry

__all__ = ["SKILLS_BUNDLE_ID", "SkillSubsystem"]

SKILLS_BUNDLE_ID = "skills"


class SkillSubsystem:
    """Builds the ``skills-discovery`` and ``skills-active-instructions`` plugins."""

    def __init__(
        self,
        registry: SkillRegistry,
        *,
        max_entries: int = DEFAULT_MAX_CATALOG_ENTRIES,
        max_chars: int = DEFAULT_MAX_CATALOG_CHARS,
    ) -> None:
        self.registry = registry
        self.max_entries = max_entries
        self.max_chars = max_chars

    @classmethod
    def new(cls, registry: SkillRegistry) -> SkillSubsystem:
        """The book's ``SkillSubsystem::new``."""
        return cls(registry)

    def with_limits(self, max_entries: int, max_chars: int) -> SkillSubsystem:
        """Catalog limits (clamped to ≥ 1 entry and ≥ 256 bytes)."""
        return SkillSubsystem(self.registry, max_entries=max_entries, max_chars=max_chars)

    def discovery_plugin(self) -> SkillDiscoveryPlugin:
        """The catalog + tools plugin (``skills-discovery``)."""
        return SkillDiscoveryPlugin(
            self.registry, max_entries=self.max_entries, max_chars=self.max_chars
        )

    def active_instructions_plugin(self) -> SkillActiveInstructionsPlugin:
        """The active-instructions plugin (``skills-active-instructions``)."""
        return SkillActiveInstructionsPlugin(self.registry)

    def plugins(self) -> list[Plugin]:
        """Both plugins, discovery first."""
        return [self.discovery_plugin(), self.active_instructions_plugin()]
