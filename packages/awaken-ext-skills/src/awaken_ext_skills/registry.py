"""Skill registries: an in-memory one, a composite view and a refreshing filesystem manager."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from datetime import timedelta

from awaken_contract.registry_spec import AgentSpec

from awaken_ext_skills.errors import DuplicateSkillId, SkillError
from awaken_ext_skills.fs import FsSkill, SkillWarning
from awaken_ext_skills.skill import Skill

__all__ = [
    "CompositeSkillRegistry",
    "FsSkillRegistryManager",
    "InMemorySkillRegistry",
    "RegistrySource",
    "SkillRegistry",
    "registry_for",
]

logger = logging.getLogger(__name__)


class SkillRegistry(ABC):
    """Read access to a set of skills by id."""

    @abstractmethod
    def snapshot(self) -> dict[str, Skill]:
        """``{id: skill}`` at this moment."""

    def get(self, skill_id: str) -> Skill | None:
        """The skill with this exact id, or ``None``."""
        return self.snapshot().get(skill_id)

    def ids(self) -> list[str]:
        """Skill ids, sorted."""
        return sorted(self.snapshot())

    def __len__(self) -> int:
        return len(self.snapshot())

    @property
    def is_empty(self) -> bool:
        """No skills."""
        return len(self) == 0

    def __contains__(self, skill_id: object) -> bool:
        return isinstance(skill_id, str) and skill_id in self.snapshot()


RegistrySource = SkillRegistry | Callable[[AgentSpec | None], SkillRegistry]
"""A registry, or a function choosing one by the running agent (``SkillsPlugin``)."""


def registry_for(source: RegistrySource, spec: AgentSpec | None) -> SkillRegistry:
    """The registry ``source`` gives for the agent ``spec``."""
    return source if isinstance(source, SkillRegistry) else source(spec)


class InMemorySkillRegistry(SkillRegistry):
    """Skills registered in code."""

    def __init__(self) -> None:
        self._skills: dict[str, Skill] = {}

    @classmethod
    def from_skills(cls, skills: Iterable[Skill]) -> InMemorySkillRegistry:
        """A registry of ``skills`` (a later skill with the same id wins; blank ids skipped)."""
        registry = cls()
        registry.extend_upsert(skills)
        return registry

    def register(self, skill: Skill) -> None:
        """Add a skill (blank id → :class:`SkillError`; duplicate → :class:`DuplicateSkillId`)."""
        skill_id = skill.id
        if not skill_id.strip():
            raise SkillError("skill id must be non-empty")
        if skill_id in self._skills:
            raise DuplicateSkillId(skill_id)
        self._skills[skill_id] = skill

    def extend_upsert(self, skills: Iterable[Skill]) -> None:
        """Add or replace skills (later wins; blank ids skipped)."""
        for skill in skills:
            if skill.id.strip():
                self._skills[skill.id] = skill

    def snapshot(self) -> dict[str, Skill]:
        """A copy of the registered skills."""
        return dict(self._skills)


class CompositeSkillRegistry(SkillRegistry):
    """A merged view of several registries. A duplicate id at construction is an error; a
    later conflict keeps serving the last consistent snapshot."""

    def __init__(self, registries: Sequence[SkillRegistry]) -> None:
        self._registries = list(registries)
        self._last_good = self._merge()

    def _merge(self) -> dict[str, Skill]:
        merged: dict[str, Skill] = {}
        for registry in self._registries:
            for skill_id, skill in registry.snapshot().items():
                if skill_id in merged:
                    raise DuplicateSkillId(skill_id)
                merged[skill_id] = skill
        return merged

    def snapshot(self) -> dict[str, Skill]:
        """The merged skills (the last good merge when members now conflict)."""
        try:
            self._last_good = self._merge()
        except DuplicateSkillId as exc:
            logger.warning("composite skill registry conflict, keeping last snapshot: %s", exc)
        return dict(self._last_good)


class FsSkillRegistryManager(SkillRegistry):
    """Skills discovered from filesystem roots, re-discovered by :meth:`refresh`."""

    def __init__(self, roots: Sequence[str | os.PathLike[str]]) -> None:
        if not roots:
            raise SkillError("skill roots list must be non-empty")
        self._roots = list(roots)
        self._skills: dict[str, Skill] = {}
        self._warnings: list[SkillWarning] = []
        self._version = 0
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def discover_roots(cls, roots: Sequence[str | os.PathLike[str]]) -> FsSkillRegistryManager:
        """Discover the skills under ``roots`` now (version 1)."""
        manager = cls(roots)
        manager.refresh()
        return manager

    def refresh(self) -> None:
        """Re-discover; on error the previous skills stay (and the error is raised)."""
        result = FsSkill.discover_roots(self._roots)
        self._skills = {s.id: s for s in result.skills}
        self._warnings = list(result.warnings)
        self._version += 1

    @property
    def version(self) -> int:
        """Number of successful discoveries."""
        return self._version

    def warnings(self) -> list[SkillWarning]:
        """Warnings of the last discovery."""
        return list(self._warnings)

    def snapshot(self) -> dict[str, Skill]:
        """The skills of the last discovery."""
        return dict(self._skills)

    def start_periodic_refresh(self, interval: float | timedelta) -> None:
        """Re-discover every ``interval`` in the background."""
        seconds = interval.total_seconds() if isinstance(interval, timedelta) else float(interval)
        if not seconds > 0:
            raise SkillError("periodic refresh interval must be > 0")
        if self.periodic_refresh_running():
            raise SkillError("periodic refresh loop is already running")
        self._task = asyncio.get_running_loop().create_task(self._loop(seconds))

    async def _loop(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await asyncio.to_thread(self.refresh)
            except SkillError as exc:
                logger.warning("skill refresh failed: %s", exc)

    async def stop_periodic_refresh(self) -> None:
        """Stop the refresh loop."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def periodic_refresh_running(self) -> bool:
        """Whether the refresh loop runs."""
        return self._task is not None and not self._task.done()
